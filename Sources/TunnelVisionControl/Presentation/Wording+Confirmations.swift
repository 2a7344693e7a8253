import Foundation
import TunnelVisionDigest
import TunnelVisionExport
import TunnelVisionModel

/// What tvctl says when something was done: what, and where. Every stored name, release, label
/// and note goes through `TerminalText.visible` (through `shown`) on its way into a sentence: one
/// stored before input was checked must not break a line or reach the terminal as a control.
extension Wording {
    /// Stored text as a sentence quotes it.
    package static func shown(_ text: String) -> String { TerminalText.visible(text) }

    /// "2.4.1 (310)", or "baseline".
    public static func release(of kind: RecordingKind) -> String {
        switch kind {
        case .baseline: "baseline"
        case .audit(let release): "\(shown(release.version)) (\(shown(release.build)))"
        }
    }

    /// "Acme Health 2.4.1 (310)".
    public static func recording(project: String, kind: RecordingKind) -> String {
        shown(project) + " " + release(of: kind)
    }

    /// "consent given", "logged in", "logged out", or the label in quotes.
    public static func marker(_ kind: SessionMarkerKind) -> String {
        switch kind {
        case .consentGiven: "consent given"
        case .loggedIn: "logged in"
        case .loggedOut: "logged out"
        case .custom(let label): "“\(shown(label))”"
        }
    }

    /// "consent given at 14:03:07 in session 7, Acme Health 2.4.1 (310)".
    public static func markerPlaced(_ marker: SessionMarker, in recording: RecordingWithProject, zone: TimeZone) -> String {
        "\(Wording.marker(marker.kind)) at \(Formatting.time(marker.date, in: zone)) in session \(recording.session.id), "
            + self.recording(project: recording.projectName, kind: recording.session.kind)
    }

    static func projectCreated(_ project: AuditProject) -> String {
        "Created project \(project.id), \(shown(project.name))."
    }

    static func projectUpdated(_ project: AuditProject) -> String {
        "Updated project \(project.id), \(shown(project.name))."
    }

    static func patternAllowed(_ pattern: String, project: AuditProject) -> String {
        "\(shown(pattern)) is allowed for \(shown(project.name)) (\(entries(project.allowlist.count)) in its allowlist)."
    }

    static func patternDisallowed(_ pattern: String, project: AuditProject) -> String {
        "\(shown(pattern)) is no longer allowed for \(shown(project.name)) (\(entries(project.allowlist.count)) in its allowlist)."
    }

    static func projectDeleted(_ project: AuditProject, sessions: Int) -> String {
        "Deleted project \(project.id), \(shown(project.name)), and its \(plural(sessions, "session"))."
    }

    static func confirmProjectDeletion(_ project: AuditProject, sessions: Int) -> String {
        "Delete project \(project.id), \(shown(project.name)), with its \(plural(sessions, "session")) and their markers? [y/N] "
    }

    static func sessionStarted(_ session: Recording, project: String) -> String {
        let conditions = session.inspection
        let inspection: String = switch conditions.mode {
        case .off: "off"
        case .pinning: conditions.caFingerprint.map { "on with CA SHA-256 \($0)" } ?? "on"
        case .validation(let defect):
            "on, presenting \(AuditSerialization.name(of: defect)) certificates"
                + (conditions.caFingerprint.map { ", CA SHA-256 \($0)" } ?? "")
        }
        let trust = conditions.caTrusted ? "trusted" + (conditions.caStore.map { " in \(storeName($0))" } ?? "") : "not trusted"
        let quic = conditions.quicDropped ? ", UDP to port 443 dropped" : ""
        let keys = conditions.keepsKeys ? ", TLS secrets kept for export --with-keys" : ""
        return "Recording session \(session.id), \(recording(project: project, kind: session.kind)), "
            + "on \(shown(session.environment.deviceModel)) with \(shown(session.environment.osVersion)); "
            + "inspection \(inspection), CA \(trust)\(quic)\(keys)."
    }

    static func caFingerprint(_ certificate: InspectionCACertificate) -> String {
        "SHA-256 fingerprint: \(certificate.colonFingerprint)"
    }

    static func caExported(_ certificate: InspectionCACertificate, to path: String) -> String {
        "Wrote the inspection CA certificate to \(path) (SHA-256 \(certificate.colonFingerprint)): install it on the test phone as a CA certificate."
    }

    static func sessionEnded(_ session: Recording, project: String, flows: Int, zone: TimeZone) -> String {
        let end = session.endedAt.map { Formatting.time($0, in: zone) } ?? "?"
        return "Ended session \(session.id), \(recording(project: project, kind: session.kind)), at \(end) "
            + "with \(plural(flows, "flow"))."
    }

    static func sessionDeleted(_ session: Recording, project: String) -> String {
        "Deleted session \(session.id), \(recording(project: project, kind: session.kind)); its flows are kept, untagged."
    }

    static func confirmSessionDeletion(_ session: Recording, project: String, flows: Int) -> String {
        "Delete session \(session.id), \(recording(project: project, kind: session.kind)), with its markers? "
            + "Its \(plural(flows, "flow")) stay in the history without it. [y/N] "
    }

    static let interactiveKeys = "c consent · l login · o logout · q quit"

    static func interactivePrompt(_ recording: RecordingWithProject) -> String {
        "Marking session \(recording.session.id), \(self.recording(project: recording.projectName, kind: recording.session.kind)) — \(interactiveKeys)"
    }

    static let interactiveNoRecording = "No recording is open: keys place nothing until one starts ('tvctl session start')."

    static func interactiveHistoryUnanswered(_ problem: HistoryProblem) -> String {
        "Nothing can be marked: " + continuing(sentence(for: problem))
    }

    static func followEnded(_ session: Recording, zone: TimeZone) -> String {
        let end = session.endedAt.map { Formatting.time($0, in: zone) } ?? "?"
        return "Session \(session.id) ended at \(end)."
    }

    package static func plural(_ count: Int, _ noun: String, _ nouns: String? = nil) -> String {
        "\(Formatting.count(count)) " + (count == 1 ? noun : nouns ?? noun + "s")
    }

    private static func entries(_ count: Int) -> String { plural(count, "entry", "entries") }
}
