import TunnelVisionAudit
import TunnelVisionModel

/// How the report words the TLS readings: the versions, where each was read, what the phone offered.
extension EvidenceWording.Report {
    public static let noTLSReadings = "No connection of the session has a negotiated TLS version or a refusal by alert on record."
    public static let noName = "(no name)"

    public static func nameOrigin(_ origin: FlowName.Origin?) -> String {
        switch origin {
        case .sni: "announced (SNI)"
        case .httpHost: "announced (HTTP Host)"
        case .socksRequest: "announced (SOCKS request)"
        case .dns: "inferred from DNS"
        case nil: "—"
        }
    }

    public static func rowsOmitted(_ count: Int, file: String) -> String {
        "\(count) more rows are not shown here; every reading is in \(file)."
    }

    public static func tlsReading(_ version: TLSProtocolVersion, basis: TLSVersionObservation.Basis) -> String {
        "\(version.displayText), \(readFrom(basis))"
    }

    /// The Version cell of a TLS reading: the negotiated version, or the refusal.
    public static func answerVersion(_ answer: EvidenceTLSReading.Answer) -> String {
        switch answer {
        case .negotiated(let observation): observation.version.displayText
        case .refused(let alert): "refused, alert \(alert)"
        }
    }

    /// The Read from cell of a TLS reading.
    public static func answerReadFrom(_ answer: EvidenceTLSReading.Answer) -> String {
        switch answer {
        case .negotiated(let observation): readFrom(observation.basis)
        case .refused: "an alert instead of a ServerHello"
        }
    }

    /// What the phone's ClientHello offered: "TLS 1.3, TLS 1.2", "TLS 1.2 only", "up to TLS 1.0"
    /// (a ClientHello without supported_versions gives only its ceiling).
    public static func clientOffered(_ offer: EvidenceTLSReading.Offer?) -> String {
        guard let offer else { return "not read" }
        let versions = offer.versions.map(\.displayText)
        var text: String = switch offer.form {
        case .upTo: "up to " + (versions.first ?? "an unstated version")
        case .listed where versions.count == 1: versions[0] + " only"
        case .listed: versions.isEmpty ? "no version it lists is known" : versions.joined(separator: ", ")
        }
        if offer.encryptedClientHello { text += " (the outer offer of Encrypted Client Hello)" }
        if let earlyData = offer.earlyData { text += "; " + offeredEarlyData(earlyData) }
        return text
    }

    /// The early data of an offer in a few words: whether it was sent, what the server's hellos showed.
    public static func offeredEarlyData(_ reading: EarlyDataReading) -> String {
        let sending = reading.wasSent ? "0-RTT early data offered and sent" : "0-RTT early data offered, not seen sent"
        switch reading.serverAnswer {
        case .notVisible?: return sending + ", its acceptance not visible (encrypted)"
        case .refusedByHelloRetryRequest?: return sending + ", refused by a HelloRetryRequest"
        case .refusedByServerHello?: return sending + ", refused by the ServerHello"
        case nil: return sending + ", the server's answer not read"
        }
    }
    public static func readFrom(_ basis: TLSVersionObservation.Basis) -> String {
        switch basis {
        case .serverHello(helloRetry: nil): "read from the ServerHello"
        case .serverHello(helloRetry: .retryOnly): "read from a HelloRetryRequest"
        case .serverHello(helloRetry: .serverHelloAfterRetry): "read from the ServerHello after a HelloRetryRequest"
        case .serverHello(helloRetry: .notToldApart): "read from a HelloRetryRequest or the ServerHello after it"
        case .upstreamConnection: "read from the tunnel's own connection"
        case .quic(let version): "from the server's \(version.name ?? "QUIC " + version.hex)"
        }
    }
}
