import Foundation

/// One certificate of a chain as read from the wire: nothing is validated. flows.json (and
/// `tvctl flows --json`) writes it key for key as it is read.
public struct CertificateSummary: Sendable, Hashable {
    /// RFC 4514 text, escaped.
    public let subject: String
    public let issuer: String
    public let notBefore: Date?
    public let notAfter: Date?
    /// Lower-case hex SHA-256 of the DER bytes.
    public let sha256: String
    /// A name was cut at the length bound.
    public let namesTruncated: Bool

    public init(subject: String, issuer: String, notBefore: Date?, notAfter: Date?, sha256: String, namesTruncated: Bool = false) {
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.sha256 = sha256
        self.namesTruncated = namesTruncated
    }
}

public enum CertificateAbsence: UInt8, Sendable, Hashable, NamedByCase {
    /// The session was resumed: up to TLS 1.2, ChangeCipherSpec or NewSessionTicket came first;
    /// in TLS 1.3 (and QUIC) the ServerHello accepted a pre-shared key.
    case resumedSession = 0
    /// ServerKeyExchange or ServerHelloDone came without a Certificate.
    case noCertificateMessage = 1
}

/// What the server's certificate message showed (SSL 3.0 to TLS 1.2 only).
public enum ServerCertificateReading: Sendable, Hashable {
    /// The chain as read, the server's own first; complete when nothing sent was left out.
    case presented(chain: [CertificateSummary], chainIsComplete: Bool)
    case notSent(CertificateAbsence)
}

/// Whether the server's certificate could be seen, and if not, why.
public enum CertificateVisibility: Sendable, Hashable {
    case presented(chain: [CertificateSummary], chainIsComplete: Bool)
    case notSent(CertificateAbsence)
    /// TLS 1.3 and QUIC send it encrypted.
    case encryptedInHandshake
    /// The relay's own certificate stood in for the server's.
    case replacedByInspection
    /// The server refused the handshake.
    case noNegotiation
    case notRead

    public var name: String {
        switch self {
        case .presented: "presented"
        case .notSent: "notSent"
        case .encryptedInHandshake: "encryptedInHandshake"
        case .replacedByInspection: "replacedByInspection"
        case .noNegotiation: "noNegotiation"
        case .notRead: "notRead"
        }
    }
}
