/// Reads a possibly compressed DNS name (RFC 1035 § 4.1.4) from a whole message. Pointers may
/// only point backwards, at most 32 of them; the name is at most 255 bytes; the reserved label
/// types (01, 10) are refused. Unprintable bytes are escaped as \DDD; IDNs stay `xn--`.
enum DNSName {
    static let maximumPointers = 32
    static let maximumLength = 255

    /// The name at `reader`'s position, advancing past it; nil when it is not a valid name.
    static func read(_ reader: inout ByteReader, in message: UnsafeRawBufferPointer) -> String? {
        var text: [UInt8] = []
        var wireLength = 0
        var position = reader.position
        var resumeAt: Int?
        var pointers = 0
        var lowestJump = position
        while true {
            guard position < message.count else { return nil }
            let length = message[position]
            switch length & 0xC0 {
            case 0xC0:
                guard position + 1 < message.count else { return nil }
                let target = Int(length & 0x3F) << 8 | Int(message[position + 1])
                pointers += 1
                // Strictly backwards from every earlier jump: no loops, bounded work.
                guard pointers <= maximumPointers, target < lowestJump else { return nil }
                if resumeAt == nil { resumeAt = position + 2 }
                lowestJump = target
                position = target
            case 0x00:
                if length == 0 {
                    guard reader.skip((resumeAt ?? position + 1) - reader.position) else { return nil }
                    return text.isEmpty ? "." : String(decoding: text, as: UTF8.self)
                }
                wireLength += Int(length) + 1
                guard wireLength < maximumLength,
                      let label = message.slice(from: position + 1, count: Int(length)) else { return nil }
                if !text.isEmpty { text.append(UInt8(ascii: ".")) }
                appendEscaped(label, to: &text)
                position += 1 + Int(length)
            default:
                return nil
            }
        }
    }

    private static func appendEscaped(_ label: UnsafeRawBufferPointer, to text: inout [UInt8]) {
        for byte in label {
            switch byte {
            case UInt8(ascii: "."), UInt8(ascii: "\\"):
                text.append(UInt8(ascii: "\\"))
                text.append(byte)
            case 0x21...0x7E:
                text.append(byte)
            default:
                text.append(UInt8(ascii: "\\"))
                text.append(contentsOf: String(byte).leftPadded(to: 3).utf8)
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
