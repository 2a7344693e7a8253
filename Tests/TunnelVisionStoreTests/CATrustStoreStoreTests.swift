import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

@Suite("Where the CA was declared installed, in the history")
struct CATrustStoreStoreTests {
    @Test("Every store reads back as it was declared", arguments: CATrustStore.allCases)
    func storeRoundTrips(_ caStore: CATrustStore) throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        draft.inspection = InspectionConditions(mode: .pinning, caTrusted: true, caStore: caStore)
        let session = try store.startAuditSession(draft, at: at(1))
        #expect(try store.auditSession(id: session.id)?.inspection.caStore == caStore)
    }

    @Test("A session declared trusted before the store was asked names none; an unknown store is unreadable")
    func withoutOrWithAnUnknownStore() throws {
        let store = try TemporaryDatabase().open()
        let project = try store.createAuditProject(projectDraft(), at: at(0))
        var draft = sessionDraft(project: project.id)
        draft.inspection = InspectionConditions(mode: .pinning, caTrusted: true)
        let session = try store.startAuditSession(draft, at: at(1))
        let read = try #require(try store.auditSession(id: session.id))
        #expect(read.inspection.caTrusted && read.inspection.caStore == nil)
        try store.access { try $0.execute("UPDATE audit_sessions SET ca_store = 'keychain'") }
        #expect(throws: HistoryError.unreadableRow(table: "audit_sessions", id: session.id, reason: "unknown CA store \"keychain\"")) {
            try store.auditSession(id: session.id)
        }
    }

    @Test("A store is never kept for a CA not declared trusted")
    func noStoreWithoutTrust() {
        #expect(InspectionConditions(mode: .pinning, caTrusted: false, caStore: .system).caStore == nil)
    }
}
