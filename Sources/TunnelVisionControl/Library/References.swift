import TunnelVisionModel
import TunnelVisionStore

/// What a reference is looked up in: the store itself, or one consistent read of it.
public protocol AuditReading {
    func auditProjects() throws -> [AuditProject]
    func auditProject(id: Int64) throws -> AuditProject?
    func recording(id: Int64) throws -> Recording?
    func openRecordings() throws -> [Recording]
    func phones() throws -> [RegisteredPhone]
}

extension History: AuditReading {}
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
    public static func session(_ id: Int64, in store: some AuditReading) throws -> Recording {
        guard let session = try store.recording(id: id) else { throw ControlError.refusal(.audit(.sessionNotFound(id))) }
        return session
    }
}

/// The recording a command acts on when it names no session: the named phone's, or else the
/// only one open. Several open and none named is refused with their names, never guessed.
public enum OpenRecordingReference {
    public static func session(
        phone: String?, purpose: OpenRecordingPurpose, in store: some AuditReading
    ) throws -> Recording {
        let open = try store.openRecordings()
        if let phone {
            guard let session = open.first(where: { $0.phone?.name == phone }) else {
                throw ControlError.refusal(.phoneNotRecording(phone, purpose: purpose))
            }
            return session
        }
        switch open.count {
        case 0: throw ControlError.refusal(.noOpenRecording(purpose: purpose))
        case 1: return open[0]
        default: throw ControlError.refusal(.severalRecordings(open.map(OpenRecordingName.init), purpose: purpose))
        }
    }
}

/// The phone `session start` records: the named one, or the gateway's only one. A gateway with
/// no phones records the whole tap (nil); one with several needs to be told.
public enum PhoneReference {
    public static func phone(named name: String?, in store: some AuditReading) throws -> Phone? {
        let phones = try store.phones().map(\.phone)
        if let name {
            guard let phone = phones.first(where: { $0.name == name }) else {
                throw ControlError.refusal(.phoneNotFound(name, phones: phones.map(\.name)))
            }
            return phone
        }
        switch phones.count {
        case 0: return nil
        case 1: return phones[0]
        default: throw ControlError.refusal(.phoneNotNamed(phones: phones.map(\.name)))
        }
    }
}
