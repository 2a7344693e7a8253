/// One HTTP/1.1 header section (RFC 9112 § 2 to § 6), read from a complete head: the start line's
/// three parts and the fields that frame the body.
struct HTTP1Head {
    var startLine: [ArraySlice<UInt8>] = []
    var host: ArraySlice<UInt8>?
    var contentLength: Int64?
    var chunked = false
    var transferEncoded = false

    /// Where the head ends in `bytes` (just past its empty line), or nil when it has not yet.
    /// Blank lines before a request line are allowed (RFC 9112 § 2.2) and skipped by the caller.
    static func end(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        var lineStart = start
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                let lineLength = index - lineStart
                if lineLength == 0 || (lineLength == 1 && bytes[lineStart] == UInt8(ascii: "\r")) {
                    return index + 1
                }
                lineStart = index + 1
            }
            index += 1
        }
        return nil
    }

    /// Splits the head into lines (their CRs dropped) and reads the start line and the framing fields.
    init(_ head: ArraySlice<UInt8>, startLineError: RequestReadingError) throws {
        var lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { throw startLineError }
        startLine = first.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard startLine.count >= 2 else { throw startLineError }
        for line in lines.dropFirst() {
            // A folded line (obsolete, RFC 9112 § 5.2) or a field without a name is refused.
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(Self.isTokenByte) else {
                throw RequestReadingError.malformed(.headerField)
            }
            let name = line[line.startIndex..<colon]
            let value = Self.trimmed(line[(colon + 1)...])
            if Self.equalsIgnoringCase(name, "host") {
                host = value
            } else if Self.equalsIgnoringCase(name, "content-length") {
                try readContentLength(value)
            } else if Self.equalsIgnoringCase(name, "transfer-encoding") {
                transferEncoded = true
                let last = value.split(separator: UInt8(ascii: ",")).last.map(Self.trimmed)
                chunked = last.map { Self.equalsIgnoringCase($0, "chunked") } ?? false
            }
        }
    }

    /// A Content-Length may repeat, or be a list, only with one value (RFC 9110 § 8.6).
    private mutating func readContentLength(_ value: ArraySlice<UInt8>) throws {
        for part in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let digits = Self.trimmed(part)
            guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw RequestReadingError.malformed(.contentLength)
            }
            let number = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
            if let contentLength, contentLength != number { throw RequestReadingError.malformed(.contentLength) }
            contentLength = number
        }
    }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ text: String) -> Bool {
        bytes.count == text.utf8.count && zip(bytes, text.utf8).allSatisfy { a, b in
            (a >= 0x41 && a <= 0x5A ? a + 0x20 : a) == b
        }
    }

    /// RFC 9110 § 5.6.2's tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
