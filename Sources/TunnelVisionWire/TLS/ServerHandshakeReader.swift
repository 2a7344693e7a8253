import TunnelVisionModel

/// Reads the server's answer from its in-order stream bytes: an alert instead of a ServerHello,
/// the ServerHello (past a HelloRetryRequest to the real one), and for SSL 3.0 to TLS 1.2 what
/// followed it of the certificate.
public struct ServerHandshakeReader: Sendable {
    private var records = TLSRecordLayer(handshakeLimit: CertificateChain.maximumMessageLength + 4)
    private var progress = ServerAnswerProgress()

    public init() {}

    public var answer: ServerTLSAnswer? { progress.answer }
    public var certificates: ServerCertificateReading? { progress.certificates }
    /// What the server's hellos prove of early data, were it offered.
    public var earlyDataAnswer: EarlyDataReading.ServerAnswer? { progress.earlyDataAnswer }
    public var isSettled: Bool { records.isFinished }

    /// `certificates` keeps the summaries of chains read before, across flows.
    public mutating func advance(over stream: UnsafeRawBufferPointer, certificates cache: inout CertificateSummaryCache) {
        var progress = self.progress
        records.advance(over: stream) { progress.take($0, cache: &cache) }
        self.progress = progress
    }
}

struct ServerAnswerProgress: Sendable {
    var answer: ServerTLSAnswer?
    var certificates: ServerCertificateReading?
    var sawHelloRetryRequest = false
    var awaitingCertificate = false
    var earlyDataAnswer: EarlyDataReading.ServerAnswer?

    private enum HandshakeType {
        static let serverHello: UInt8 = 2
        static let newSessionTicket: UInt8 = 4
        static let certificate: UInt8 = 11
        static let serverKeyExchange: UInt8 = 12
        static let serverHelloDone: UInt8 = 14
    }

    private static let fatalAlert: UInt8 = 2

    /// Handles one event; false once nothing more is to be read.
    mutating func take(_ event: TLSEvent, cache: inout CertificateSummaryCache) -> Bool {
        switch event {
        case .alert(let level, let description):
            // After the ServerHello an alert says nothing about the certificate.
            guard !awaitingCertificate else { return false }
            guard answer?.negotiation == nil else { return false }
            answer = .refused(alert: description)
            // A warning may still be followed by the ServerHello, which then replaces it.
            return level != Self.fatalAlert
        case .changeCipherSpec:
            if awaitingCertificate { certificates = .notSent(.resumedSession) }
            return false
        case .truncatedHandshake(type: HandshakeType.certificate, let stated, let prefix):
            if awaitingCertificate { certificates = CertificateChain.read(body: prefix, statedLength: stated, cache: &cache) }
            return false
        case .notTLS, .truncatedHandshake:
            return false
        case .handshake(let type, let body):
            if awaitingCertificate { return takeAfterServerHello(type: type, body: body, cache: &cache) }
            guard type == HandshakeType.serverHello, let hello = ServerHelloReading(body: body) else { return false }
            let negotiation = hello.negotiation
            if negotiation.fromHelloRetryRequest {
                sawHelloRetryRequest = true
                earlyDataAnswer = .refusedByHelloRetryRequest
                answer = .negotiated(negotiation)
                return true
            }
            // A retry that preceded the real ServerHello stays part of the answer, told apart
            // from a reading of the retry alone.
            answer = .negotiated(TLSNegotiation(
                version: negotiation.version, cipherSuite: negotiation.cipherSuite,
                helloRetry: sawHelloRetryRequest ? .serverHelloAfterRetry : nil, source: .serverHello
            ))
            if hello.acceptedPreSharedKey { certificates = .notSent(.resumedSession) }
            if !sawHelloRetryRequest {
                earlyDataAnswer = hello.selectedIdentity == 0 ? .notVisible : .refusedByServerHello
            }
            awaitingCertificate = !hello.usedSupportedVersions
            return awaitingCertificate
        }
    }

    private mutating func takeAfterServerHello(type: UInt8, body: UnsafeRawBufferPointer, cache: inout CertificateSummaryCache) -> Bool {
        switch type {
        case HandshakeType.certificate:
            certificates = CertificateChain.read(body: body, statedLength: body.count, cache: &cache)
        case HandshakeType.newSessionTicket:
            certificates = .notSent(.resumedSession)
        case HandshakeType.serverKeyExchange, HandshakeType.serverHelloDone:
            certificates = .notSent(.noCertificateMessage)
        default:
            // Other messages (CertificateStatus comes after Certificate, so not here) end the reading.
            break
        }
        return false
    }
}
