import TunnelVisionModel
import TunnelVisionWire

/// The parse state of one flow while its handshake is being read: on the heap, since the state is
/// large while it lives and most flows hold none for most of their life, and changed there in
/// place (taken out and put back, it cost a copy of every buffer it holds and a new box a packet).
enum FlowReading {
    case tcp(ReadingBox<TCPStreamReading>)
    case quic(ReadingBox<QUICHandshakeReader>)
    case googleQUIC(ReadingBox<GoogleQUICHandshakeReader>)

    /// The same state in boxes of its own, for a copy of the table: two copies of an engine never
    /// change each other's readings.
    func copied() -> FlowReading {
        switch self {
        case .tcp(let box): .tcp(ReadingBox(box.value))
        case .quic(let box): .quic(ReadingBox(box.value))
        case .googleQUIC(let box): .googleQUIC(ReadingBox(box.value))
        }
    }
}

final class ReadingBox<Reading> {
    var value: Reading

    init(_ value: Reading) {
        self.value = value
    }
}

/// One direction of a TCP stream from its start: reassembly anchored at ISN + 1.
struct TCPDirectionStream {
    var base: UInt32?
    var bytes: StreamReassembler

    init(limit: Int) {
        bytes = StreamReassembler(limit: limit)
    }

    /// Places a segment; answers whether the in-order prefix grew.
    mutating func insert(sequence: UInt32, payload: UnsafeRawBufferPointer) -> Bool {
        guard let base, !payload.isEmpty else { return false }
        // RFC 1982 serial arithmetic: a segment just before the base wraps to a negative offset.
        let offset = Int(Int32(bitPattern: sequence &- base))
        if offset >= 0 { return bytes.insert(payload, at: offset) }
        guard offset + payload.count > 0, let tail = payload.slice(from: -offset) else { return false }
        return bytes.insert(tail, at: 0)
    }
}

/// Reads a TCP flow's opening and handshake: the phone's first bytes (opening, ClientHello), the
/// server's (ServerHello, alert, certificate) and, on port 53, DNS answers.
struct TCPStreamReading {
    var outbound: TCPDirectionStream
    var inbound: TCPDirectionStream
    var opening = StreamOpeningDetector()
    /// The phone's stream was anchored at a ClientHello, its SYN unseen: the opening is unproven.
    var startedWithoutSYN = false
    var outboundPayloadSeen = false
    private var openingFed = 0
    var client = ClientHandshakeReader()
    var server = ServerHandshakeReader()
    /// Set on a flow with the DNS server's port: inbound bytes are length-prefixed messages.
    let carriesDNS: Bool
    private var dnsOffset = 0

    static let dnsStreamLimit = 64 * 1024

    init(limit: Int, carriesDNS: Bool) {
        outbound = TCPDirectionStream(limit: limit)
        inbound = TCPDirectionStream(limit: carriesDNS ? min(limit, Self.dnsStreamLimit) : limit)
        self.carriesDNS = carriesDNS
    }

    /// Looked at when the opening was not TLS: a protocol that starts TLS later.
    var upgrade = CleartextUpgrade()
    /// On a stream that opened with an HTTP request: the host it named, once its head was read.
    private(set) var requestHost: HTTPRequestHost.Reading?
    /// Where the phone's TLS records begin: 0 for a stream that opened with them.
    private(set) var clientTLSOffset: Int?
    private var serverTLSOffset: Int?
    /// Whether the phone sent early data: decided by its records before the server's TLS began
    /// (nil until then, or while its ClientHello offered none).
    private(set) var earlyDataSent: Bool?

    /// The ClientHello offered early data whose sending is not decided yet.
    private var awaitsEarlyData: Bool {
        earlyDataSent == nil && client.reading?.offer?.offersEarlyData == true
    }

    /// Whether nothing more can be learnt from either direction.
    var isSettled: Bool {
        guard outboundSettled else { return false }
        if carriesDNS { return inbound.bytes.overflowed }
        return serverSettled
    }

