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
    /// The flow's first read request was sent between two consent markers.
    case requestBetweenConsentMarkers
}

/// What the consent check says of one flow, judged by its first request where requests were read
/// in it (`ConsentBasis`), else by its first packet.
public enum ConsentAssessment: Sendable, Hashable {
    /// The first packet came before the earliest consent marker; no request was read in the flow.
    case beforeConsent
    /// The first read request came before the earliest consent marker: the hosts that the
    /// requests sent before it named, in the order first named (nil: a request that named none).
    case requestsBeforeConsent(hosts: [String?])
    /// The first request (or, without requests, the first packet) came at the latest consent
    /// marker or after it.
    case afterConsent
    /// Applicable, but the markers do not settle it.
    case notAssessed(ConsentGap)
    /// A baseline session records no app to consent to.
    case notApplicable

    public init(of flow: StoredFlow, sessionKind: RecordingKind, consent: ConsentInterval?) {
        guard case .audit = sessionKind else { self = .notApplicable; return }
        guard let consent else { self = .notAssessed(.noConsentMarker); return }
        // A connection opened early and left idle sent nothing: where requests were read, the
        // first of them decides. Without them the first packet does, also for a flow that began
        // before the session did.
        let instant = flow.firstRequestInstant ?? flow.firstSeen
        if instant < consent.earliest {
            self = flow.requests.isEmpty
                ? .beforeConsent
                : .requestsBeforeConsent(hosts: flow.requests(before: consent.earliest).map(\.host).distinctInOrder())
        } else if instant >= consent.latest {
            self = .afterConsent
        } else {
            self = .notAssessed(flow.requests.isEmpty ? .betweenConsentMarkers : .requestBetweenConsentMarkers)
        }
    }

    var outcome: CheckOutcome<ConsentGap> {
        switch self {
        case .beforeConsent: .finding(.activityBeforeConsent)
        case .requestsBeforeConsent(let hosts): .findings(hosts.map { .requestsBeforeConsent(host: $0) })
        case .afterConsent: .satisfied
        case .notAssessed(let gap): .unassessed(gap)
        case .notApplicable: .notApplicable
        }
    }
}
