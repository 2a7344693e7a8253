/// A TLS protocol version as it stands on the wire.
public struct TLSProtocolVersion: Sendable, Hashable, RawRepresentable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ wireValue: UInt16) { self.rawValue = wireValue }

    public static let ssl3 = TLSProtocolVersion(0x0300)
    public static let tls10 = TLSProtocolVersion(0x0301)
    public static let tls11 = TLSProtocolVersion(0x0302)
    public static let tls12 = TLSProtocolVersion(0x0303)
    public static let tls13 = TLSProtocolVersion(0x0304)

    /// The five published versions, oldest first. Drafts (0x7Fxx) and private values are not.
    public static let published: [TLSProtocolVersion] = [.ssl3, .tls10, .tls11, .tls12, .tls13]

    public var wireValue: UInt16 { rawValue }
    public var isPublished: Bool { Self.published.contains(self) }

    /// The order among published versions; nil for anything else, which is never ordered.
    public var publishedRank: Int? { Self.published.firstIndex(of: self) }

    /// "TLS 1.2", "SSL 3.0"; nil when the version has no published name.
    public var name: String? {
        switch self {
        case .ssl3: "SSL 3.0"
        case .tls10: "TLS 1.0"
        case .tls11: "TLS 1.1"
        case .tls12: "TLS 1.2"
        case .tls13: "TLS 1.3"
        default: nil
        }
    }

    /// Written without a space ("TLS1.2"), or as hex ("0x7F1C") when it has no name.
    public var compactText: String {
        name.map { $0.replacingOccurrences(of: " ", with: "") } ?? hex
    }

    /// Its name, or its hex value.
    public var displayText: String { name ?? hex }

    public var hex: String { "0x" + String(rawValue, radix: 16, uppercase: true).leftPadded(to: 4) }

    /// GREASE values (RFC 8701): 0x?A?A with both bytes equal.
    public var isGREASE: Bool { Self.isGREASE(rawValue) }

    public static func isGREASE(_ value: UInt16) -> Bool {
        value & 0x0F0F == 0x0A0A && value >> 8 == value & 0xFF
    }

    /// Parses "1.0"…"1.3" (the catalogue's minimum) into a version.
    public init?(catalogueText text: String) {
        switch text {
        case "1.0": self = .tls10
        case "1.1": self = .tls11
        case "1.2": self = .tls12
        case "1.3": self = .tls13
        default: return nil
        }
    }
}

public struct CipherSuite: Sendable, Hashable, RawRepresentable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ wireValue: UInt16) { self.rawValue = wireValue }
    public var wireValue: UInt16 { rawValue }
    /// "0xC02F".
    public var hex: String { "0x" + String(rawValue, radix: 16, uppercase: true).leftPadded(to: 4) }
}

public struct QUICVersion: Sendable, Hashable, RawRepresentable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ wireValue: UInt32) { self.rawValue = wireValue }

    public static let v1 = QUICVersion(0x0000_0001)
    public static let v2 = QUICVersion(0x6b33_43cf)

    public var wireValue: UInt32 { rawValue }
    /// Versions whose packet protection is known (RFC 9001, RFC 9369): they carry TLS 1.3.
    public var hasKnownPacketProtection: Bool { self == .v1 || self == .v2 }
    /// "0x00000001".
    public var hex: String { "0x" + String(rawValue, radix: 16, uppercase: true).leftPadded(to: 8) }
    public var name: String? {
        switch self {
        case .v1: "QUIC v1"
        case .v2: "QUIC v2"
        default: nil
        }
    }
}

/// How a TCP stream opened: the phone's first in-order bytes, when the stream's start was seen.
public enum StreamOpening: UInt8, Sendable, Hashable, CaseIterable, NamedByCase {
    case tlsHandshake = 0
    case httpRequest = 1
    case unrecognised = 2
}

/// What a TCP connection carried, beside how its stream opened. Raised only: nothing
/// sent becomes carried, never the reverse.
public enum TCPPayloadSighting: UInt8, Sendable, Hashable, CaseIterable {
    /// The connection's start (the phone's SYN or the server's SYN-ACK) was seen, and no byte of
    /// payload after it, either way.
    case noneSinceStart = 1
    /// At least one byte of payload crossed, either way.
    case carried = 2

    public var name: String {
        switch self {
        case .noneSinceStart: "noneSinceStart"
        case .carried: "carried"
        }
    }
}

/// What the phone's ClientHello offered.
public struct ClientTLSOffer: Sendable, Hashable {
    public enum VersionsForm: UInt8, Sendable, Hashable {
        /// The exact list of supported_versions, in the client's order (GREASE dropped).
        case listed = 0
        /// No supported_versions: `versions` holds one entry, the legacy ceiling.
        case upTo = 1
    }

    // Stored widest first and the counts in 32 bits (a ClientHello is at most 64 KiB, so neither
    // count comes near it): every live TLS flow holds one.
    public let versions: [TLSProtocolVersion]
    public let applicationProtocols: [String]
    private let omittedCount: Int32
    private let droppedCount: Int32
    public let versionsForm: VersionsForm
    /// The encrypted_client_hello extension (65037) was present: real or GREASE, the outer offer.
    public let hasEncryptedClientHello: Bool
    /// The early_data extension (42) was present: the client offered 0-RTT data on a resumed
    /// session. Whether the server took it is said inside the encrypted handshake.
    public let offersEarlyData: Bool

    /// ALPN names beyond what is kept (too many, too long, unprintable).
    public var omittedApplicationProtocols: Int { Int(omittedCount) }
    /// GREASE or unknown identifiers dropped from the offered lists.
    public var droppedIdentifiers: Int { Int(droppedCount) }

