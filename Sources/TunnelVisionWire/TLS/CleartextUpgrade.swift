import TunnelVisionModel

/// Where TLS begins in a TCP stream that opened in the clear: after an SMTP, IMAP, POP3 or FTP
/// command that starts TLS (STARTTLS, STLS, AUTH TLS), a PostgreSQL SSLRequest, a MySQL SSL
/// request, an HTTP CONNECT request and its 2xx answer, a SOCKS5 / SOCKS4 CONNECT and its
/// grant, or a PROXY protocol header (v1 or v2) a relay put first. The phone's side decides which
/// prelude it was; the server's TLS is then found where that protocol puts it.
public struct CleartextUpgrade: Sendable, Hashable {
    public enum Prelude: Sendable, Hashable {
        case startTLSCommand
        case postgresSSLRequest
        case mysqlSSLRequest
        case httpConnect
        case socks5
        case socks4
        case proxyProtocol
    }

    public enum Decision: Sendable, Hashable {
        /// The phone's TLS starts at `clientOffset` of its stream.
        case upgraded(Prelude, clientOffset: Int)
        /// No prelude this reader knows: the stream stays unread.
        case none
    }

    /// How far text commands are looked through before giving up.
    public static let scanLimit = 4096

    public private(set) var decision: Decision?
    /// The host a SOCKS request named by its domain: the phone announced it to the proxy.
    public private(set) var requestedHost: String?
    /// What a PROXY protocol header announced: the connection its relay took in.
    public private(set) var proxyAnnouncement: ProxyProtocolAnnouncement?
    /// Text lines already looked at (the next one starts here).
    private var lineStart = 0

    public init() {}

    /// Reads the phone's first bytes (its whole contiguous stream so far, which opened as
    /// `opening`) until it decides.
    public mutating func advanceClient(over stream: UnsafeRawBufferPointer, opening: StreamOpening) {
        guard decision == nil, let first = stream.first else { return }
        switch opening {
        case .tlsHandshake:
            decision = Decision.none
            return
        case .httpRequest:
            decision = stream.starts(with: Self.connectMethod) ? Self.connectStart(stream) : Decision.none
            return
        case .unrecognised:
            break
        }
        // "PROXY " (v1) or the v2 signature's CR: neither a command nor any other prelude here.
        if first == UInt8(ascii: "P") || first == 0x0D {
            switch PROXYPrelude.readClient(stream) {
            case .needMore:
                return
            case .header(let announcement, let offset):
                proxyAnnouncement = announcement
                decision = .upgraded(.proxyProtocol, clientOffset: offset)
                return
            case .notPROXY:
                break
            }
        }
        if first == 5 || first == 4 {
            switch SOCKSPrelude.readClient(stream) {
            case .needMore:
                return
            case .connect(let version, let offset, let host):
                requestedHost = host
                decision = .upgraded(version == 5 ? .socks5 : .socks4, clientOffset: offset)
                return
            case .notSOCKS:
                break
            }
        }
        if first == 0 {
            decision = Self.postgresStart(stream)
            return
        }
        if stream.count >= 4, stream[3] == 1, stream[0] != 0, stream[1] == 0, stream[2] == 0 {
            if let decided = Self.mysqlStart(stream) { decision = decided }
            return
        }
        scanCommands(stream)
    }

    /// Where the server's TLS begins in its stream, once the phone's side was upgraded; nil while
    /// it cannot be told yet (or never, for a refused upgrade).
    public static func serverOffset(for prelude: Prelude, in stream: UnsafeRawBufferPointer) -> Int? {
        switch prelude {
        case .postgresSSLRequest:
            return stream.first == UInt8(ascii: "S") ? 1 : nil
        case .mysqlSSLRequest:
            // The server's greeting is packet 0; its TLS follows it.
            guard stream.count >= 4, stream[3] == 0 else { return nil }
            let length = Int(stream[0]) | Int(stream[1]) << 8 | Int(stream[2]) << 16
            return 4 + length
        case .socks5:
            return SOCKSPrelude.serverOffset(version: 5, in: stream)
        case .socks4:
            return SOCKSPrelude.serverOffset(version: 4, in: stream)
        case .proxyProtocol:
            // The header goes one way: the backend answers the relayed bytes from its first byte.
            return 0
        case .httpConnect:
            guard let status = stream.slice(from: 0, count: 12), status.starts(with: Array("HTTP/1.".utf8)),
                  status[9] == UInt8(ascii: "2") else { return nil }
            return headerEnd(in: stream)
        case .startTLSCommand:
            // The server's text lines never begin with a handshake record's type byte.
            var offset = 0
            while offset < min(stream.count, scanLimit) {
                if stream[offset] == TLSRecordLayer.contentHandshake { return offset }
                guard let end = lineEnd(in: stream, from: offset) else { return nil }
                offset = end
            }
            return nil
        }
    }

