import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// An update sets only the columns it may change; the row it leaves must be the one the update
/// of every column leaves, whatever the stored row and the new readings hold.
@Suite struct FlowUpdateColumnsTests {
    /// A flow whose every reading is, at random, absent or one of two values.
    static func randomFlow(key: FlowKey, using random: inout some RandomNumberGenerator) -> FlowState {
        func maybe<T>(_ values: [T]) -> T? { Int.random(in: 0...values.count, using: &random) == 0 ? nil : values.randomElement(using: &random) }
        let rich = FlowRowTests.richFlow()
        var state = FlowState(key: key, firstSeen: Instant(at(Double.random(in: 0...9, using: &random))))
        state.lastSeen = state.firstSeen.addingTimeInterval(Double.random(in: 0...9, using: &random))
        state.bytesOut = UInt64.random(in: 0...9_999, using: &random)
        state.packetCount = UInt64.random(in: 1...99, using: &random)
        state.tlsStatus = [.plaintext, .encrypted, .notInspectable].randomElement(using: &random)!
        state.sni = maybe(["a.example", "b.example"])
        state.resolvedName = maybe([ResolvedName(name: "a.example", otherNames: ["c.example"]), ResolvedName(name: "b.example")])
        state.serverTLS = maybe([rich.serverTLS!, .refused(alert: 40), .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301)))])
        state.serverCertificates = maybe([rich.serverCertificates!, .notSent(.resumedSession)])
        state.clientTLS = maybe([rich.clientTLS!, ClientTLSOffer(versionsForm: .upTo, versions: [.tls12], applicationProtocols: [],
                                                                  omittedApplicationProtocols: 0, droppedIdentifiers: 0, hasEncryptedClientHello: false)])
        state.quic = maybe([QUICReading(version: .v1, end: .client), QUICReading(version: .v2, end: .server, firstVersion: .v1)])
        state.streamOpening = maybe([.tlsHandshake, .unrecognised])
        state.httpHost = maybe(["h.example", "i.example"])
        state.tcpPayload = maybe([.noneSinceStart, .carried])
        state.socksHost = maybe(["s.example", "t.example"])
        state.continuation = maybe([.openedBeforeCapture, .openedBeforeRecord])
        state.proxyProtocol = maybe([ProxyProtocolAnnouncement(version: 2, source: nil, destination: nil)])
        return state
    }

    static func rows(_ store: History) throws -> [String] {
        // Every column of the table, as SQLite quotes it (type and value).
        try store.access { db in
            let names = try db.statement("SELECT name FROM pragma_table_info('flows') ORDER BY cid").rows { $0.text(0) }
            let row = names.map { "quote(\($0))" }.joined(separator: " || '|' || ")
            return try db.statement("SELECT \(row) FROM flows ORDER BY id").rows { $0.text(0) }
        }
    }

    @Test func anUpdateOfTheChangeableColumnsLeavesTheRowTheFullUpdateLeaves() throws {
        var random = SystemRandomNumberGenerator()
        let written = TemporaryDatabase(), reference = TemporaryDatabase()
        let store = try written.open(), full = try reference.open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        _ = try full.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let phone = Endpoint(address: IPAddress("fd00::2")!, port: 50_000)
        for round in 0..<300 {
            let key = FlowKey(proto: .tcp, phone, Endpoint(address: IPAddress("2001:db8::443")!, port: UInt16(1 + round)))
            let first = Self.randomFlow(key: key, using: &random)
            let id = try store.insert([first], captureRun: capture.id)[0]
            #expect(try full.insert([first], captureRun: capture.id)[0] == id)
            for _ in 0..<3 {
                let later = Self.randomFlow(key: key, using: &random)
                try store.write(HistoryBatch(flows: [FlowUpsert(handle: 0, rowID: id, state: later)]), captureRun: capture.id)
                var texts = FlowTexts()
                let values = FlowColumns.values(of: later, withKey: false, texts: &texts)
                try full.access { db in
                    let change = try db.statement("SELECT MAX(changed) + 1 FROM flows").firstRow { $0.int64(0) }!
                    try db.statement(FlowColumns.updateSQL(leavingOut: 0)).bind([.integer(id)] + values + [.null, .integer(change)]).run()
                }
            }
        }
        let rows = try Self.rows(store)
        #expect(rows.count == 300)
        #expect(rows == (try Self.rows(full)))
    }
}
