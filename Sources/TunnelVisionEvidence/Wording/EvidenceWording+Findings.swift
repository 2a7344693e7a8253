import TunnelVisionAudit
import TunnelVisionModel

/// What is stated of findings, verdicts and the flows a check could not look at. A statement
/// carries no data: the host, the version and the flows are in fields of their own.
extension EvidenceWording {
    public static func statement(of evidence: FindingEvidence, minimum: TLSProtocolVersion) -> String {
        switch evidence {
        case .cleartextTraffic(.http):
            return "An HTTP request was observed in the clear."
        case .cleartextTraffic(.dns):
            return "Cleartext DNS to another resolver: datagrams went to port 53 of a resolver other than the gateway's."
        case .weakTLSVersion(let observation):
            let minimumName = minimum.displayText
            switch observation.basis {
            case .upstreamConnection:
                return "A TLS version below the catalogue's minimum of \(minimumName) was negotiated by the server "
                    + "with the tunnel's own connection, which answers the tunnel's ClientHello and not the phone's."
            case .serverHello, .quic:
                return "A TLS version below the catalogue's minimum of \(minimumName) was negotiated."
            }
        case .hostNotInAllowlist:
            return "A connection went to a host that the project's allowlist does not cover."
        case .unnamedFlow(let reason):
            return statement(of: reason)
        case .pinningAbsent:
            return "A connection to this host accepted a certificate issued by the local CA: "
                + "for this host, a user-installed root is trusted."
        case .pinningObserved:
            return "A connection to this host refused the local CA's certificate, while a connection to another host "
                + "of the same recording accepted it: the CA is trusted, and this host refused it. This is said of the host, "
                + "not of each connection: later connections to it were relayed untouched and not tested again, and the "
                + "refusal may predate the session."
        case .refusalNotToldApart(_, let store):
            return "A connection to this host refused the local CA's certificate; whether by pinning or because the app "
                + "does not trust \(phrase(of: store)) cannot be told from this recording, in which no connection to another "
                + "host accepted the CA."
        case .activityBeforeConsent:
            return "A connection began before the first consent marker."
        case .requestsBeforeConsent(let host):
            return host == nil
                ? "Requests that named no host were read inside a connection and sent before the first consent marker."
                : "Requests naming this host were read inside a connection and sent before the first consent marker."
        case .untrustedIssuerAccepted:
            return "A connection to this host continued over a certificate from an issuer no device trusts."
        case .wrongNameAccepted:
            return "A connection to this host continued over a certificate issued for another name than the one it announced."
        case .expiredCertificateAccepted:
            return "A connection to this host continued over a certificate whose validity had ended."
        }
    }

    /// The store a CA was declared installed in, as a sentence names it.
    public static func phrase(of store: CATrustStore?) -> String {
        switch store {
        case .user?: "the user store"
        case .userFullTrust?: "a user-installed CA with full trust on"
        case .system?: "the system store"
        case nil: "the store the CA was installed in (the recording did not name it)"
        }
    }

    static func statement(of reason: UnnamedFlowReason) -> String {
        switch reason {
        case .noClientHelloRead:
            "A connection carried no name the tool could read: no ClientHello was read and DNS gave none."
        case .serverNameNotAnnounced:
            "A connection carried no name: its ClientHello announced no server name and DNS gave none."
        case .encryptedClientHello:
            "A connection carried no name: its ClientHello announced none in the clear and carried "
                + "Encrypted Client Hello, and DNS gave none."
        case .dnsToOtherResolver:
            "A DNS query to a resolver other than the gateway's."
        }
    }

    public static func statement(of verdict: RequirementVerdict) -> String {
        switch verdict {
        case .contradicted:
            "Contradicted by the findings listed against it."
        case .observedWithoutContradiction:
            "Observed without contradiction, within what the tool covers for it."
        case .notAssessed(.outsideToolScope):
            "Not assessed by this tool."
        case .notAssessed(.nothingObserved):
            "Not assessed: nothing in this session bears on it either way."
        case .notAssessed(.inspectionOff):
            "Not assessed: the session was recorded with TLS inspection off, so no connection could show it either way."
        case .notAssessed(.caNotTrusted):
            "Not assessed: the local CA was not declared trusted on the phone, so no connection could show it either way."
        case .notAssessed(.refusalNotToldApart):
            "Not assessed: connections refused the local CA and none to another host accepted it, so pinning cannot be "
                + "told from an app that does not trust the store the CA was installed in."
        }
    }

