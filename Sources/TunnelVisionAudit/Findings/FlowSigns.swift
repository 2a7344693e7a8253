import TunnelVisionModel

/// What the readings of a flow let the checks assume, said once so that no two checks read a
/// flow differently.
extension FlowState {
    /// The phone's first bytes were an HTTP request: seen, not guessed from a port.
    var openedWithHTTPRequest: Bool { streamOpening == .httpRequest }

    /// A ClientHello was read: its offer, or at least the name it announced.
    var hasClientHelloReading: Bool { clientTLS != nil || sni != nil }

    /// The relay recorded how the phone answered its certificate.
    var hasInspectionOutcome: Bool { tlsStatus == .inspected || tlsStatus == .notInspectable }

    /// A reading that only exists if TLS was spoken: the offer, the answer or an inspection outcome.
    var hasTLSReading: Bool { hasClientHelloReading || serverTLS != nil || hasInspectionOutcome }

    /// Anything that says TLS was, or may have been, spoken. A status other than plaintext
    /// counts, even one born from port 443, unless an HTTP request was seen instead.
    var showsSignOfTLS: Bool {
        hasTLSReading || streamOpening == .tlsHandshake || (tlsStatus != .plaintext && !openedWithHTTPRequest)
    }

    /// The name announced in the ClientHello, normalised; nil when none was.
    var announcedHost: String? {
        guard let name, name.origin == .sni else { return nil }
        return DomainPattern.normalised(host: name.text)
    }
}
