import Foundation
import TunnelVisionModel

/// The span of a session's consent markers: the earliest and the latest, the same instant when
/// there is one.
public struct ConsentInterval: Sendable, Hashable {
    public let earliest: Instant
    public let latest: Instant

    /// Nil when `latest` precedes `earliest`.
    public init?(earliest: Instant, latest: Instant) {
        guard earliest <= latest else { return nil }
        self.earliest = earliest
        self.latest = latest
    }

    /// The span of the session's `consentGiven` markers; nil when it has none. Markers of
    /// other sessions are ignored.
    public init?(markers: [SessionMarker], sessionID: Int64) {
        let instants = markers.lazy
            .filter { $0.sessionID == sessionID && $0.kind == .consentGiven }
            .map(\.date)
        guard let earliest = instants.min(), let latest = instants.max() else { return nil }
        self.earliest = earliest
        self.latest = latest
    }
}

/// Why it cannot be said whether a flow came before consent.
public enum ConsentGap: String, Sendable, Hashable, CaseIterable {
    /// The session has no consent marker.
    case noConsentMarker
    /// The flow began between two consent markers: before one and after another.
    case betweenConsentMarkers
}

/// What the consent check says of one flow, judged by its first packet.
public enum ConsentAssessment: Sendable, Hashable {
    /// The first packet came before the earliest consent marker.
    case beforeConsent
    /// The first packet came at the latest consent marker or after it.
    case afterConsent
    /// Applicable, but the markers do not settle it.
    case notAssessed(ConsentGap)
    /// A baseline session records no app to consent to.
    case notApplicable

    public init(of flow: StoredFlow, sessionKind: RecordingKind, consent: ConsentInterval?) {
        guard case .audit = sessionKind else { self = .notApplicable; return }
        guard let consent else { self = .notAssessed(.noConsentMarker); return }
        // The first packet decides, also for a flow that began before the session did.
        if flow.firstSeen < consent.earliest {
            self = .beforeConsent
        } else if flow.firstSeen >= consent.latest {
            self = .afterConsent
        } else {
            self = .notAssessed(.betweenConsentMarkers)
        }
    }

    var outcome: CheckOutcome<ConsentGap> {
        switch self {
        case .beforeConsent: .finding(.activityBeforeConsent)
        case .afterConsent: .satisfied
        case .notAssessed(let gap): .unassessed(gap)
        case .notApplicable: .notApplicable
        }
    }
}
