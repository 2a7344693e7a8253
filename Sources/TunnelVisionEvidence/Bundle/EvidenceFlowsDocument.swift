import Foundation
import TunnelVisionModel

/// flows.json: every flow of the session with its names and their origin, every TLS reading
/// with its source, and the findings it proves. A key that is absent was not read.
public struct EvidenceFlowsDocument: Sendable, Hashable {
    public let format = "tunnelvision.evidence.flows"
    public let formatVersion = 1
    public let sessionID: Int64
    public let contents: String
    /// In the history's order: oldest first.
    public let flows: [EvidenceFlow]

    init(sessionID: Int64, flows: [EvidenceFlow]) {
        self.sessionID = sessionID
        self.contents = EvidenceWording.Note.flowsContents
        self.flows = flows
    }
}

public struct EvidenceFlow: Sendable, Hashable {
    public struct Peer: Sendable, Hashable {
        public let address: String
        public let port: UInt16
    }

    public struct Name: Sendable, Hashable {
        public let text: String
        /// sni / httpHost / socksRequest / dns.
        public let origin: String
    }

    public struct ClientTLS: Sendable, Hashable {
        /// listed / upTo: with upTo, `versions` holds one entry, the ceiling.
        public let versionsForm: String
        public let versions: [EvidenceTLSVersion]
        public let applicationProtocols: [String]
        public let omittedApplicationProtocols: Int
        public let droppedIdentifiers: Int
        public let encryptedClientHello: Bool
        /// Present (true) when the ClientHello offered 0-RTT early data; whether the server
        /// accepted it is not visible outside the encrypted handshake.
        public let earlyDataOffered: Bool?
        /// With an offer: what the wire showed of the early data, and the sentence that says it.
        public let earlyData: EarlyData?
    }

    public struct EarlyData: Sendable, Hashable {
        /// The phone's early data crossed the tap before the server's answer.
        public let sent: Bool
        /// notVisible / refusedByHelloRetryRequest / refusedByServerHello; absent while unread.
        public let serverAnswer: String?
        public let statement: String
    }

    public struct ServerTLS: Sendable, Hashable {
        /// negotiated / refused.
        public let answer: String
        public let version: EvidenceTLSVersion?
        public let cipherSuite: EvidenceCodePoint?
        public let fromHelloRetryRequest: Bool?
        /// With a HelloRetryRequest: retryOnly, serverHelloAfterRetry or notToldApart.
        public let helloRetry: String?
        /// serverHello / upstreamConnection.
        public let source: String?
        public let alert: UInt8?
    }

    public struct QUIC: Sendable, Hashable {
        public let version: EvidenceCodePoint
        /// client (a proposed version) / server (the version in use).
        public let end: String
        /// The version the phone opened with, where a Version Negotiation moved it to another.
        public let firstVersion: EvidenceCodePoint?
    }

    /// What a PROXY protocol header before the stream's TLS announced: the relay's claim.
    public struct ProxyProtocol: Sendable, Hashable {
        public let version: UInt8
        public let source: Peer?
        public let destination: Peer?
    }

    /// A certificate of the chain, with the keys the reading has.
    public typealias Certificate = CertificateSummary

    public struct ServerCertificate: Sendable, Hashable {
        /// presented / notSent / encryptedInHandshake / replacedByInspection / noNegotiation / notRead.
        public let visibility: String
        public let chain: [Certificate]?
        public let chainIsComplete: Bool?
        public let absence: String?
    }

    public let id: Int64
    public let `protocol`: String
    public let firstSeen: Instant
    public let lastSeen: Instant
    public let durationSeconds: Double
    public let bytesOut: UInt64
    public let bytesIn: UInt64
    public let packetCount: UInt64
    /// The two endpoints as stored: the canonical key does not know which one is the phone.
    public let peers: [Peer]
    public let tlsStatus: String
    public let name: Name?
    public let sni: String?
    /// The host the phone's HTTP request named (its Host field or absolute target).
    public let httpHost: String?
    /// The domain the phone's SOCKS CONNECT request named.
    public let socksHost: String?
    /// The PROXY protocol header the stream opened with; absent where there was none.
    public let proxyProtocol: ProxyProtocol?
    public let dnsName: String?
    public let dnsOtherNames: [String]?
    public let streamOpening: String?
    /// TCP only: noneSinceStart (its start seen, no byte sent since, either way) or
    /// carried; absent for a start not seen without payload, and for flows stored before.
    public let tcpPayload: String?
    /// TCP only: the record began mid-connection, after its opening — openedBeforeCapture (a
    /// restart of the daemon) or openedBeforeRecord (an earlier record ended); absent otherwise.
    public let continuation: String?
    public let clientTLS: ClientTLS?
    public let serverTLS: ServerTLS?
    public let quic: QUIC?
    /// Always present: when it could not be seen, it says why.
    public let serverCertificate: ServerCertificate
    /// What the inspection relay kept of the connection; absent when it did not handle it.
    public let relay: Relay?
    /// The requests the relay read inside the connection, in the order the phone sent them, as
    /// `ReadRequest` writes them (a path only when the recording kept paths, a status only when
    /// one was read); absent when none was read.
    public let requests: [ReadRequest]?
    /// Requests read past the relay's bound per connection: counted, not kept; absent when none.
    public let requestsNotKept: Int?
    /// The findings the flow proves; absent where they were not assessed (a live view).
    public let findingIDs: [String]?

