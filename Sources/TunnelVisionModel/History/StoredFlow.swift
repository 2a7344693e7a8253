import Foundation

/// Stored as 0…3. Born from the port, raised by what is observed, never lowered.
public enum TLSInspectionStatus: UInt8, Sendable, Hashable, CaseIterable, NamedByCase {
    case plaintext = 0
    case encrypted = 1
    /// The relay completed a handshake with the phone on its own certificate.
    case inspected = 2
    /// The phone refused the relay's certificate (or the host was remembered as refusing).
    case notInspectable = 3

    /// What a new flow starts as: TCP to a remote 443 is encrypted, everything else plaintext.
    public static func born(proto: TransportProtocol, remotePort: UInt16) -> TLSInspectionStatus {
        proto == .tcp && remotePort == 443 ? .encrypted : .plaintext
    }

    /// The higher of the two; an inspection outcome is never taken back by a passive reading.
    public func raised(to other: TLSInspectionStatus) -> TLSInspectionStatus {
        other.rawValue > rawValue ? other : self
    }
}

/// The names DNS gave the flow's remote address when the flow began.
public struct ResolvedName: Sendable, Hashable {
    /// The most recent live query name that resolved to the address.
    public let name: String
    /// The other live names of the address, newest first.
    public let otherNames: [String]

    public init(name: String, otherNames: [String] = []) {
        self.name = name
        self.otherNames = otherNames
    }
}

/// The name a flow is judged by.
public struct FlowName: Sendable, Hashable {
    public enum Origin: String, Sendable, Hashable {
        /// Announced by the client in its ClientHello.
        case sni
        /// Announced by the client's HTTP request: its Host field, or the authority of an
        /// absolute target.
        case httpHost
        /// Announced by the client's SOCKS request to a proxy: the domain it asked to reach.
        case socksRequest
        /// Inferred from DNS answers seen before the flow began.
        case dns
    }

    public let text: String
    public let origin: Origin
    /// For a DNS name: the address's other live names; the flow could have been any of them.
    public let otherCandidates: [String]

    public init(text: String, origin: Origin, otherCandidates: [String] = []) {
        self.text = text
        self.origin = origin
        self.otherCandidates = otherCandidates
    }
}

/// Everything the tap has observed of a flow, without the row id the store assigns.
public struct FlowState: Sendable, Hashable {
    // Declared in an order that leaves little padding (Swift lays stored properties out as
    // declared): the engine keeps one per live flow, a hundred thousand of them at once.
    public var key: FlowKey
    public var tlsStatus: TLSInspectionStatus
    public var firstSeen: Instant
    public var lastSeen: Instant
    public var bytesOut: UInt64
    public var bytesIn: UInt64
    public var packetCount: UInt64
    public var sni: String?
    public var resolvedName: ResolvedName?
    public var serverCertificates: ServerCertificateReading?
    public var serverTLS: ServerTLSAnswer?
    public var streamOpening: StreamOpening?
    /// For TCP: whether its start was seen with no payload after it, or payload crossed.
    public var tcpPayload: TCPPayloadSighting?
    /// For TCP: the record began mid-connection, after its opening (a restart, an expiry).
    public var continuation: FlowContinuation?
    public var quic: QUICReading?
    /// The readings few flows have (`RareFlowReadings`), out of line.
    var rare: OutOfLine<RareFlowReadings>?
    public var clientTLS: ClientTLSOffer?

    public init(
        key: FlowKey, firstSeen: Instant, lastSeen: Instant? = nil, bytesOut: UInt64 = 0, bytesIn: UInt64 = 0,
        packetCount: UInt64 = 0, tlsStatus: TLSInspectionStatus = .plaintext, sni: String? = nil,
        resolvedName: ResolvedName? = nil, serverTLS: ServerTLSAnswer? = nil,
        serverCertificates: ServerCertificateReading? = nil, clientTLS: ClientTLSOffer? = nil,
        quic: QUICReading? = nil, streamOpening: StreamOpening? = nil, httpHost: String? = nil, relay: RelayVerdict? = nil
    ) {
        self.key = key
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen ?? firstSeen
        self.bytesOut = bytesOut
        self.bytesIn = bytesIn
        self.packetCount = packetCount
        self.tlsStatus = tlsStatus
        self.sni = sni
        self.resolvedName = resolvedName
        self.serverTLS = serverTLS
        self.serverCertificates = serverCertificates
        self.clientTLS = clientTLS
        self.quic = quic
        self.streamOpening = streamOpening
        // Through the out-of-line readings only when given: a new flow (the engine makes one per
        // flow) then builds and compares no empty set of them.
        if httpHost != nil { self.httpHost = httpHost }
        if relay != nil { self.relay = relay }
    }

    /// Takes one TCP segment into `tcpPayload`: a SYN starts "nothing sent", a payload byte
    /// either way ends it for good.
    public mutating func noteTCPSegment(opensConnection: Bool, payloadBytes: Int) {
        if payloadBytes > 0 {
            tcpPayload = .carried
        } else if opensConnection, tcpPayload == nil {
            tcpPayload = .noneSinceStart
        }
    }

    public var duration: TimeInterval { lastSeen.seconds(since: firstSeen) }
    public var totalBytes: UInt64 { bytesOut &+ bytesIn }

    /// The SNI if one was announced, else the host an HTTP or SOCKS request announced, else the DNS name,
    /// else none. Announced and inferred names never mix: an announced one drops the DNS candidates.
    public var name: FlowName? {
        if let sni, !sni.isEmpty { return FlowName(text: sni, origin: .sni) }
        if let httpHost, !httpHost.isEmpty { return FlowName(text: httpHost, origin: .httpHost) }
        if let socksHost, !socksHost.isEmpty { return FlowName(text: socksHost, origin: .socksRequest) }
        if let resolvedName {
            return FlowName(text: resolvedName.name, origin: .dns, otherCandidates: resolvedName.otherNames)
        }
        return nil
    }

    /// A reading of the server's certificate wins; otherwise what the handshake says of it.
    public var certificateVisibility: CertificateVisibility {
        switch serverCertificates {
        case .presented(let chain, let complete): return .presented(chain: chain, chainIsComplete: complete)
        case .notSent(let absence): return .notSent(absence)
        case nil: break
        }
        switch serverTLS {
        case .refused: return .noNegotiation
        case .negotiated(let negotiation):
            if negotiation.source == .upstreamConnection { return .replacedByInspection }
            if negotiation.version == .tls13 { return .encryptedInHandshake }
        case nil:
            if quic?.version.hasKnownPacketProtection == true { return .encryptedInHandshake }
        }
        return .notRead
    }
}

/// A flow as the history holds it.
@dynamicMemberLookup
public struct StoredFlow: Sendable, Hashable, Identifiable {
    public let id: Int64
    public var state: FlowState
    /// The requests the relay read inside this connection, in the order they were sent; empty
    /// when none were read (no inspection, or no request completed).
    public var requests: [ReadRequest]
    /// Requests read past the relay's bound per connection: counted, not kept.
    public var requestsNotKept: Int

    public init(id: Int64, state: FlowState, requests: [ReadRequest] = [], requestsNotKept: Int = 0) {
        self.id = id
        self.state = state
        self.requests = requests
        self.requestsNotKept = requestsNotKept
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<FlowState, Value>) -> Value {
        state[keyPath: keyPath]
    }
}
