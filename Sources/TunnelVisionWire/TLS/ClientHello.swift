import TunnelVisionModel

/// What a ClientHello announced: the name (kept even when the rest cannot be walked) and the offer.
public struct ClientHelloReading: Sendable, Hashable {
    /// The name, normalised: lower-cased, a trailing dot (the root, RFC 1034 § 3.1) taken off.
    public var serverName: String?
    /// The name as the phone sent it, when that differs from `serverName` only by its trailing dot.
    public var serverNameAsSent: String?
    public var offer: ClientTLSOffer?

    public init(serverName: String? = nil, serverNameAsSent: String? = nil, offer: ClientTLSOffer? = nil) {
        self.serverName = serverName
        self.serverNameAsSent = serverNameAsSent
        self.offer = offer
    }
}

enum TLSExtension {
    static let serverName: UInt16 = 0
    static let applicationLayerProtocolNegotiation: UInt16 = 16
    static let preSharedKey: UInt16 = 41
    static let earlyData: UInt16 = 42
    static let supportedVersions: UInt16 = 43
    static let encryptedClientHello: UInt16 = 65037
}

extension ClientHelloReading {
    /// Reads a ClientHello body (after the handshake header). Nil when even the fixed part
    /// before the extensions cannot be read.
    public init?(body: UnsafeRawBufferPointer) {
        var reader = ByteReader(body)
        guard let legacyVersion = reader.u16(), reader.skip(32),
              reader.takeLengthPrefixed(lengthBytes: 1) != nil,
              reader.takeLengthPrefixed(lengthBytes: 2) != nil,
              reader.takeLengthPrefixed(lengthBytes: 1) != nil
        else { return nil }
        self.init()
        if reader.isAtEnd {
            offer = ClientTLSOffer(versionsForm: .upTo, versions: [TLSProtocolVersion(legacyVersion)])
            return
        }
        guard let block = reader.takeLengthPrefixed(lengthBytes: 2) else { return }
        var extensions = ByteReader(block)
        var seen = Set<UInt16>()
        var listedVersions: [TLSProtocolVersion]?
        var protocols = ApplicationProtocolList()
        var droppedVersions = 0
        var hasECH = false
        var earlyData = false
        while !extensions.isAtEnd {
            guard let type = extensions.u16(), let data = extensions.takeLengthPrefixed(lengthBytes: 2) else {
                return  // Not walkable: the offer is not known, the name read so far stays.
            }
            // The first copy of an extension is the one a server would act on.
            guard seen.insert(type).inserted else { continue }
            switch type {
            case TLSExtension.serverName:
                if let announced = Self.hostName(in: data) {
                    serverName = announced.name
                    serverNameAsSent = announced.sent
                }
            case TLSExtension.supportedVersions:
                guard let (versions, grease) = Self.versions(in: data) else { return }
                listedVersions = versions
                droppedVersions = grease
            case TLSExtension.applicationLayerProtocolNegotiation:
                guard let list = ApplicationProtocolList(data) else { return }
                protocols = list
            case TLSExtension.encryptedClientHello:
                hasECH = true
            case TLSExtension.earlyData:
                earlyData = true
            default:
                break
            }
        }
        offer = ClientTLSOffer(
            versionsForm: listedVersions == nil ? .upTo : .listed,
            versions: listedVersions ?? [TLSProtocolVersion(legacyVersion)],
            applicationProtocols: protocols.kept,
            omittedApplicationProtocols: protocols.omitted,
            droppedIdentifiers: droppedVersions + protocols.grease,
            hasEncryptedClientHello: hasECH,
            offersEarlyData: earlyData
        )
    }

