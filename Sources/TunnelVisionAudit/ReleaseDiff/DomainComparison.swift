import TunnelVisionModel

/// How a domain stands against the project's allowlist as it is today.
public enum AllowlistStanding: Sendable, Hashable {
    /// The first entry, in written order, that covers it.
    case listed(AllowlistEntry)
    /// The allowlist has entries and none covers it.
    case unlisted
    /// The project allows nothing: nothing can be unlisted.
    case allowlistEmpty

    public init(host: String, project: AuditProject) {
        if project.allowlist.isEmpty {
            self = .allowlistEmpty
        } else if let entry = project.allowlistEntry(matching: host) {
            self = .listed(entry)
        } else {
            self = .unlisted
        }
    }
}

/// How the lowest version of one negotiator moved from the earlier session to the later.
public enum TLSFloorShift: Sendable, Hashable {
    /// The later session's weakest version is older.
    case lowered
    /// The later session's weakest version is newer.
    case raised
    /// The weakest version is the same; only others changed.
    case held
    /// A version that is not published is among them: there is no order to judge by.
    case notOrdered
}

/// Why one negotiator's versions of a domain were not compared.
public enum TLSComparisonGap: Sendable, Hashable {
    /// No version was read in the earlier session's flows to the domain.
    case notReadInEarlierSession
    /// No version was read in the later session's flows to the domain.
    case notReadInLaterSession
    /// Neither session read one.
    case notReadInEitherSession
}

/// The versions one negotiator read for one domain in both sessions, ascending by wire value.
public enum TLSVersionComparison: Sendable, Hashable {
    /// The same set in both.
    case same([TLSProtocolVersion])
    /// Different sets, and how the weakest moved.
    case different(earlier: [TLSProtocolVersion], later: [TLSProtocolVersion], floor: TLSFloorShift)
    /// One side or both read nothing.
    case notCompared(TLSComparisonGap)

    public init(earlier: [TLSProtocolVersion], later: [TLSProtocolVersion]) {
        switch (earlier.isEmpty, later.isEmpty) {
        case (true, true): self = .notCompared(.notReadInEitherSession)
        case (true, false): self = .notCompared(.notReadInEarlierSession)
        case (false, true): self = .notCompared(.notReadInLaterSession)
        case (false, false):
            self = earlier == later
                ? .same(earlier)
                : .different(earlier: earlier, later: later, floor: TLSFloorShift(earlier: earlier, later: later))
        }
    }

    public var isChange: Bool {
        if case .different = self { return true }
        return false
    }
}

extension TLSFloorShift {
    init(earlier: [TLSProtocolVersion], later: [TLSProtocolVersion]) {
        let earlierRanks = earlier.compactMap(\.publishedRank)
        let laterRanks = later.compactMap(\.publishedRank)
        guard earlierRanks.count == earlier.count, laterRanks.count == later.count,
              let earlierFloor = earlierRanks.min(), let laterFloor = laterRanks.min() else {
            self = .notOrdered
            return
        }
        self = laterFloor < earlierFloor ? .lowered : laterFloor > earlierFloor ? .raised : .held
    }
}

/// Whether a domain is in a session.
public enum DomainPresence: Sendable, Hashable {
    /// No flow of the session had it as a name or a candidate.
    case absent
    /// Only flows whose address had other names too: it may not have been contacted.
    case candidateOnly
    /// A flow is known to have gone to it.
    case seen
}

/// What is stated about one domain across the two sessions.
public enum DomainStatus: Sendable, Hashable {
    /// Seen in the later session only.
    case new
    /// Seen in the earlier session only.
    case gone
    /// Seen in both, with the comparison of each negotiator's versions.
    case inBoth(app: TLSVersionComparison, tunnel: TLSVersionComparison)
    /// A candidate only, on one side or both: how it stands on each.
    case undetermined(earlier: DomainPresence, later: DomainPresence)
}

/// One domain of either session.
public struct DomainComparison: Sendable, Hashable {
    /// Normalised.
    public let host: String
    public let standing: AllowlistStanding
    /// Nil: not in that session.
    public let earlier: DomainObservation?
    public let later: DomainObservation?
    /// What each session's validation recording showed of the host, compared.
    public let validation: ValidationComparison
    /// What each session's pinning check stated of the host, compared.
    public var pinning: PinningComparison = .notCompared

    public var status: DomainStatus {
        let earlierPresence = earlier?.presence ?? .absent
        let laterPresence = later?.presence ?? .absent
        switch (earlierPresence, laterPresence) {
        case (.seen, .seen):
            return .inBoth(app: comparison(of: .app), tunnel: comparison(of: .tunnel))
        case (.absent, .seen):
            return .new
        case (.seen, .absent):
            return .gone
        default:
            return .undetermined(earlier: earlierPresence, later: laterPresence)
        }
    }

    /// Seen in both, and some negotiator's versions differ.
    public var hasTLSChange: Bool {
        guard case .inBoth(let app, let tunnel) = status else { return false }
        return app.isChange || tunnel.isChange
    }

    /// The host's connections did otherwise with the same defective certificate.
    public var hasValidationChange: Bool { validation.isChange }

    /// The pinning check stated something else of the host (a refusal told apart in one recording and not in the other included).
    public var hasPinningChange: Bool { pinning.isChange }

    private func comparison(of negotiator: TLSNegotiator) -> TLSVersionComparison {
        TLSVersionComparison(
            earlier: earlier?.versions(negotiatedBy: negotiator) ?? [],
            later: later?.versions(negotiatedBy: negotiator) ?? [])
    }
}
