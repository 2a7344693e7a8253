import TunnelVisionModel

/// A protocol seen carrying data in the clear.
public enum CleartextProtocol: String, Sendable, Hashable, CaseIterable {
    /// The stream opened with a readable HTTP request line.
    case http
    /// Datagrams to port 53 of a resolver other than the gateway's, without a QUIC reading.
    case dns
}

/// How a flow was seen to be protected.
public enum EncryptedProtocol: String, Sendable, Hashable, CaseIterable {
    /// The stream opened with a TLS handshake, or a TLS reading exists.
    case tls
    /// A QUIC version whose packet protection is known.
    case quic
}

/// Why it could not be seen whether a flow was encrypted.
public enum EncryptionGap: Sendable, Hashable {
    /// The TCP stream opened with bytes that are neither TLS nor HTTP.
    case unrecognisedOpening
    /// The start of the TCP stream was not read: a port is no observation.
    case openingNotRead
    /// The connection's start was seen and no byte was sent either way: there was no opening.
    case nothingSent
    /// A QUIC version whose packet protection is not known.
    case unrecognisedQUICVersion(QUICVersion)
    /// UDP without a QUIC reading (DNS included): its datagrams are not read.
    case datagramsNotRead

    /// The key findings.json writes as the reason.
    public var name: String {
        switch self {
        case .unrecognisedOpening: "unrecognisedOpening"
        case .openingNotRead: "openingNotRead"
        case .nothingSent: "nothingSent"
        case .unrecognisedQUICVersion: "unrecognisedQUICVersion"
        case .datagramsNotRead: "datagramsNotRead"
        }
    }
}

/// What the encryption check says of one flow. Neither the port nor the inspection status is
/// an observation: what was not seen is not assessed.
public enum EncryptionAssessment: Sendable, Hashable {
    /// Seen in the clear.
    case cleartext(CleartextProtocol)
    /// Seen protected.
    case encrypted(EncryptedProtocol)
    /// Applicable, but not seen either way.
    case notAssessed(EncryptionGap)
    /// Neither TCP nor UDP, or DNS with the gateway's resolver (the lab's own, in the clear by design).
    case notApplicable

    public init(of flow: StoredFlow, gatewayResolvers: [IPAddress] = []) {
        if let server = flow.dnsServer, gatewayResolvers.contains(server.address) {
            self = .notApplicable
        } else if flow.openedWithHTTPRequest {
            self = .cleartext(.http)
        } else if flow.key.proto == .tcp {
            if flow.streamOpening == .tlsHandshake || flow.hasTLSReading {
                self = .encrypted(.tls)
            } else {
                self = .notAssessed(
                    flow.streamOpening == .unrecognised ? .unrecognisedOpening
                        : flow.tcpPayload == .noneSinceStart ? .nothingSent : .openingNotRead)
            }
        } else if flow.key.proto == .udp {
            if let quic = flow.quic {
                self = quic.version.hasKnownPacketProtection ? .encrypted(.quic) : .notAssessed(.unrecognisedQUICVersion(quic.version))
            } else if flow.dnsServer != nil {
                self = .cleartext(.dns)
            } else {
                self = .notAssessed(.datagramsNotRead)
            }
        } else {
            self = .notApplicable
        }
    }

    var outcome: CheckOutcome<EncryptionGap> {
        switch self {
        case .cleartext(let protocolSeen): .finding(.cleartextTraffic(protocolSeen))
        case .encrypted: .satisfied
        case .notAssessed(let gap): .unassessed(gap)
        case .notApplicable: .notApplicable
        }
    }
}