    /// RFC 6066 host_name: ASCII letters, digits, hyphens (and the underscores real names carry),
    /// at most 253 bytes; anything else is unusable. RFC 6066 says the name has no trailing dot,
    /// but a client that sends one names the same host: it is read without the dot (`name`), and
    /// what was sent is kept (`sent`, nil without a dot).
    static func hostName(in data: UnsafeRawBufferPointer) -> (name: String, sent: String?)? {
        var reader = ByteReader(data)
        guard let list = reader.takeLengthPrefixed(lengthBytes: 2) else { return nil }
        var entries = ByteReader(list)
        while let nameType = entries.u8(), let name = entries.takeLengthPrefixed(lengthBytes: 2) {
            guard nameType == 0 else { continue }
            if name.count > 1, name.last == UInt8(ascii: ".") {
                guard let bare = HostName.validated(UnsafeRawBufferPointer(rebasing: name.dropLast())) else { return nil }
                return (bare, bare + ".")
            }
            return HostName.validated(name).map { ($0, nil) }
        }
        return nil
    }

    static func versions(in data: UnsafeRawBufferPointer) -> ([TLSProtocolVersion], Int)? {
        var reader = ByteReader(data)
        guard let list = reader.takeLengthPrefixed(lengthBytes: 1), list.count % 2 == 0 else { return nil }
        var entries = ByteReader(list)
        var versions: [TLSProtocolVersion] = []
        var grease = 0
        while let value = entries.u16() {
            if TLSProtocolVersion.isGREASE(value) { grease += 1 } else { versions.append(TLSProtocolVersion(value)) }
        }
        return (versions, grease)
    }
}

/// ALPN names as offered: printable ASCII without spaces, at most 16 names of at most 64 bytes.
struct ApplicationProtocolList {
    static let maximumNames = 16
    static let maximumNameLength = 64

    var kept: [String] = []
    var omitted = 0
    var grease = 0

    init() {}

    init?(_ data: UnsafeRawBufferPointer) {
        var reader = ByteReader(data)
        guard let list = reader.takeLengthPrefixed(lengthBytes: 2) else { return nil }
        var entries = ByteReader(list)
        while !entries.isAtEnd {
            guard let name = entries.takeLengthPrefixed(lengthBytes: 1) else { return nil }
            if name.count == 2, TLSProtocolVersion.isGREASE(UInt16(name[0]) << 8 | UInt16(name[1])) {
                grease += 1
            } else if kept.count < Self.maximumNames, !name.isEmpty, name.count <= Self.maximumNameLength,
                      name.allSatisfy({ (0x21...0x7E).contains($0) }) {
                kept.append(String(decoding: name, as: UTF8.self))
            } else {
                omitted += 1
            }
        }
    }
}

enum HostName {
    static let maximumLength = 253

    /// Lower-cased when every label is letters, digits, hyphens or underscores; else nil.
    static func validated(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard !bytes.isEmpty, bytes.count <= maximumLength, bytes.last != UInt8(ascii: ".") else { return nil }
        var labelLength = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "."):
                guard labelLength > 0 else { return nil }
                labelLength = 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                labelLength += 1
                guard labelLength <= 63 else { return nil }
            default:
                return nil
            }
        }
        return String(decoding: bytes, as: UTF8.self).lowercased()
    }
}

/// An SSL 2.0-format ClientHello (RFC 6101 appendix E.2): it carries no extensions, so the
/// offer is the highest version it names.
public enum SSLv2ClientHello {
    /// Whether the stream starts like one: a two-byte header with the high bit set, then type 1.
    public static func matches(_ stream: UnsafeRawBufferPointer) -> Bool {
        stream.count >= 3 && stream[0] & 0x80 != 0 && stream[2] == 1
    }

    public static func read(_ stream: UnsafeRawBufferPointer) -> ClientHelloReading? {
        guard matches(stream), stream.count >= 5 else { return nil }
        let version = UInt16(stream[3]) << 8 | UInt16(stream[4])
        return ClientHelloReading(offer: ClientTLSOffer(versionsForm: .upTo, versions: [TLSProtocolVersion(version)]))
    }
}
