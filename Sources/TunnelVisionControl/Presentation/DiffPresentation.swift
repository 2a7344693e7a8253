import TunnelVisionAudit
import TunnelVisionModel

/// How a release diff is shown: new, gone and undetermined domains, then TLS and validation changes.
enum DiffPresentation {
    static func page(_ diff: ReleaseDiff, project: AuditProject, style: TextStyle) -> Page {
        var page = Page(style: style)
        let earlier = "session \(diff.earlier.id), \(Wording.release(of: diff.earlier.kind))"
        let later = "session \(diff.later.id), \(Wording.release(of: diff.later.kind))"
        page.heading("\(Wording.shown(project.name)): \(earlier) → \(later)")
        page.line(project.allowlist.isEmpty
            ? Wording.diffAllowlistEmpty
            : Wording.unexpectedNewDomains(diff.unexpectedNewDomains.count, allowlistEntries: project.allowlist.count))
        let sections: [(String, [DomainComparison], ([DomainComparison]) -> TextTable)] = [
            ("New in the later session", diff.newDomains, { domains($0, side: \.later) }),
            ("Gone from the later session", diff.goneDomains, { domains($0, side: \.earlier) }),
            ("Undetermined (only a candidate name of an address)", diff.undeterminedDomains, undetermined),
            ("TLS changes", diff.domainsWithTLSChange, tlsChanges),
            ("Certificate validation changes", diff.domainsWithValidationChange, validationChanges),
            ("Pinning changes", diff.domainsWithPinningChange, pinningChanges),
        ]
        for (title, comparisons, table) in sections {
            page.blank()
            page.line("\(title): \(comparisons.count)")
            if !comparisons.isEmpty { page.table(table(comparisons)) }
        }
        page.blank()
        page.line(Wording.unnamedFlows(
            earlier: diff.earlierUnnamedFlowIDs.count, in: diff.earlier.id, later: diff.laterUnnamedFlowIDs.count, in: diff.later.id))
        return page
    }

    static func standing(_ standing: AllowlistStanding) -> String {
        switch standing {
        case .listed(let entry): "allowed (\(Wording.shown(entry.pattern.text)))"
        case .unlisted: "not in the allowlist"
        case .allowlistEmpty: "allowlist empty"
        }
    }

    static func presence(_ presence: DomainPresence) -> String {
        switch presence {
        case .absent: "absent"
        case .candidateOnly: "candidate only"
        case .seen: "seen"
        }
    }

    static func versions(_ versions: [TLSProtocolVersion]) -> String {
        versions.isEmpty ? AuditTables.none : versions.map(\.displayText).joined(separator: ", ")
    }

    static func floor(_ shift: TLSFloorShift) -> String {
        switch shift {
        case .lowered: "lowered"
        case .raised: "raised"
        case .held: "held"
        case .notOrdered: "not ordered"
        }
    }

    static func gap(_ gap: TLSComparisonGap) -> String {
        switch gap {
        case .notReadInEarlierSession: "not read in the earlier session"
        case .notReadInLaterSession: "not read in the later session"
        case .notReadInEitherSession: "not read in either session"
        }
    }

    /// New or gone domains: the host, how the allowlist stands on it, and its flows.
    static func domains(_ comparisons: [DomainComparison], side: KeyPath<DomainComparison, DomainObservation?>) -> TextTable {
        var table = TextTable([.init("HOST"), .init("ALLOWLIST"), .init("FLOWS", .right)])
        for comparison in comparisons {
            table.append([comparison.host, standing(comparison.standing), String(comparison[keyPath: side]?.flowIDs.count ?? 0)])
        }
        return table
    }

    static func undetermined(_ comparisons: [DomainComparison]) -> TextTable {
        var table = TextTable([.init("HOST"), .init("ALLOWLIST"), .init("EARLIER"), .init("LATER")])
        for comparison in comparisons {
            guard case .undetermined(let earlier, let later) = comparison.status else { continue }
            table.append([comparison.host, standing(comparison.standing), presence(earlier), presence(later)])
        }
        return table
    }

    static func validationResult(_ result: HostValidationResult) -> String {
        switch result {
        case .accepted(let defect): "continued over \(AuditSerialization.name(of: defect))"
        case .refused(let defect): "refused \(AuditSerialization.name(of: defect))"
        }
    }

    /// One row per host whose connections did otherwise with the same defective certificate.
    static func validationChanges(_ comparisons: [DomainComparison]) -> TextTable {
        hostChanges(comparisons) { comparison in
            guard case .changed(let earlier, let later) = comparison.validation else { return nil }
            return (validationResult(earlier), validationResult(later))
        }
    }

