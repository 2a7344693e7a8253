import TunnelVisionModel
import TunnelVisionStore

/// What a reference is looked up in: the store itself, or one consistent read of it.
public protocol AuditReading {
    func auditProjects() throws -> [AuditProject]
    func auditProject(id: Int64) throws -> AuditProject?
    func auditSession(id: Int64) throws -> AuditSession?
}

extension FlowStore: AuditReading {}
extension HistorySnapshot: AuditReading {}

/// A project as typed: its id, or its name when no other project has it.
public struct ProjectReference: Sendable, Hashable {
    public let text: String

    public init(_ text: String) {
        self.text = text
    }

    /// An id wins over a name that looks like one; a name matches exactly, or else ignoring
    /// case, and only when one project has it.
    public func resolve(in store: some AuditReading) throws -> AuditProject {
        if let id = Int64(text), let project = try store.auditProject(id: id) {
            return project
        }
        let projects = try store.auditProjects()
        let exact = projects.filter { $0.name == text }
        let candidates = exact.isEmpty ? projects.filter { $0.name.lowercased() == text.lowercased() } : exact
        switch candidates.count {
        case 1: return candidates[0]
        case 0: throw ControlError.refusal(.projectNotFound(text))
        default: throw ControlError.refusal(.projectNameAmbiguous(text, ids: candidates.map(\.id).sorted()))
        }
    }
}

/// A session as typed: always its number.
public enum SessionReference {
    public static func id(_ text: String, command: String) throws(ControlError) -> Int64 {
        guard let id = Int64(text), id > 0 else { throw .usage(.invalidSessionID(text, command: command)) }
        return id
    }

    /// The session, or a refusal that names the id.
    public static func session(_ id: Int64, in store: some AuditReading) throws -> AuditSession {
        guard let session = try store.auditSession(id: id) else { throw ControlError.refusal(.sessionNotFound(id)) }
        return session
    }
}
