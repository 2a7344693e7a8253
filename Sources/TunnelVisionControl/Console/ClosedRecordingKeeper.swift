import Foundation
import TunnelVisionAudit
import TunnelVisionModel
import TunnelVisionStore

/// What a page made of a closed recording, kept until something it was made from changes.
/// Assessing every flow of a large recording costs what `tvctl findings` costs; an ended
/// recording rarely changes, but it can: a flow of it flushed again (the connection outlived
/// the recording), its project's allowlist edited, its catalogue replaced, a marker added or
/// the session's own row changed. Each of these is part of the key, read again at every use in
/// one transaction, so a kept page is never older than the history it claims to show.
public final class ClosedRecordingKeeper<Value: Sendable>: @unchecked Sendable {
    /// What a kept value was made from.
    struct Basis: Equatable {
        let session: Recording
        let project: AuditProject?
        let markers: [SessionMarker]
        let catalogue: RequirementCatalogue?
        let flowCount: Int
    }

    struct Kept {
        let basis: Basis
        /// Every flow change after this marker was made after the value.
        let marker: FlowChangeMarker
        let value: Value
    }

    private let lock = NSLock()
    private var kept: [Int64: Kept] = [:]
    private var order: [Int64] = []
    private let capacity: Int
    private let library: ControlLibrary

    public init(library: ControlLibrary, capacity: Int = 16) {
        self.library = library
        self.capacity = capacity
    }

    /// The value made for an ended session, made anew by `make` when none is kept or something
    /// it was made from changed. An open session is never kept: `make` runs every time; nor is
    /// a value `keeps` turns down (a refusal that may not hold at the next try).
    public func value(
        forSession id: Int64, keeps: (Value) -> Bool = { _ in true }, make: () throws(ControlError) -> Value
    ) throws(ControlError) -> Value {
        let earlier = lock.withLock { kept[id] }
        let (basis, changedSince, marker) = try library.read { store throws -> (Basis, Bool, FlowChangeMarker) in
            let session = try SessionReference.session(id, in: store)
            let project = try store.auditProject(id: session.projectID)
            let basis = Basis(
                session: session, project: project, markers: try store.markers(forSession: id), catalogue: nil,
                flowCount: try store.flowCount(inRecording: id))
            let changed = try earlier.map { try !store.flowsChanged(inRecording: id, after: $0.marker).flows.isEmpty } ?? true
            return (basis, changed, try store.flowChangeMarker())
        }
        let catalogue = try basis.project.map { project throws(ControlError) in try CatalogueCommands.catalogue(for: project) }
        let current = Basis(session: basis.session, project: basis.project, markers: basis.markers, catalogue: catalogue, flowCount: basis.flowCount)
        if let earlier, !changedSince, earlier.basis == current { return earlier.value }
        // The marker was read before `make` reads: a change in between is seen at the next use.
        let value = try make()
        guard !current.session.isOpen, keeps(value) else { return value }
        lock.withLock {
            if kept.updateValue(Kept(basis: current, marker: marker, value: value), forKey: id) == nil { order.append(id) }
            while order.count > capacity { kept[order.removeFirst()] = nil }
        }
        return value
    }
}
