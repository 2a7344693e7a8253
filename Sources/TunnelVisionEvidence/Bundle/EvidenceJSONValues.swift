import Foundation
import TunnelVisionModel

/// How each kind of value is written: the one place that says what a string, a number or an
/// instant looks like in the bundle and in `tvctl --json`.
extension EvidenceJSONWriter {
    /// Escaped as Foundation escapes: the quote, the backslash and the control characters; the
    /// slash and everything beyond ASCII as they are.
    mutating func string(_ text: String) {
        bytes.append(0x22)
        var text = text
        text.withUTF8 { utf8 in
            // Most strings need no escape: copied whole.
            guard utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case 0x22: bytes += [0x5C, 0x22]
                case 0x5C: bytes += [0x5C, 0x5C]
                case 0x0A: bytes += [0x5C, 0x6E]
                case 0x0D: bytes += [0x5C, 0x72]
                case 0x09: bytes += [0x5C, 0x74]
                case 0x08: bytes += [0x5C, 0x62]
                case 0x0C: bytes += [0x5C, 0x66]
                case 0..<0x20:
                    bytes += [0x5C, 0x75, 0x30, 0x30, Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0x0F)]
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(0x22)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10
    }

    /// Digits without a String in between: every flow has a dozen numbers.
    mutating func integer(_ number: some BinaryInteger) {
        if number < 0 { bytes.append(0x2D) }
        var magnitude = UInt64(number.magnitude)
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { room in
            var index = room.count
            repeat {
                index -= 1
                room[index] = 0x30 + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: room[index...])
        }
    }

    /// As JSONEncoder writes it: Swift's shortest form that reads back as the same number, without
    /// a trailing ".0" ("-0", "1000000000000000", "1e+16"); a number JSON cannot hold as 0.
    mutating func number(_ value: Double) {
        guard value.isFinite else { return bytes.append(0x30) }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func literal(_ flag: Bool) {
        bytes.append(contentsOf: (flag ? "true" : "false").utf8)
    }

    /// An instant as a string: see `EvidenceJSON.instant(_:)`.
    mutating func instant(nanosecondsSinceEpoch nanoseconds: Int64) {
        bytes.append(0x22)
        Instant(nanosecondsSinceEpoch: nanoseconds).appendISO8601(to: &bytes)
        bytes.append(0x22)
    }
}

extension String: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) { json.string(self) }
}

extension Bool: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) { json.literal(self) }
}

extension Double: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) { json.number(self) }
}

extension Instant: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) { json.instant(nanosecondsSinceEpoch: nanosecondsSinceEpoch) }
}

extension Date: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) { json.instant(nanosecondsSinceEpoch: nanosecondsSinceEpoch) }
}

extension EvidenceJSONWritable where Self: BinaryInteger {
    public func write(to json: inout EvidenceJSONWriter) { json.integer(self) }
}

// Every integer type a shape may hold: the Codable path hands an unknown one back to its own
// single-value container, which would ask for it again.
extension Int: EvidenceJSONWritable {}
extension Int64: EvidenceJSONWritable {}
extension Int32: EvidenceJSONWritable {}
extension Int16: EvidenceJSONWritable {}
extension Int8: EvidenceJSONWritable {}
extension UInt: EvidenceJSONWritable {}
extension UInt64: EvidenceJSONWritable {}
extension UInt32: EvidenceJSONWritable {}
extension UInt16: EvidenceJSONWritable {}
extension UInt8: EvidenceJSONWritable {}

extension Array: EvidenceJSONWritable where Element: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws { try json.array(self) }
}