    public init(
        versionsForm: VersionsForm, versions: [TLSProtocolVersion], applicationProtocols: [String] = [],
        omittedApplicationProtocols: Int = 0, droppedIdentifiers: Int = 0, hasEncryptedClientHello: Bool = false,
        offersEarlyData: Bool = false
    ) {
        self.versionsForm = versionsForm
        self.versions = versions
        self.applicationProtocols = applicationProtocols
        self.omittedCount = Int32(clamping: omittedApplicationProtocols)
        self.droppedCount = Int32(clamping: droppedIdentifiers)
        self.hasEncryptedClientHello = hasEncryptedClientHello
        self.offersEarlyData = offersEarlyData
    }
}

/// What the wire shows of 0-RTT early data that a ClientHello offered. Whether the
/// server took it is said in its EncryptedExtensions, which travel encrypted: passively it can be
/// proven refused, never accepted.
public struct EarlyDataReading: Sendable, Hashable {
    public enum ServerAnswer: UInt8, Sendable, Hashable {
        /// The server resumed with the first key offered, which 0-RTT needs; whether it took the
        /// early data is in the encrypted handshake.
        case notVisible = 1
        /// A HelloRetryRequest refuses early data (RFC 8446 § 4.2.10).
        case refusedByHelloRetryRequest = 2
        /// The ServerHello did not resume with the first key offered, so the early data cannot
        /// have been taken.
        case refusedByServerHello = 3

        public var name: String {
            switch self {
            case .notVisible: "notVisible"
            case .refusedByHelloRetryRequest: "refusedByHelloRetryRequest"
            case .refusedByServerHello: "refusedByServerHello"
            }
        }
    }

    /// The client's early data crossed the tap: TLS application records before any byte of the
    /// server's answer, or QUIC 0-RTT packets.
    public var wasSent: Bool
    /// Nil while the server's hello is unread.
    public var serverAnswer: ServerAnswer?

    public init(wasSent: Bool = false, serverAnswer: ServerAnswer? = nil) {
        self.wasSent = wasSent
        self.serverAnswer = serverAnswer
    }

    /// One integer for the store: 1 (offered), plus 2 when sent, plus 4 × the answer's raw value.
    public var storedValue: Int64 { 1 | (wasSent ? 2 : 0) | Int64(serverAnswer?.rawValue ?? 0) << 2 }

    public init?(storedValue: Int64) {
        guard storedValue & 1 == 1, (0...15).contains(storedValue) else { return nil }
        wasSent = storedValue & 2 != 0
        serverAnswer = ServerAnswer(rawValue: UInt8(storedValue >> 2))
    }
}

/// Where a negotiated version was read.
public enum TLSReadingSource: UInt8, Sendable, Hashable {
    /// The real server's ServerHello, as it crossed the tap.
    case serverHello = 0
    /// The relay's own connection to the server, while it inspected the flow.
    case upstreamConnection = 1
}

/// Which message of an answer that began with a HelloRetryRequest was read: the
/// retry alone, or the real ServerHello that followed it.
public enum HelloRetryReading: UInt8, Sendable, Hashable, CaseIterable {
    /// Only the HelloRetryRequest was read: the version is the one it selected.
    case retryOnly = 1
    /// The real ServerHello was read, after a HelloRetryRequest.
    case serverHelloAfterRetry = 2
    /// Stored before the two were told apart: the reading is from one of them.
    case notToldApart = 3

    public var name: String {
        switch self {
        case .retryOnly: "retryOnly"
        case .serverHelloAfterRetry: "serverHelloAfterRetry"
        case .notToldApart: "notToldApart"
        }
    }
}

public struct TLSNegotiation: Sendable, Hashable {
    public let version: TLSProtocolVersion
    public let cipherSuite: CipherSuite
    /// Nil when no HelloRetryRequest was part of the answer.
    public let helloRetry: HelloRetryReading?
    public let source: TLSReadingSource

    /// `fromHelloRetryRequest` alone says the reading is the retry itself.
    public init(
        version: TLSProtocolVersion, cipherSuite: CipherSuite, fromHelloRetryRequest: Bool = false,
        helloRetry: HelloRetryReading? = nil, source: TLSReadingSource = .serverHello
    ) {
        self.version = version
        self.cipherSuite = cipherSuite
        self.helloRetry = helloRetry ?? (fromHelloRetryRequest ? .retryOnly : nil)
        self.source = source
    }

    /// Whether a HelloRetryRequest was part of the answer, read alone or before the ServerHello.
    public var fromHelloRetryRequest: Bool { helloRetry != nil }
}

/// The server's answer to a ClientHello.
public enum ServerTLSAnswer: Sendable, Hashable {
    case negotiated(TLSNegotiation)
    /// An alert came instead of a ServerHello.
    case refused(alert: UInt8)

    public var negotiation: TLSNegotiation? {
        if case .negotiated(let negotiation) = self { return negotiation }
        return nil
    }
}

public enum QUICEnd: UInt8, Sendable, Hashable {
    /// Read from the phone's long headers: a proposed version.
    case client = 0
    /// Read from the server's long headers: the version in use.
    case server = 1
}

public struct QUICReading: Sendable, Hashable {
    public let version: QUICVersion
    public let end: QUICEnd
    /// The version of the phone's first long header, where it differs from `version`: the one it
    /// opened with before a Version Negotiation (or a server's other choice) moved it.
    public let firstVersion: QUICVersion?

    public init(version: QUICVersion, end: QUICEnd, firstVersion: QUICVersion? = nil) {
        self.version = version
        self.end = end
        self.firstVersion = firstVersion == version ? nil : firstVersion
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
