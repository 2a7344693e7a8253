import TunnelVisionModel

/// A project as the lab's archive holds it: the one every gateway pulls.
public struct ArchivedProject: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public let pattern: String
        public let note: String?
    }

    public let name: String
    public let bundleIdentifier: String?
    public let catalogueVersion: String?
    public let allowlist: [Entry]
    /// Raised by every edit: a gateway that last agreed with revision n and finds n+1 was not
    /// the one that changed it.
    public let revision: Int

    /// A gateway's project in the archive's form (revision 0: the archive numbers revisions).
    public init(_ project: AuditProject) {
        name = project.name
        bundleIdentifier = project.bundleIdentifier
        catalogueVersion = project.catalogueVersion
        allowlist = project.allowlist.map { Entry(pattern: $0.pattern.text, note: $0.note) }
        revision = 0
    }

    init(name: String, bundleIdentifier: String?, catalogueVersion: String?, allowlist: [Entry], revision: Int) {
        (self.name, self.bundleIdentifier, self.catalogueVersion) = (name, bundleIdentifier, catalogueVersion)
        (self.allowlist, self.revision) = (allowlist, revision)
    }

    /// What two sides compare: everything but the revision.
    public var content: String {
        ([name, bundleIdentifier ?? "", catalogueVersion ?? ""] + allowlist.map { "\($0.pattern)=\($0.note ?? "")" })
            .joined(separator: "\n")
    }
}

/// The lab's projects in the archive.
public struct ArchiveProjects {
    public let connection: ArchiveConnection
    public let gateway: String

    public init(connection: ArchiveConnection, gateway: String) {
        self.connection = connection
        self.gateway = gateway
    }

    public func all() throws(ArchiveError) -> [ArchivedProject] {
        let entries = try connection.execute(
            "SELECT project_id, pattern, note FROM project_allowlist ORDER BY project_id, position")
        var byProject: [String: [ArchivedProject.Entry]] = [:]
        for row in entries { byProject[row[0] ?? "", default: []].append(.init(pattern: row[1] ?? "", note: row[2])) }
        return try connection.execute("SELECT id, name, bundle_id, catalogue_version, revision FROM projects ORDER BY name").map { row in
            ArchivedProject(
                name: row[1] ?? "", bundleIdentifier: row[2], catalogueVersion: row[3], allowlist: byProject[row[0] ?? ""] ?? [],
                revision: Int(row[4] ?? "") ?? 0)
        }
    }

    /// Writes this gateway's version of a project: a new one at revision 1, an edit only over
    /// the revision the gateway last agreed with (`over`); answers the new revision, or nil when
    /// someone else changed it first (the conflict the caller refuses).
    public func publish(_ project: ArchivedProject, over revision: Int?, at createdAt: Int64) throws(ArchiveError) -> Int? {
        try connection.inTransaction { () throws(ArchiveError) -> Int? in
            let gatewayID = try connection.value("SELECT id FROM gateways WHERE name = $1", [gateway])
            let id: String
            if let revision {
                guard let updated = try connection.value(
                    """
                    UPDATE projects SET bundle_id = $2, catalogue_version = $3, revision = revision + 1, edited_by = $4,
                        edited_at = now() WHERE name = $1 AND revision = $5 RETURNING id
                    """,
                    [project.name, project.bundleIdentifier, project.catalogueVersion, gatewayID, String(revision)])
                else { return nil }
                id = updated
                try connection.execute("DELETE FROM project_allowlist WHERE project_id = $1", [id])
            } else {
                guard let created = try connection.value(
                    """
                    INSERT INTO projects (name, bundle_id, catalogue_version, created_at, edited_by) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (name) DO NOTHING RETURNING id
                    """,
                    [project.name, project.bundleIdentifier, project.catalogueVersion, String(createdAt), gatewayID])
                else { return nil }
                id = created
            }
            for (position, entry) in project.allowlist.enumerated() {
                try connection.execute(
                    "INSERT INTO project_allowlist (project_id, position, pattern, note) VALUES ($1, $2, $3, $4)",
                    [id, String(position + 1), entry.pattern, entry.note])
            }
            return Int(try connection.value("SELECT revision FROM projects WHERE id = $1", [id]) ?? "")
        }
    }
}
