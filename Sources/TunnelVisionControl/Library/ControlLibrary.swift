import TunnelVisionModel
import TunnelVisionStore

/// The library under the commands, as the spec's AuditLibrary is under the app's screens: it
/// opens the store for one operation and classifies whatever that operation throws into a
/// rule the person can act on or a history that did not answer.
public struct ControlLibrary: Sendable {
    public let location: DatabaseLocation

    public init(location: DatabaseLocation) {
        self.location = location
    }

    /// One visit to the history. Only a command that seeds a history may create the file:
    /// every other command would leave an empty database behind a mistyped path.
    public func visit<Result>(
        creatingHistory: Bool = false, _ body: (FlowStore) throws -> Result
    ) throws(ControlError) -> Result {
        if !creatingHistory {
            switch HistoryAccess.standing(of: location) {
            case .missing: throw .historyUnanswered(.missing(path: location.path))
            case .permissionDenied: throw .historyUnanswered(.permissionDenied(path: location.path))
            case .reachable: break
            }
        }
        do {
            let store = try FlowStore(path: location.path)
            return try body(store)
        } catch {
            throw classify(error)
        }
    }

    /// What the store threw, as the person needs to hear it.
    public func classify(_ error: any Error) -> ControlError {
        switch error {
        case let error as ControlError:
            return error
        case let error as AuditStoreError:
            return .refusal(Refusal(error))
        case let error as HistoryError:
            return .historyUnanswered(problem(from: error))
        default:
            return .historyUnanswered(.failed(path: location.path, detail: String(describing: error)))
        }
    }

    private func problem(from error: HistoryError) -> HistoryProblem {
        let problem = HistoryProblem(error, path: location.path)
        switch problem {
        case .permissionDenied, .cannotOpen, .failed:
            // SQLite cannot tell a refused permission from a missing directory; the kernel can.
            return HistoryAccess.refusedByPermission(location) ? .permissionDenied(path: location.path) : problem
        case .missing, .locked, .corrupt:
            return problem
        }
    }
}

extension Refusal {
    init(_ error: AuditStoreError) {
        switch error {
        case .emptyProjectName: self = .emptyProjectName
        case .duplicateAllowlistPattern(let pattern): self = .duplicateAllowlistPattern(pattern)
        case .projectNotFound(let id): self = .projectNotFound(String(id))
        case .sessionNotFound(let id): self = .sessionNotFound(id)
        case .sessionAlreadyOpen(let id): self = .sessionAlreadyOpen(id)
        case .sessionAlreadyEnded(let id): self = .sessionAlreadyEnded(id)
        case .dateBeforeSessionStart: self = .dateBeforeSessionStart
        case .emptyMarkerLabel: self = .emptyMarkerLabel
        }
    }
}
