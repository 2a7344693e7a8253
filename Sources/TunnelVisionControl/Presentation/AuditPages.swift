import Foundation
import TunnelVisionModel

/// The pages of `project show` and `session show`.
enum AuditPages {
    static func project(_ project: AuditProject, sessions: [AuditTables.SessionRow], zone: TimeZone, style: TextStyle) -> Page {
        var page = Page(style: style)
        page.heading("Project \(project.id), \(TerminalText.visible(project.name))")
        page.facts([
            ("Bundle ID", project.bundleIdentifier ?? AuditTables.none),
            ("Catalogue", project.catalogueVersion ?? Wording.defaultCatalogue),
            ("Created", Formatting.dateTime(project.createdAt, in: zone)),
        ])
        page.blank()
        page.table(AuditTables.allowlist(project.allowlist), orWhenEmpty: Wording.allowlistEmpty)
        page.blank()
        page.table(AuditTables.sessions(sessions, zone: zone), orWhenEmpty: Wording.noSessions(of: project))
        return page
    }

    static func session(
        _ session: Recording, projectName: String, flows: Int, markers: [SessionMarker], zone: TimeZone, style: TextStyle
    ) -> Page {
        var page = Page(style: style)
        page.heading(Wording.sessionTitle(session, project: projectName))
        let phone: [(String, String)] = session.phone.map { [("Phone", Wording.recordedPhone($0))] } ?? []
        page.facts([
            ("Project", "\(session.projectID), \(Wording.shown(projectName))"),
            ("Recorded", Wording.recorded(session.kind)),
            ("Device", "\(Wording.shown(session.environment.deviceModel)), \(Wording.shown(session.environment.osVersion))"),
        ] + phone + [
            ("Tool", "TunnelVision \(session.environment.toolVersion)"),
            ("Inspection", Wording.sessionInspection(session.inspection)),
            ("CA", Wording.caTrust(session.inspection.caTrusted, store: session.inspection.caStore)),
            ("Pinning", Wording.pinning(session.inspection.supportsPinningEvidence)),
            ("Validation", Wording.validation(session.inspection.mode.defect != nil)),
        ] + (session.validationIssuerFingerprint.map { [("Untrusted issuer", "SHA-256 \($0)")] } ?? []) + [
            ("Started", Formatting.dateTime(session.startedAt, in: zone)),
            ("Ended", session.endedAt.map { Formatting.dateTime($0, in: zone) } ?? Wording.stillRecordingFact),
            ("Flows", Formatting.count(flows)),
            ("Notes", session.notes.isEmpty ? AuditTables.none : TerminalText.visible(session.notes)),
        ])
        page.blank()
        page.table(AuditTables.markers(markers, zone: zone), orWhenEmpty: Wording.noMarkers)
        return page
    }
}