    /// The relay's facts without its key log: the secrets leave the history only with --with-keys,
    /// inside capture.pcapng; here only how many lines there are.
    public struct Relay: Sendable, Hashable {
        public let decision: String
        public let event: String?
        public let alert: UInt8?
        public let reason: String?
        public let upstreamCertificateVerified: Bool?
        public let upstreamVerification: String?
        public let upstreamApplicationProtocol: String?
        public let keyLogLines: Int
        /// What the phone was shown ("installedAuthority", "mirroredUntrustedIssuer"…).
        public let presented: String?
        public let serverNameAsSent: String?

        init(_ facts: RelayFacts) {
            presented = facts.presented?.name
            serverNameAsSent = facts.serverNameAsSent
            decision = facts.decision.name
            event = facts.event?.name
            alert = facts.alert
            reason = facts.reason
            upstreamCertificateVerified = facts.upstreamVerified
            upstreamVerification = facts.upstreamVerification
            upstreamApplicationProtocol = facts.upstreamApplicationProtocol
            keyLogLines = facts.keyLog.count
        }
    }

    public init(_ flow: StoredFlow, findingIDs: [String]?, relay: RelayFacts? = nil) {
        id = flow.id
        self.protocol = flow.key.proto.name
        firstSeen = flow.firstSeen
        lastSeen = flow.lastSeen
        durationSeconds = flow.duration
        bytesOut = flow.bytesOut
        bytesIn = flow.bytesIn
        packetCount = flow.packetCount
        peers = [flow.key.endpointA, flow.key.endpointB].map { Peer(address: $0.address.description, port: $0.port) }
        tlsStatus = flow.tlsStatus.name
        name = flow.name.map { Name(text: $0.text, origin: $0.origin.rawValue) }
        sni = flow.sni
        httpHost = flow.httpHost
        socksHost = flow.socksHost
        proxyProtocol = flow.proxyProtocol.map { announced in
            ProxyProtocol(version: announced.version, source: announced.source.map { Peer(address: $0.address.description, port: $0.port) },
                          destination: announced.destination.map { Peer(address: $0.address.description, port: $0.port) })
        }
        dnsName = flow.resolvedName?.name
        dnsOtherNames = flow.resolvedName?.otherNames
        streamOpening = flow.streamOpening?.name
        tcpPayload = flow.tcpPayload?.name
        continuation = flow.continuation?.name
        clientTLS = flow.clientTLS.map { offer in
            ClientTLS(
                versionsForm: offer.versionsForm == .listed ? "listed" : "upTo",
                versions: offer.versions.map(EvidenceTLSVersion.init),
                applicationProtocols: offer.applicationProtocols,
                omittedApplicationProtocols: offer.omittedApplicationProtocols,
                droppedIdentifiers: offer.droppedIdentifiers,
                encryptedClientHello: offer.hasEncryptedClientHello,
                earlyDataOffered: offer.offersEarlyData ? true : nil,
                earlyData: offer.offersEarlyData ? Self.earlyData(flow.earlyData ?? EarlyDataReading()) : nil)
        }
        serverTLS = flow.serverTLS.map(Self.serverTLS)
        quic = flow.quic.map {
            QUIC(version: EvidenceCodePoint($0.version), end: $0.end == .client ? "client" : "server",
                 firstVersion: $0.firstVersion.map(EvidenceCodePoint.init))
        }
        serverCertificate = Self.certificate(flow.certificateVisibility)
        self.relay = relay.map(Relay.init)
        requests = flow.requests.isEmpty ? nil : flow.requests
        requestsNotKept = flow.requestsNotKept > 0 ? flow.requestsNotKept : nil
        self.findingIDs = findingIDs
    }

    static func earlyData(_ reading: EarlyDataReading) -> EarlyData {
        EarlyData(sent: reading.wasSent, serverAnswer: reading.serverAnswer?.name,
                  statement: EvidenceWording.Note.earlyData(reading))
    }

    private static func serverTLS(_ answer: ServerTLSAnswer) -> ServerTLS {
        switch answer {
        case .negotiated(let negotiation):
            ServerTLS(
                answer: "negotiated", version: EvidenceTLSVersion(negotiation.version),
                cipherSuite: EvidenceCodePoint(negotiation.cipherSuite),
                fromHelloRetryRequest: negotiation.fromHelloRetryRequest, helloRetry: negotiation.helloRetry?.name,
                source: negotiation.source == .serverHello ? "serverHello" : "upstreamConnection", alert: nil)
        case .refused(let alert):
            ServerTLS(answer: "refused", version: nil, cipherSuite: nil, fromHelloRetryRequest: nil, helloRetry: nil, source: nil, alert: alert)
        }
    }

    private static func certificate(_ visibility: CertificateVisibility) -> ServerCertificate {
        switch visibility {
        case .presented(let chain, let complete):
            return ServerCertificate(visibility: visibility.name, chain: chain, chainIsComplete: complete, absence: nil)
        case .notSent(let absence):
            return ServerCertificate(visibility: visibility.name, chain: nil, chainIsComplete: nil, absence: absence.name)
        default:
            return ServerCertificate(visibility: visibility.name, chain: nil, chainIsComplete: nil, absence: nil)
        }
    }
}
