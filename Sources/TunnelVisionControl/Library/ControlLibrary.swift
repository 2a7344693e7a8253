import TunnelVisionModel
import TunnelVisionStore

#if canImport(Glibc)
import Glibc
#endif

/// The library under the commands: it opens the store for one operation and classifies whatever that operation throws into a
/// rule the person can act on or a history that did not answer.
public struct ControlLibrary: Sendable {
    public let location: DatabaseLocation

    public init(location: DatabaseLocation) {
        self.location = location
    }

    /// One visit to the history. Only a command that seeds a history may create the file:
    /// every other command would leave an empty database behind a mistyped path.
    public func visit<Result>(
        creatingHistory: Bool = false, _ body: (History) throws -> Result
    ) throws(ControlError) -> Result {
        if !creatingHistory {
            switch HistoryAccess.standing(of: location) {
            case .missing: throw .historyUnanswered(.missing(path: location.path))
            case .permissionDenied: throw .historyUnanswered(permissionProblem)
            case .notWritableByItsOwner: throw .historyUnanswered(.notWritableByItsOwner(path: location.path))
            case .readOnlyFileSystem: throw .historyUnanswered(.readOnlyFileSystem(path: location.path))
            case .symbolicLink: throw .historyUnanswered(.symbolicLink(path: location.path))
            case .reachable: break
            }
        }
        // Whatever SQLite creates beside the history (its journal, a new database) must stay
        // writable by the group, or the next member of it is locked out: the daemon's umask.
        umask(0o007)
        do {
            let store = try History(path: location.path)
            return try body(store)
        } catch {
            throw classify(error)
        }
    }

    /// A refused permission: outside the group, the way in is joining it; inside it, the
    /// files are not laid out for the group.
    private var permissionProblem: HistoryProblem {
        HistoryAccess.isInSharedGroup() ? .notSharedWithGroup(path: location.path) : .permissionDenied(path: location.path)
    }

    /// One visit that only reads, inside one read transaction: everything it reads belongs to
    /// one instant of the history, even while the daemon writes.
    public func read<Result>(_ body: (HistorySnapshot) throws -> Result) throws(ControlError) -> Result {
        try visit { store in try store.reading(body) }
    }

    /// What the store threw, as the person needs to hear it.
    public func classify(_ error: any Error) -> ControlError {
        switch error {
        case let error as ControlError:
            return error
        case let error as AuditStoreError:
            return .refusal(Refusal(error))
        case let error as PhoneStoreError:
            return .refusal(.phone(error))
        case let error as HistoryError:
            return .historyUnanswered(problem(from: error))
        default:
            return .historyUnanswered(.failed(path: location.path, detail: String(describing: error)))
        }
    }

    private func problem(from error: HistoryError) -> HistoryProblem {
        let problem = HistoryProblem(error, path: location.path)
        switch problem {
        case .permissionDenied, .notSharedWithGroup, .cannotOpen, .failed:
            // SQLite cannot tell a refused permission from a missing directory; the kernel can.
            return HistoryAccess.refusedByPermission(location) || problem == .permissionDenied(path: location.path)
                ? permissionProblem : problem
        case .missing, .busy, .corrupt, .emptyFile, .symbolicLink, .foreignOwner, .newerSchema, .diskFull, .notWritableByItsOwner, .readOnlyFileSystem, .unreadableRow:
            return problem
        }
    }
}

extension HistoryProblem {
    init(_ error: HistoryError, path: String) {
        switch error {
        case .permissionDenied: self = .permissionDenied(path: path)
        case .cannotOpen(_, let reason): self = .cannotOpen(path: path, detail: reason)
        case .busy: self = .busy(path: path)
        case .corrupt: self = .corrupt(path: path)
        case .emptyFile: self = .emptyFile(path: path)
        case .symbolicLink(let link): self = .symbolicLink(path: link)
        case .foreignOwner(let file, let owner): self = .foreignOwner(path: file, owner: owner)
        case .readOnlyFileSystem: self = .readOnlyFileSystem(path: path)
        case .newerSchema(_, let found, let supported): self = .newerSchema(path: path, found: found, supported: supported)
        case .diskFull: self = .diskFull(path: path)
        case .unreadableRow(let table, let id, let reason): self = .unreadableRow(path: path, table: table, id: id, reason: reason)
        case .failed(_, _, let message): self = .failed(path: path, detail: message)
        }
    }
}

extension Refusal {
    init(_ error: AuditStoreError) {
        switch error {
        // A project is named by the person as text; the history's id is one way of naming it.
        case .projectNotFound(let id): self = .projectNotFound(String(id))
        case .emptyProjectName, .duplicateAllowlistPattern, .sessionNotFound, .sessionAlreadyOpen, .sessionAlreadyEnded,
             .dateBeforeSessionStart, .emptyMarkerLabel:
            self = .audit(error)
        }
    }
}
