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

    /// The server end of a DNS exchange: the endpoint on port 53 of a TCP or UDP flow. Port 53 is
    /// where the flow engine reads DNS answers; no other port is taken for DNS.
    var dnsServer: Endpoint? {
        guard key.proto.hasPorts else { return nil }
        return [key.endpointB, key.endpointA].first { $0.port == 53 }
    }
}