    /// One row per host, with what each session stated of it where the two differ.
    private static func hostChanges(_ comparisons: [DomainComparison], _ change: (DomainComparison) -> (String, String)?) -> TextTable {
        var table = TextTable([.init("HOST"), .init("EARLIER"), .init("LATER")])
        for comparison in comparisons {
            guard let (earlier, later) = change(comparison) else { continue }
            table.append([comparison.host, earlier, later])
        }
        return table
    }

    static func pinningResult(_ result: HostPinningResult) -> String {
        switch result {
        case .accepted: "accepted the local CA"
        case .pinningObserved: "refused it, another host accepted it (pinning observed)"
        case .refusalNotToldApart(let store): "refused it, no other host accepted it (not told apart; \(store?.rawValue ?? "store not named"))"
        }
    }

    /// One row per host of which the pinning check stated something else.
    static func pinningChanges(_ comparisons: [DomainComparison]) -> TextTable {
        hostChanges(comparisons) { comparison in
            guard case .changed(let earlier, let later) = comparison.pinning else { return nil }
            return (pinningResult(earlier), pinningResult(later))
        }
    }

    /// One row per domain and negotiator whose versions differ.
    static func tlsChanges(_ comparisons: [DomainComparison]) -> TextTable {
        var table = TextTable([.init("HOST"), .init("NEGOTIATED BY"), .init("EARLIER"), .init("LATER"), .init("WEAKEST")])
        for comparison in comparisons {
            guard case .inBoth(let app, let tunnel) = comparison.status else { continue }
            for (negotiator, versions) in [(TLSNegotiator.app, app), (.tunnel, tunnel)] {
                guard case .different(let earlier, let later, let shift) = versions else { continue }
                table.append([comparison.host, negotiator.rawValue, Self.versions(earlier), Self.versions(later), floor(shift)])
            }
        }
        return table
    }
}

extension JSONShape {
    public struct TLSComparisonShape: Encodable, Sendable, Hashable {
        /// same, different or notCompared.
        public let comparison: String
        public let earlier: [String]
        public let later: [String]
        public let floor: String?
        public let gap: String?

        init(_ comparison: TLSVersionComparison) {
            switch comparison {
            case .same(let versions):
                self.comparison = "same"; earlier = versions.map(\.displayText); later = earlier; floor = nil; gap = nil
            case .different(let before, let after, let shift):
                self.comparison = "different"; earlier = before.map(\.displayText); later = after.map(\.displayText)
                switch shift {
                case .lowered: floor = "lowered"
                case .raised: floor = "raised"
                case .held: floor = "held"
                case .notOrdered: floor = "notOrdered"
                }
                gap = nil
            case .notCompared(let reason):
                self.comparison = "notCompared"; earlier = []; later = []; floor = nil
                switch reason {
                case .notReadInEarlierSession: gap = "notReadInEarlierSession"
                case .notReadInLaterSession: gap = "notReadInLaterSession"
                case .notReadInEitherSession: gap = "notReadInEitherSession"
                }
            }
        }
    }

    public struct ValidationComparisonShape: Encodable, Sendable, Hashable {
        /// same, changed or notCompared.
        public let comparison: String
        /// accepted or refused, with the mode whose certificate it was.
        public let earlier: String?
        public let later: String?
        public private(set) var earlierMode: String?
        public private(set) var laterMode: String?
        public let gap: String?

        init(_ comparison: ValidationComparison) {
            func result(_ result: HostValidationResult?) -> (String?, String?) {
                switch result {
                case .accepted(let defect)?: ("accepted", AuditSerialization.name(of: defect))
                case .refused(let defect)?: ("refused", AuditSerialization.name(of: defect))
                case nil: (nil, nil)
                }
            }
            let before: HostValidationResult?, after: HostValidationResult?
            switch comparison {
            case .same(let both):
                self.comparison = "same"; before = both; after = both; gap = nil
            case .changed(let earlier, let later):
                self.comparison = "changed"; before = earlier; after = later; gap = nil
            case .notCompared(let reason):
                self.comparison = "notCompared"; before = nil; after = nil
                switch reason {
                case .notJudgedInEarlierSession: gap = "notJudgedInEarlierSession"
                case .notJudgedInLaterSession: gap = "notJudgedInLaterSession"
                case .notJudgedInEitherSession: gap = "notJudgedInEitherSession"
                case .differentDefects: gap = "differentDefects"
                }
            }
            (earlier, earlierMode) = result(before)
            (later, laterMode) = result(after)
            if case .notCompared(.differentDefects(let first, let second)) = comparison {
                earlierMode = AuditSerialization.name(of: first)
                laterMode = AuditSerialization.name(of: second)
            }
        }
    }

