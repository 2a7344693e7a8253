import Foundation
import TunnelVisionModel

/// The human tables of projects, sessions and markers.
enum AuditTables {
    static let none = "—"

    static func projects(_ rows: [(project: AuditProject, sessions: Int)], zone: TimeZone) -> TextTable {
        var table = TextTable([
            .init("ID", .right), .init("NAME"), .init("BUNDLE ID"), .init("CATALOGUE"),
            .init("ALLOWED", .right), .init("SESSIONS", .right), .init("CREATED"),
        ])
        for (project, sessions) in rows {
            table.append([
                String(project.id), project.name, project.bundleIdentifier ?? none,
                project.catalogueVersion ?? "default", String(project.allowlist.count), String(sessions),
                Formatting.dateTime(project.createdAt, in: zone),
            ])
        }
        return table
    }

    static func allowlist(_ entries: [AllowlistEntry]) -> TextTable {
        var table = TextTable([.init("PATTERN"), .init("NOTE")])
        for entry in entries {
            table.append([entry.pattern.text, entry.note ?? ""])
        }
        return table
    }

    struct SessionRow {
        let session: Recording
        let projectName: String
        let flowCount: Int
    }

    static func sessions(_ rows: [SessionRow], zone: TimeZone) -> TextTable {
        var table = TextTable([
            .init("ID", .right), .init("PROJECT"), .init("RELEASE"), .init("DEVICE"), .init("OS"),
            .init("STARTED"), .init("ENDED"), .init("FLOWS", .right),
        ])
        for row in rows {
            let session = row.session
            table.append([
                String(session.id), row.projectName, Wording.release(of: session.kind),
                session.environment.deviceModel, session.environment.osVersion,
                Formatting.dateTime(session.startedAt, in: zone),
                session.endedAt.map { Formatting.dateTime($0, in: zone) } ?? "recording",
                Formatting.count(row.flowCount),
            ])
        }
        return table
    }

    static func phones(
        _ phones: [RegisteredPhone], handshakes: WireGuardHandshakes.Reading, now: Date, zone: TimeZone
    ) -> TextTable {
        var table = TextTable([.init("NAME"), .init("IPV4"), .init("IPV6"), .init("KEY SHA-256"), .init("HANDSHAKE"), .init("ADDED")])
        for registered in phones {
            let phone = registered.phone
            let handshake = JSONShape.PhoneShape(registered, handshakes: handshakes, now: now).handshake
            table.append([
                phone.name, phone.ipv4.description, phone.ipv6.description, String(phone.keyFingerprint.prefix(16)),
                handshake.ageSeconds.map { "\(handshake.state), \($0) s ago" } ?? handshake.state,
                Formatting.dateTime(registered.addedAt, in: zone),
            ])
        }
        return table
    }

    static func markers(_ markers: [SessionMarker], zone: TimeZone) -> TextTable {
        var table = TextTable([.init("ID", .right), .init("AT"), .init("MARKER")])
        for marker in markers {
            table.append([String(marker.id), Formatting.dateTime(marker.date, in: zone), Wording.marker(marker.kind)])
        }
        return table
    }
}