    var outboundSettled: Bool {
        guard let decided = opening.opening else { return false }
        if decided == .httpRequest, requestHost == nil || requestHost == .needMore { return false }
        return clientSpeaksTLS ? client.isSettled && !awaitsEarlyData : upgrade.decision == CleartextUpgrade.Decision.none
    }

    var serverSettled: Bool {
        guard opening.opening != nil else { return false }
        return clientSpeaksTLS ? server.isSettled : upgrade.decision == CleartextUpgrade.Decision.none
    }

    /// The phone speaks TLS: it opened with a TLS record, or with an SSL 2.0-format ClientHello
    /// (which the opening rule calls unrecognised, yet servers answer in TLS), or started it after
    /// a cleartext prelude.
    var clientSpeaksTLS: Bool { clientTLSOffset != nil }
    /// The phone's bytes went uncaptured, yet the server's began with a ServerHello: its answer
    /// is read, though nothing of the offer is.
    private(set) var serverAnswersUnseenHello = false

    /// Called with the server's first in-order bytes while none of the phone's were captured.
    mutating func noteServerFirst(_ stream: UnsafeRawBufferPointer) {
        guard !outboundPayloadSeen, !clientSpeaksTLS, !serverAnswersUnseenHello,
              StreamOpeningDetector.beginsWithServerHello(stream) else { return }
        serverAnswersUnseenHello = true
        serverTLSOffset = 0
    }

    mutating func readOutbound(certificates: inout CertificateSummaryCache) {
        outbound.bytes.contiguous.withUnsafeBytes { stream in
            if opening.opening == nil, let fresh = stream.slice(from: openingFed) {
                opening.feed(fresh)
                openingFed = stream.count
            }
            if opening.opening == .httpRequest, requestHost == nil || requestHost == .needMore {
                requestHost = HTTPRequestHost.read(stream)
            }
            if clientTLSOffset == nil { locateClientTLS(in: stream) }
            if let offset = clientTLSOffset, let records = stream.slice(from: offset) {
                client.advance(over: records)
                if awaitsEarlyData { earlyDataSent = EarlyDataRecords.followHello(in: records) }
            }
        }
        if clientSpeaksTLS { readInbound(certificates: &certificates) }
    }

    private mutating func locateClientTLS(in stream: UnsafeRawBufferPointer) {
        if opening.opening == .tlsHandshake || SSLv2ClientHello.matches(stream) {
            clientTLSOffset = 0
            return
        }
        guard let decided = opening.opening else { return }
        upgrade.advanceClient(over: stream, opening: decided)
        guard case .upgraded(_, let offset)? = upgrade.decision, let rest = stream.slice(from: offset),
              rest.count >= 6 else { return }
        if StreamOpeningDetector.beginsWithTLSHandshake(rest) { clientTLSOffset = offset } else { upgrade.refuse() }
    }

    /// Reads the server's side once the phone's opening says it is TLS (or DNS answers).
    mutating func readInbound(certificates: inout CertificateSummaryCache, _ answer: (DNSResponse) -> Void = { _ in }) {
        if carriesDNS {
            var offset = dnsOffset
            inbound.bytes.contiguous.withUnsafeBytes { stream in
                offset = DNSOverTCP.forEachMessage(in: stream, from: offset) { message in
                    if let response = DNSResponse(message: message) { answer(response) }
                }
            }
            dnsOffset = offset
            return
        }
        if !clientSpeaksTLS, !outboundPayloadSeen {
            inbound.bytes.contiguous.withUnsafeBytes { noteServerFirst($0) }
        }
        guard clientSpeaksTLS || serverAnswersUnseenHello else { return }
        inbound.bytes.contiguous.withUnsafeBytes { stream in
            if serverTLSOffset == nil {
                if case .upgraded(let prelude, _)? = upgrade.decision {
                    serverTLSOffset = CleartextUpgrade.serverOffset(for: prelude, in: stream)
                } else {
                    serverTLSOffset = 0
                }
            }
            guard let offset = serverTLSOffset, let records = stream.slice(from: offset) else { return }
            // The server's answer has begun: what the phone sends from now on is not early data.
            if !records.isEmpty, awaitsEarlyData { earlyDataSent = false }
            server.advance(over: records, certificates: &certificates)
        }
    }
}