    public struct PinningComparisonShape: Encodable, Sendable, Hashable {
        /// same or changed.
        public let comparison: String
        /// accepted, pinningObserved or refusalNotToldApart.
        public let earlier: String
        public let later: String
        /// With refusalNotToldApart: the store each recording declared (absent: not named).
        public let earlierStore: String?
        public let laterStore: String?

        init?(_ comparison: PinningComparison) {
            let (first, second): (HostPinningResult, HostPinningResult)
            switch comparison {
            case .notCompared: return nil
            case .same(let result): (first, second) = (result, result); self.comparison = "same"
            case .changed(let earlier, let later): (first, second) = (earlier, later); self.comparison = "changed"
            }
            func name(_ result: HostPinningResult) -> (String, String?) {
                switch result {
                case .accepted: ("accepted", nil)
                case .pinningObserved: ("pinningObserved", nil)
                case .refusalNotToldApart(let store): ("refusalNotToldApart", store?.rawValue)
                }
            }
            (earlier, earlierStore) = name(first)
            (later, laterStore) = name(second)
        }
    }

    public struct DomainShape: Encodable, Sendable, Hashable {
        public let host: String
        /// new, gone, inBoth or undetermined.
        public let status: String
        /// listed, unlisted or allowlistEmpty.
        public let allowlist: String
        public let allowlistPattern: String?
        public let earlierPresence: String
        public let laterPresence: String
        public let earlierFlowIDs: [Int64]
        public let laterFlowIDs: [Int64]
        public let earlierCandidateFlowIDs: [Int64]
        public let laterCandidateFlowIDs: [Int64]
        public let appTLS: TLSComparisonShape?
        public let tunnelTLS: TLSComparisonShape?
        public let certificateValidation: ValidationComparisonShape
        /// What each session's pinning check stated of the host; absent when either stated nothing.
        public let pinning: PinningComparisonShape?

        init(_ comparison: DomainComparison) {
            host = comparison.host
            pinning = PinningComparisonShape(comparison.pinning)
            certificateValidation = ValidationComparisonShape(comparison.validation)
            switch comparison.standing {
            case .listed(let entry): allowlist = "listed"; allowlistPattern = entry.pattern.text
            case .unlisted: allowlist = "unlisted"; allowlistPattern = nil
            case .allowlistEmpty: allowlist = "allowlistEmpty"; allowlistPattern = nil
            }
            func presence(_ observation: DomainObservation?) -> String {
                switch observation?.presence ?? .absent {
                case .absent: "absent"
                case .candidateOnly: "candidateOnly"
                case .seen: "seen"
                }
            }
            earlierPresence = presence(comparison.earlier)
            laterPresence = presence(comparison.later)
            earlierFlowIDs = comparison.earlier?.flowIDs ?? []
            laterFlowIDs = comparison.later?.flowIDs ?? []
            earlierCandidateFlowIDs = comparison.earlier?.candidateFlowIDs ?? []
            laterCandidateFlowIDs = comparison.later?.candidateFlowIDs ?? []
            switch comparison.status {
            case .new: status = "new"; appTLS = nil; tunnelTLS = nil
            case .gone: status = "gone"; appTLS = nil; tunnelTLS = nil
            case .undetermined: status = "undetermined"; appTLS = nil; tunnelTLS = nil
            case .inBoth(let app, let tunnel):
                status = "inBoth"; appTLS = TLSComparisonShape(app); tunnelTLS = TLSComparisonShape(tunnel)
            }
        }
    }

    public struct ReleaseDiffShape: Encodable, Sendable, Hashable {
        public let project: Project
        public let earlier: Session
        public let later: Session
        public let unexpectedNewDomains: [String]
        public let domains: [DomainShape]
        public let earlierUnnamedFlowIDs: [Int64]
        public let laterUnnamedFlowIDs: [Int64]

        init(_ diff: ReleaseDiff, project: AuditProject) {
            self.project = Project(project)
            earlier = Session(diff.earlier, projectName: project.name)
            later = Session(diff.later, projectName: project.name)
            unexpectedNewDomains = diff.unexpectedNewDomains.map(\.host)
            domains = diff.domains.map(DomainShape.init)
            earlierUnnamedFlowIDs = diff.earlierUnnamedFlowIDs
            laterUnnamedFlowIDs = diff.laterUnnamedFlowIDs
        }
    }
}