    public static func statement(of gap: TLSVersionGap) -> String {
        switch gap {
        case .appNegotiationNotObserved(let offerGap, _):
            "The only version read is the one the server negotiated with the tunnel's own connection; "
                + statement(of: offerGap)
        case .unrecognisedVersion:
            "The negotiated version is not one of the published versions, so it has no place in the order."
        case .serverRefused:
            "The server answered with an alert instead of a ServerHello."
        case .quicVersionOnlyProposed:
            "QUIC was read only from the phone: a version proposed, not one in use."
        case .unrecognisedQUICVersion:
            "The QUIC version is not one known to carry TLS 1.3."
        case .serverAnswerNotRead:
            "The connection shows TLS, but the server's answer was not read."
        case .nothingSent:
            "The connection's start was seen and no byte was sent after it, either way: there was no handshake to read."
        }
    }

    static func statement(of gap: ClientOfferGap) -> String {
        switch gap {
        case .notRead: "the phone's own ClientHello was not read."
        case .ceilingOnly: "the phone's ClientHello gave only a highest version, not a list."
        case .encryptedClientHello: "the phone's ClientHello carried Encrypted Client Hello, so its offer is the outer one."
        case .listsWeakerVersion: "the phone's ClientHello also offered a version below the minimum."
        case .listNotConclusive: "the phone's ClientHello listed no published version to go by."
        }
    }

    public static func statement(of gap: EncryptionGap) -> String {
        switch gap {
        case .unrecognisedOpening: "The stream opened with something that is neither TLS nor an HTTP request."
        case .openingNotRead: "The start of the stream was not seen, so how it opened was not read."
        case .nothingSent: "The connection's start was seen and no byte was sent after it, either way: there was no opening to read."
        case .unrecognisedQUICVersion: "The QUIC version is not one whose packet protection is known."
        case .datagramsNotRead: "The datagrams are not read: whether they were encrypted is not known."
        }
    }

    public static func statement(of gap: HostGap) -> String {
        switch gap {
        case .allowlistEmpty:
            "The project's allowlist is empty: a named connection has nothing to be compared with."
        case .candidatesDisagree(attributedNameAllowed: true):
            "The address had several names from DNS; the attributed one is allowed, another is not."
        case .candidatesDisagree(attributedNameAllowed: false):
            "The address had several names from DNS; the attributed one is not allowed, another is."
        case .gatewayResolver:
            "A query to the gateway's resolver: where the names it asked for led is judged on the connections that followed."
        case .continuation:
            "The connection was already open when this record of it began (its first packet was not a SYN): "
                + "the name travelled in its opening, before the record, so this record had none to carry."
        }
    }

    public static func statement(of gap: PinningGap) -> String {
        switch gap {
        case .inspectionOff: "The session was recorded with TLS inspection off."
        case .validationRecording:
            "The session presented certificates made to be refused: a refusal there says nothing of pinning."
        case .caNotTrusted: "The session was recorded without the local CA declared trusted on the phone."
        case .outcomeWithoutAnnouncedName: "An inspection outcome was recorded, but no server name was announced to name the host."
        case .quicNotInspected: "QUIC is not inspected."
        case .noInspectionOutcome: "No inspection outcome was recorded for the connection."
        case .upstreamCertificateMirrored:
            "The server's own certificate did not verify, so the relay showed a certificate of an untrusted issuer in place of the local CA's: what the phone did says nothing of pinning."
        }
    }

    public static func statement(of gap: CertificateValidationGap) -> String {
        switch gap {
        case .noDefectPresented:
            "The session presented no certificate made to be refused: it was not recorded in a validation mode."
        case .quicNotInspected: "QUIC is not inspected."
        case .outcomeWithoutAnnouncedName: "An inspection outcome was recorded, but no server name was announced to name the host."
        case .refusalOfUntrustedCA:
            "The phone refused a certificate of the local CA, which was not declared trusted on it: the refusal may be of the CA."
        case .closedAfterHandshake:
            "The connection completed the handshake and closed without sending data: refused after the handshake, or not needed."
        case .closedDuringHandshake: "The connection closed during the handshake without an alert that refuses."
        case .relayFailed:
            "The relay's own side or the server ended the connection before the phone's answer could be read."
        case .upstreamCertificateMirrored:
            "The server's own certificate did not verify, so the relay showed one of an untrusted issuer in place of the recording's, and the phone refused it."
        case .notInspected(.hostRemembered):
            "The host had refused the relay's certificate earlier in this run of the daemon: the connection was relayed untouched."
        case .notInspected: "The relay let the connection through untouched, so no certificate of its own was presented."
        case .noInspectionOutcome: "No inspection outcome was recorded for the connection."
        }
    }

    public static func statement(of gap: ConsentGap) -> String {
        switch gap {
        case .noConsentMarker: "The session has no consent marker."
        case .betweenConsentMarkers: "The connection began between the first and the last consent marker."
        case .requestBetweenConsentMarkers:
            "The connection's first request read was sent between the first and the last consent marker."
        }
    }
}
