import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionStore

/// What a TCP connection carried, and which message of a retried answer was read,
/// survive the history; and readings stored before the two were told apart say so.
struct TruthfulReadingsTests {
    static func tcpFlow(payload: TCPPayloadSighting?) -> FlowState {
        var state = FlowState(
            key: FlowKey(proto: .tcp, Endpoint(address: IPAddress("10.77.0.2")!, port: 41_000),
                         Endpoint(address: IPAddress("192.0.2.7")!, port: 443)),
            firstSeen: Instant(at(1)), tlsStatus: .encrypted)
        state.tcpPayload = payload
        return state
    }

    @Test func whatAConnectionCarriedIsRaisedAndNeverLowered() throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        let id = try store.insert([Self.tcpFlow(payload: .noneSinceStart)], captureRun: capture.id)[0]
        #expect(try store.flow(id: id)?.tcpPayload == .noneSinceStart)
        for (next, expected) in [(TCPPayloadSighting?.none, TCPPayloadSighting.noneSinceStart), (.carried, .carried), (nil, .carried), (.noneSinceStart, .carried)] {
            try store.write(HistoryBatch(flows: [FlowUpsert(handle: 0, rowID: id, state: Self.tcpFlow(payload: next))]), captureRun: capture.id)
            #expect(try store.flow(id: id)?.tcpPayload == expected, "after \(String(describing: next))")
        }
    }

    @Test(arguments: HelloRetryReading.allCases)
    func whichMessageOfARetriedAnswerWasReadRoundTrips(retry: HelloRetryReading) throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        var state = Self.tcpFlow(payload: .carried)
        state.serverTLS = .negotiated(TLSNegotiation(version: .tls13, cipherSuite: CipherSuite(0x1301), helloRetry: retry))
        let id = try store.insert([state], captureRun: capture.id)[0]
        #expect(try store.flow(id: id)?.serverTLS?.negotiation?.helloRetry == retry)
    }

    /// Before this step, 1 meant "a retry was part of the answer", whichever message was read.
    @Test func aRetryStoredBeforeTheyWereToldApartIsMarkedSoAndPayloadIsUnknown() throws {
        let db = TemporaryDatabase()
        let step = try #require(Schema.migrations.firstIndex { $0.contains("tcp_payload") })
        let old = try History(path: db.path, migratingTo: step)
        let capture = try old.beginCaptureRun(toolVersion: "0.1", input: "tun:tv0", at: at(0))
        try old.access { db in
            try db.execute("""
                INSERT INTO flows (session, protocol, a_address, a_port, b_address, b_port, first_seen, last_seen,
                    server_answer, server_version, server_cipher, server_from_hrr, server_source)
                VALUES (\(capture.id), 6, '10.77.0.2', 41000, '192.0.2.7', 443, 1, 1, 0, 772, 4865, 1, 0),
                       (\(capture.id), 6, '10.77.0.2', 41001, '192.0.2.7', 443, 1, 1, 0, 772, 4865, 0, 0)
                """)
        }
        let migrated = try db.open()
        let flows = try migrated.reading { snapshot in try [1, 2].map { try snapshot.flow(id: $0) } }
        #expect(flows.map { $0?.serverTLS?.negotiation?.helloRetry } == [.notToldApart, nil])
        #expect(flows.map { $0?.tcpPayload } == [nil, nil])
    }
}

/// Whether a record continues a connection opened before it survives the history, decided once;
/// a flow stored before the fact was kept says nothing.
struct ContinuationStoreTests {
    @Test(arguments: FlowContinuation.allCases)
    func aContinuationRoundTripsAndStays(kind: FlowContinuation) throws {
        let store = try TemporaryDatabase().open()
        let capture = try store.beginCaptureRun(toolVersion: "t", input: "i", at: at(0))
        var state = TruthfulReadingsTests.tcpFlow(payload: .carried)
        state.continuation = kind
        let id = try store.insert([state], captureRun: capture.id)[0]
        #expect(try store.flow(id: id)?.continuation == kind)
        state.continuation = nil
        try store.write(HistoryBatch(flows: [FlowUpsert(handle: 0, rowID: id, state: state)]), captureRun: capture.id)
        #expect(try store.flow(id: id)?.continuation == kind)
    }

    @Test func aFlowStoredBeforeTheStepIsNoContinuation() throws {
        let db = TemporaryDatabase()
        let step = try #require(Schema.migrations.firstIndex { $0.contains("ADD COLUMN continuation") })
        let old = try History(path: db.path, migratingTo: step)
        let capture = try old.beginCaptureRun(toolVersion: "0.1", input: "tun:tv0", at: at(0))
        try old.access { db in
            try db.execute("""
                INSERT INTO flows (session, protocol, a_address, a_port, b_address, b_port, first_seen, last_seen)
                VALUES (\(capture.id), 6, '10.77.0.2', 41000, '192.0.2.7', 443, 1, 1)
                """)
        }
        let migrated = try db.open()
        #expect(try migrated.flow(id: 1)?.continuation == nil)
        #expect(try migrated.flow(id: 1) != nil)
    }
}
