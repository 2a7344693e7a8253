import TunnelVisionControl
import TunnelVisionModel

/// What tvfixture says when it has seeded a history.
enum FixtureWording {
    static func seeded(project: AuditProject, baseline: Int64, audit: Int64, flows: Int) -> String {
        "Seeded project \(project.id), \(Wording.shown(project.name)): baseline session \(baseline) and audit session \(audit), "
            + "both ended, over \(Wording.plural(flows, "synthetic flow"))."
    }
}
