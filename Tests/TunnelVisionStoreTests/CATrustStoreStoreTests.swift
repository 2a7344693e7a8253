import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

@Suite("Where the CA was declared installed, in the history")
struct CATrustStoreStoreTests {
    /// A pinning recording declared trusted in this store (nil: before the store was asked).
    static func started(in caStore: CATrustStore?) throws -> (History, Recording) {
        let store = try TemporaryDatabase().open()
        var draft = sessionDraft(project: try store.createAuditProject(projectDraft(), at: at(0)).id)
        draft.inspection = InspectionConditions(mode: .pinning, caTrusted: true, caStore: caStore)
        return (store, try store.startRecording(draft, at: at(1)))
    }

    @Test("Every store reads back as it was declared", arguments: CATrustStore.allCases)
    func storeRoundTrips(_ caStore: CATrustStore) throws {
        let (store, session) = try Self.started(in: caStore)
        #expect(try store.recording(id: session.id)?.inspection.caStore == caStore)
    }

    @Test("A session declared trusted before the store was asked names none; an unknown store is unreadable")
    func withoutOrWithAnUnknownStore() throws {
        let (store, session) = try Self.started(in: nil)
        let read = try #require(try store.recording(id: session.id))
        #expect(read.inspection.caTrusted && read.inspection.caStore == nil)
        try store.access { try $0.execute("UPDATE audit_sessions SET ca_store = 'keychain'") }
        #expect(throws: HistoryError.unreadableRow(table: "audit_sessions", id: session.id, reason: "unknown CA store \"keychain\"")) {
            try store.recording(id: session.id)
        }
    }

    @Test("A store is never kept for a CA not declared trusted")
    func noStoreWithoutTrust() {
        #expect(InspectionConditions(mode: .pinning, caTrusted: false, caStore: .system).caStore == nil)
    }
}