    // MARK: - The phone's preludes

    private static let connectMethod = Array("CONNECT ".utf8)
    /// PostgreSQL's SSLRequest: length 8, request code 80877103.
    private static let postgresSSLRequest: [UInt8] = [0, 0, 0, 8, 0x04, 0xD2, 0x16, 0x2F]

    private static func postgresStart(_ stream: UnsafeRawBufferPointer) -> Decision? {
        let count = min(stream.count, postgresSSLRequest.count)
        guard stream.prefix(count).elementsEqual(postgresSSLRequest.prefix(count)) else { return Decision.none }
        return count == postgresSSLRequest.count ? .upgraded(.postgresSSLRequest, clientOffset: count) : nil
    }

    /// MySQL's SSLRequest is packet 1 of 32 bytes whose capability flags ask for CLIENT_SSL.
    private static func mysqlStart(_ stream: UnsafeRawBufferPointer) -> Decision? {
        guard stream[0] == 32 else { return Decision.none }
        guard stream.count >= 8 else { return nil }
        let clientSSL: UInt8 = 0x08  // bit 11 of the little-endian capability flags
        return stream[5] & clientSSL != 0 ? .upgraded(.mysqlSSLRequest, clientOffset: 36) : Decision.none
    }

    /// The phone's bytes at the announced start were not TLS: the server refused, talk goes on.
    public mutating func refuse() {
        decision = Decision.none
    }

    private static func connectStart(_ stream: UnsafeRawBufferPointer) -> Decision? {
        if let end = headerEnd(in: stream) { return .upgraded(.httpConnect, clientOffset: end) }
        return stream.count >= StreamOpeningDetector.requestLineLimit ? Decision.none : nil
    }

    /// Text lines up to the bound: a command that starts TLS decides; a byte that is not text ends it.
    private mutating func scanCommands(_ stream: UnsafeRawBufferPointer) {
        while decision == nil {
            guard lineStart < Self.scanLimit else {
                decision = Decision.none
                return
            }
            guard lineStart < stream.count else { return }
            let end = Self.lineEnd(in: stream, from: lineStart)
            guard let line = stream.slice(from: lineStart, count: (end ?? stream.count) - lineStart),
                  line.allSatisfy({ $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20...0x7E).contains($0) })
            else {
                decision = Decision.none
                return
            }
            guard let end else {
                if stream.count - lineStart >= Self.scanLimit { decision = Decision.none }
                return
            }
            lineStart = end
            if Self.startsTLS(line) { decision = .upgraded(.startTLSCommand, clientOffset: end) }
        }
    }

    /// SMTP and IMAP (after its tag) STARTTLS, POP3 STLS, FTP AUTH TLS / AUTH SSL (RFC 4217).
    static func startsTLS(_ line: UnsafeRawBufferPointer) -> Bool {
        let words = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A })
            .map { word in word.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 } }
        switch words.count {
        case 1: return words[0] == startTLS || words[0] == stls
        case 2: return words[1] == startTLS || (words[0] == auth && (words[1] == tls || words[1] == ssl))
        default: return false
        }
    }

    private static let startTLS = Array("STARTTLS".utf8), stls = Array("STLS".utf8), auth = Array("AUTH".utf8)
    private static let tls = Array("TLS".utf8), ssl = Array("SSL".utf8)

    /// The offset just past the next LF.
    static func lineEnd(in stream: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index < stream.count {
            if stream[index] == 0x0A { return index + 1 }
            index += 1
        }
        return nil
    }

    /// The offset just past the blank line that ends an HTTP header block (CRLF or LF).
    static func headerEnd(in stream: UnsafeRawBufferPointer) -> Int? {
        var offset = 0
        while let end = lineEnd(in: stream, from: offset) {
            let length = end - offset
            if length == 1 || (length == 2 && stream[offset] == 0x0D) { return end }
            offset = end
        }
        return nil
    }
}
