import TunnelVisionAudit
import TunnelVisionModel

/// A reason a check could not look at a flow, as findings.json and the report write it: a name
/// (the audit module's own, where it has one), a sentence, and what the reason carries in
/// fields of its own.
protocol EvidenceGap: Sendable, Hashable {
    var name: String { get }
    var statement: String { get }
    func details(_ entry: inout EvidenceFindingsDocument.Unassessed)
}

extension EvidenceGap {
    func details(_ entry: inout EvidenceFindingsDocument.Unassessed) {}

    func unassessed(flows: [Int64]) -> EvidenceFindingsDocument.Unassessed {
        var entry = EvidenceFindingsDocument.Unassessed(reason: name, statement: statement, flows: flows)
        details(&entry)
        return entry
    }
}

extension TLSVersionGap: EvidenceGap {
    var statement: String { EvidenceWording.statement(of: self) }

    func details(_ entry: inout EvidenceFindingsDocument.Unassessed) {
        switch self {
        case .appNegotiationNotObserved(let offer, let upstream):
            entry.upstreamVersion = EvidenceTLSVersion(upstream)
            entry.clientOffer = offer.name
            if case .ceilingOnly(let ceiling) = offer { entry.clientOfferCeiling = EvidenceTLSVersion(ceiling) }
        case .unrecognisedVersion(let version):
            entry.tlsVersion = EvidenceTLSVersion(version)
        case .serverRefused(let alert):
            entry.alert = alert
        case .quicVersionOnlyProposed(let version), .unrecognisedQUICVersion(let version):
            entry.quicVersion = EvidenceCodePoint(version)
        case .serverAnswerNotRead, .nothingSent:
            break
        }
    }
}

extension EncryptionGap: EvidenceGap {
    var statement: String { EvidenceWording.statement(of: self) }

    func details(_ entry: inout EvidenceFindingsDocument.Unassessed) {
        if case .unrecognisedQUICVersion(let version) = self { entry.quicVersion = EvidenceCodePoint(version) }
    }
}

extension HostGap: EvidenceGap {
    var statement: String { EvidenceWording.statement(of: self) }

    func details(_ entry: inout EvidenceFindingsDocument.Unassessed) {
        if case .candidatesDisagree(let allowed) = self { entry.attributedNameAllowed = allowed }
    }
}

extension PinningGap: EvidenceGap {
    var name: String { rawValue }
    var statement: String { EvidenceWording.statement(of: self) }
}

extension CertificateValidationGap: EvidenceGap {
    var statement: String { EvidenceWording.statement(of: self) }

    func details(_ entry: inout EvidenceFindingsDocument.Unassessed) {
        if case .notInspected(let reason) = self { entry.relayReason = reason.rawValue }
    }
}

extension ConsentGap: EvidenceGap {
    var name: String { rawValue }
    var statement: String { EvidenceWording.statement(of: self) }
}
