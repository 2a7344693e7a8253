/// The host an HTTP/1.x request names (RFC 9112 § 3.2): the authority of an absolute-form
/// target (`GET http://host/…`, which a server must prefer), else the Host header field. Read
/// from the request head, at most `StreamOpeningDetector.requestLineLimit` bytes; the port and a
/// trailing dot are dropped, the name lower-cased. An IP literal, or anything that is not a valid
/// host name, names nothing.
public enum HTTPRequestHost {
    public enum Reading: Sendable, Hashable {
        /// The head is not complete yet.
        case needMore
        /// Read to its end (or its bound): the host, if it named a usable one.
        case read(String?)
    }

    public static func read(_ stream: UnsafeRawBufferPointer) -> Reading {
        let limit = min(stream.count, StreamOpeningDetector.requestLineLimit)
        var lineStart = 0
        var isRequestLine = true
        while let end = CleartextUpgrade.lineEnd(in: stream, from: lineStart), end <= limit {
            var line = UnsafeRawBufferPointer(rebasing: stream[lineStart..<end])
            lineStart = end
            line = trimmed(line)
            if isRequestLine {
                isRequestLine = false
                // An absolute-form target overrides the Host field, whatever it names.
                if let target = requestTarget(line), let host = authority(ofAbsoluteTarget: target) { return .read(host) }
                continue
            }
            if line.isEmpty { return .read(nil) }  // the end of the head: no Host field
            if let value = fieldValue(line, named: hostField) { return .read(hostName(value)) }
        }
        return stream.count >= StreamOpeningDetector.requestLineLimit ? .read(nil) : .needMore
    }

    private static let hostField = Array("host".utf8)
    private static let httpScheme = Array("http://".utf8), httpsScheme = Array("https://".utf8)

    /// The second word of the request line.
    private static func requestTarget(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let words = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard words.count == 3 else { return nil }
        return UnsafeRawBufferPointer(rebasing: words[1])
    }

    /// For `http://host[:port]/…`, its host (nil inside when unusable); nil for any other form
    /// (origin, authority, asterisk).
    private static func authority(ofAbsoluteTarget target: UnsafeRawBufferPointer) -> String?? {
        let lowered = target.map(lowercase)
        let scheme = lowered.starts(with: httpScheme) ? httpScheme.count : lowered.starts(with: httpsScheme) ? httpsScheme.count : nil
        guard let scheme else { return .none }
        let rest = target[(target.startIndex + scheme)...]
        let end = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        var authority = UnsafeRawBufferPointer(rebasing: rest[..<end])
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            authority = UnsafeRawBufferPointer(rebasing: authority[(at + 1)...])
        }
        return .some(hostName(authority))
    }

    /// `name[:port]` as a host name; nil for an IP literal or an invalid name.
    static func hostName(_ value: UnsafeRawBufferPointer) -> String? {
        guard value.first != UInt8(ascii: "[") else { return nil }  // an IPv6 literal
        let colon = value.lastIndex(of: UInt8(ascii: ":")) ?? value.endIndex
        var name = UnsafeRawBufferPointer(rebasing: value[..<colon])
        if name.last == UInt8(ascii: ".") { name = UnsafeRawBufferPointer(rebasing: name.dropLast()) }
        guard let host = HostName.validated(name) else { return nil }
        // A dotted quad is an address, not a name.
        let isAddress = host.split(separator: ".").count == 4 && host.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber }
        return isAddress ? nil : host
    }

    private static func fieldValue(_ line: UnsafeRawBufferPointer, named name: [UInt8]) -> UnsafeRawBufferPointer? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon == name.count,
              line[..<colon].map(lowercase).elementsEqual(name) else { return nil }
        return trimmed(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
    }

    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return UnsafeRawBufferPointer(rebasing: bytes[bytes.startIndex..<bytes.startIndex]) }
        return UnsafeRawBufferPointer(rebasing: bytes[first...last])
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }
}
