import Foundation

/// What the last publishing run left on the gateway, beside the history: which recordings the
/// archive holds, and when to try again after a failure. `tvctl status` reads it without
/// touching the network, so a gateway whose archive is away answers as fast as ever.
public struct ArchiveState: Codable, Sendable, Equatable {
    public var archived: [Int64] = []
    public var failures: Int = 0
    public var lastError: String?
    /// Nanoseconds since 1970.
    public var lastAttempt: Int64?
    public var nextAttempt: Int64?
    /// Per project name: the archive's revision and the content both sides had when they last agreed.
    public var projects: [String: ProjectAgreement] = [:]
    /// Recordings left behind because their bundle could not be exported, each with its own
    /// wait: one such recording must not hold back the ones after it.
    public var held: [HeldRecording] = []

    public struct HeldRecording: Codable, Sendable, Equatable {
        public var id: Int64
        public var reason: String
        public var failures: Int
        /// Nanoseconds since 1970.
        public var nextAttempt: Int64
    }

    /// Whether a run at `now` tries the recording (a held one only once its wait is over).
    public func isDue(_ id: Int64, now: Int64) -> Bool {
        held.first { $0.id == id }.map { $0.nextAttempt <= now } ?? true
    }

    /// The recording could not be exported at `now`: it waits, one minute doubling as a run's does.
    public mutating func hold(_ id: Int64, reason: String, now: Int64) {
        let failures = (held.first { $0.id == id }?.failures ?? 0) + 1
        let wait = Int64(Self.backoff(afterFailures: failures) * 1_000_000_000)
        held.removeAll { $0.id == id }
        held.append(HeldRecording(id: id, reason: reason, failures: failures, nextAttempt: now + wait))
        held.sort { $0.id < $1.id }
    }

    public mutating func release(_ id: Int64) { held.removeAll { $0.id == id } }

    public struct ProjectAgreement: Codable, Sendable, Equatable {
        public var revision: Int
        public var content: String
    }

    /// The gateway and the archive hold `project` alike, the archive at `revision`.
    public mutating func agree(on project: ArchivedProject, revision: Int? = nil) {
        projects[project.name] = ProjectAgreement(revision: revision ?? project.revision, content: project.content)
    }

    public init() {}

    // Written by a version before recordings were held one by one: every key but the first ones
    // may be missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        archived = try container.decodeIfPresent([Int64].self, forKey: .archived) ?? []
        failures = try container.decodeIfPresent(Int.self, forKey: .failures) ?? 0
        lastError = try container.decodeIfPresent(String.self, forKey: .lastError)
        lastAttempt = try container.decodeIfPresent(Int64.self, forKey: .lastAttempt)
        nextAttempt = try container.decodeIfPresent(Int64.self, forKey: .nextAttempt)
        projects = try container.decodeIfPresent([String: ProjectAgreement].self, forKey: .projects) ?? [:]
        held = try container.decodeIfPresent([HeldRecording].self, forKey: .held) ?? []
    }

    /// After the n-th failure in a row: one minute, doubled each time, at most an hour.
    public static func backoff(afterFailures failures: Int) -> TimeInterval {
        min(60 * pow(2, Double(max(failures - 1, 0))), 3_600)
    }

    public static func path(besideHistoryIn directory: String) -> String { directory + "/archive-state.json" }

    /// Nil when no run has written one (the archive was never used here).
    public static func load(path: String) -> ArchiveState? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(ArchiveState.self, from: data)
    }

    /// Written whole and renamed into place: a reader sees the old state or the new one.
    public func save(path: String) throws(ArchiveError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
            // Read by 'tvctl status' of every member of the group and by the console's user; the
            // history's folder gives it the group. It holds no credential.
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        } catch {
            throw .history("\(path) could not be written: \(error.localizedDescription)")
        }
    }
}
