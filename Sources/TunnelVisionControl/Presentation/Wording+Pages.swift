import Foundation
import TunnelVisionModel

/// The sentences and phrases of what the reads show.
extension Wording {
    static let noProjects = "No projects yet: 'tvctl project create NAME' makes one."
    static let noSessions = "No sessions yet: 'tvctl session start' records one."
    static let allowlistEmpty = "The allowlist is empty: no destination can be judged against it."
    static let noMarkers = "No markers: consent cannot be judged in this session."
    static let noFindings = "No findings."
    static let stillRecording = "Still recording: this is what the flows so far show."
    static let noFlowsYet = "No flows yet: they appear here as the phone sends traffic."
    static let diffAllowlistEmpty = "The allowlist is empty, so no new domain can be called unexpected."

    static func noSessions(of project: AuditProject) -> String {
        "No sessions yet: 'tvctl session start \(shellWord(project.name)) …' records one."
    }

    /// "Session 7, Acme Health 2.4.1 (310)".
    static func sessionTitle(_ session: Recording, project: String) -> String {
        "Session \(session.id), \(recording(project: project, kind: session.kind))"
    }

    /// "Session 7, Acme Health 2.4.1 (310): 1,234 flows, recording since 14:02:11."
    static func flowsHeadline(_ session: Recording, project: String, flows: Int, zone: TimeZone) -> String {
        let state = session.endedAt.map { "recorded \(Formatting.dateTime(session.startedAt, in: zone)) to \(Formatting.time($0, in: zone))" }
            ?? "recording since \(Formatting.time(session.startedAt, in: zone))"
        return "\(sessionTitle(session, project: project)): \(plural(flows, "flow")), \(state)."
    }

    static func flowsTruncated(shown: Int, of total: Int) -> String {
        "Showing the first \(Formatting.count(shown)) of \(Formatting.count(total)) flows: --limit shows more."
    }

    /// Under a flow's requests: those the relay read past its bound per connection.
    static func requestsNotKept(_ count: Int) -> String {
        "↳ \(plural(count, "more request")) read, not kept (past what the relay keeps of one connection)"
    }

    static func newestFlowsTruncated(shown: Int, of total: Int) -> String {
        "Showing the newest \(Formatting.count(shown)) of \(Formatting.count(total)) flows: --limit shows more."
    }

    static func followTruncated(shown: Int, of total: Int) -> String {
        "The newest \(Formatting.count(shown)) of \(Formatting.count(total)); Ctrl-C leaves."
    }

    static func unexpectedNewDomains(_ count: Int, allowlistEntries: Int) -> String {
        "\(plural(count, "new domain")) not in today's allowlist of \(plural(allowlistEntries, "entry", "entries"))."
    }

    static func unnamedFlows(earlier: Int, in earlierSession: Int64, later: Int, in laterSession: Int64) -> String {
        "Flows without a name: \(earlier) in session \(earlierSession), \(later) in session \(laterSession)."
    }

    static func catalogueLine(_ identifier: String, document: String, version: String, minimum: TLSProtocolVersion) -> String {
        "Catalogue \(identifier) (\(document) \(version)); TLS minimum \(minimum.displayText)."
    }

    // MARK: Phrases of facts

    static func recorded(_ kind: RecordingKind) -> String {
        kind.release == nil ? "baseline, without the app" : "release \(release(of: kind))"
    }

    static func onOff(_ on: Bool) -> String { on ? "on" : "off" }

    /// The relay, its CA and what it presented, as the session recorded them (issues 12, 13).
    static func sessionInspection(_ conditions: InspectionConditions) -> String {
        guard conditions.inspectionEnabled else { return "off" }
        var text = conditions.caFingerprint.map { "on, CA SHA-256 \($0)" } ?? "on"
        if let defect = conditions.mode.defect { text += ", presenting \(AuditSerialization.name(of: defect)) certificates" }
        if conditions.quicDropped { text += "; UDP to port 443 dropped" }
        return conditions.keepsKeys ? text + "; TLS secrets kept (--keep-keys)" : text
    }

    static func validation(_ readable: Bool) -> String { pinning(readable) }

    static func caTrust(_ trusted: Bool, store: CATrustStore? = nil) -> String {
        guard trusted else { return "not trusted by the phone" }
        return store.map { "trusted by the phone, installed in \(storeName($0))" } ?? "trusted by the phone"
    }

    static func storeName(_ store: CATrustStore) -> String {
        switch store {
        case .user: "the user store"
        case .userFullTrust: "the user store with full trust on (iOS)"
        case .system: "the system store"
        }
    }

    static func pinning(_ readable: Bool) -> String {
        readable ? "can be read from this session" : "cannot be read from this session"
    }

    static let stillRecordingFact = "still recording"
    static let defaultCatalogue = "default"
}
