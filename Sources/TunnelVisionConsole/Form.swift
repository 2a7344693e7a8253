import Foundation

/// An `application/x-www-form-urlencoded` body or query: name=value pairs, `+` a space,
/// `%XX` a byte. A body that is not well formed, or not UTF-8 once decoded, is nil.
public struct Form: Sendable, Equatable {
    public let fields: [(String, String)]

    public static func == (left: Form, right: Form) -> Bool {
        left.fields.elementsEqual(right.fields) { $0 == $1 }
    }

    public init(fields: [(String, String)]) {
        self.fields = fields
    }

    public init?(encoded text: String) {
        var fields: [(String, String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else { return nil }
            fields.append((name, value))
        }
        self.fields = fields
    }

    /// The first value of a name.
    public subscript(_ name: String) -> String? {
        fields.first { $0.0 == name }?.1
    }

    /// A value with spaces trimmed; nil when nothing is left.
    public func given(_ name: String) -> String? {
        guard let value = self[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard iterator.count >= 2, let high = hexValue(iterator.removeFirst()), let low = hexValue(iterator.removeFirst()) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - 55
        default: nil
        }
    }
}
