import Foundation
import TunnelVisionEvidence
import TunnelVisionFlows
import TunnelVisionImport
import TunnelVisionModel
import TunnelVisionStore
import TunnelVisionWire

/// tvwire — the wire engine outside the daemon, for checks and measurements.
///   tvwire flows FILE          every flow the engine reads from FILE, as a JSON array of flows.json's flows
///   tvwire history DB          every flow a history holds (all capture sessions), in the same shape
///   tvwire dns-answers DB      every DNS answer a history holds: the flow's row, the name, one address
///   tvwire capture-runs DB     every capture run: input, end, libpcap's drops, the heartbeat's
///   tvwire packets DB          every packet row: run, flow, instant, direction, file and offset
///   tvwire losses DB           the packets the history counts as lost, by reason
///   tvwire publish-ca DB PATH  publish PATH as the daemon's CA certificate, as a daemon with inspection does
///   tvwire parse FILE [ROUNDS] decode every packet (link, IP, transport) only; prints pkt/s
///   tvwire engine FILE [ROUNDS] run the whole flow engine over FILE; prints pkt/s
///   tvwire synthesize OUT COUNT write a raw-IP pcap of COUNT packets over many short flows
///   tvwire flowmemory COUNT    fill a table with COUNT handshaken flows; prints resident memory
///   tvwire seeds TARGET DIR CAPTURES  write fuzz seeds for TARGET cut from the captures
///   tvwire export-sample DIR CATALOGUES  export a small seeded recording into DIR/export
///   tvwire bench-export seed DIR FINDINGS [FLOWS] | export DIR CATALOGUES  the long recording scripts/bench-export measures
///   tvwire gquic DIR             write the built Google QUIC captures (Q043, Q046, Q050, T051) into DIR
///   tvwire writer DIR MEGABYTES  the capture file writer's CPU seconds, and SHA-256's share of them
let arguments = CommandLine.arguments
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}
guard arguments.count >= 3 else {
    fail("usage: tvwire flows|parse|engine FILE [ROUNDS] | synthesize OUT COUNT | relink IN OUT TYPE | flowmemory COUNT")
}

switch arguments[1] {
case "flows":
    do { try printFlows(path: arguments[2]) } catch { fail("\(error)") }
case "history":
    // With a capture run's id, only that run's flows: what a daemon restart split is told apart.
    let run = arguments.count > 3 ? Int64(arguments[3]) : nil
    guard arguments.count <= 3 || run != nil else { fail("usage: tvwire history DB [CAPTURE_RUN]") }
    do { try printStoredFlows(databasePath: arguments[2], captureRun: run) } catch { fail("\(error)") }
case "dns-answers":
    do { try printDNSAnswers(databasePath: arguments[2]) } catch { fail("\(error)") }
case "publish-ca":
    guard arguments.count == 4, FileManager.default.fileExists(atPath: arguments[2]) else { fail("usage: tvwire publish-ca DB PATH (an existing history)") }
    do {
        let store = try History(path: arguments[2])
        var settings = try store.daemonSettings()
        settings.caCertificatePath = arguments[3]
        try store.saveDaemonSettings(settings, at: Date())
    } catch { fail("\(error)") }
case "capture-runs", "packets", "losses":
    // Never creates the file: a history made here would not be the one the daemon starts.
    guard FileManager.default.fileExists(atPath: arguments[2]) else { fail("no history at \(arguments[2])") }
    let read: (String) throws -> Data = switch arguments[1] {
    case "capture-runs": HistoryRows.captureRuns
    case "packets": HistoryRows.packets
    default: HistoryRows.losses
    }
    do { FileHandle.standardOutput.write(try read(arguments[2])) } catch { fail("\(error)") }
case "parse", "engine":
    let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
    do { try measure(path: arguments[2], rounds: rounds, wholeEngine: arguments[1] == "engine") } catch { fail("\(error)") }
case "synthesize":
    guard arguments.count == 4, let count = Int(arguments[3]) else { fail("usage: tvwire synthesize OUT COUNT") }
    SyntheticCapture.write(path: arguments[2], packets: count)
case "seeds":
    guard arguments.count == 5 else { fail("usage: tvwire seeds TARGET DIR CAPTURES") }
    FuzzSeeds.write(target: arguments[2], into: arguments[3], from: arguments[4])
case "export-sample":
    guard arguments.count == 4 else { fail("usage: tvwire export-sample DIR CATALOGUES") }
    do {
        try ExportGenerators.writeSample(
            into: URL(fileURLWithPath: arguments[2], isDirectory: true), catalogues: URL(fileURLWithPath: arguments[3], isDirectory: true))
    } catch { fail("\(error)") }
case "bench-export":
    let usage = "usage: tvwire bench-export seed DIR FINDINGS [FLOWS] | export DIR CATALOGUES"
    guard arguments.count == 5 || arguments.count == 6 else { fail(usage) }
    let directory = URL(fileURLWithPath: arguments[3], isDirectory: true)
    do {
        switch arguments[2] {
        case "seed":
            guard let findings = Int(arguments[4]), let flows = Int(arguments.count == 6 ? arguments[5] : "20000"), flows > 0 else { fail(usage) }
            try ExportGenerators.seedBenchmark(into: directory, findings: findings, flows: flows)
        case "export":
            try ExportGenerators.exportBenchmark(from: directory, catalogues: URL(fileURLWithPath: arguments[4], isDirectory: true))
        default: fail(usage)
        }
    } catch { fail("\(error)") }
case "relink":
    guard arguments.count == 5 else { fail("usage: tvwire relink IN OUT ppp|chdlc|nflog") }
    do { try Relink.write(input: arguments[2], output: arguments[3], kind: arguments[4]) } catch { fail("\(error)") }
case "gquic":
    GoogleQUICCaptures.write(directory: arguments[2])
case "writer":
    guard arguments.count == 4, let megabytes = Int(arguments[3]) else { fail("usage: tvwire writer DIR MEGABYTES") }
    do { try measureWriter(directory: arguments[2], megabytes: megabytes) } catch { fail("\(error)") }
case "flowmemory":
    guard let count = Int(arguments[2]) else { fail("usage: tvwire flowmemory COUNT") }
    measureFlowMemory(flows: count)
default:
    fail("unknown command \(arguments[1])")
}

/// Flows in the one JSON shape a flow has: the bundle's (flows.json), without finding ids, with
/// the relay's facts where it handled the flow.
func printJSON(_ flows: [StoredFlow], relay: [Int64: RelayFacts] = [:]) throws {
    FileHandle.standardOutput.write(try EvidenceJSON.encode(flows.map { EvidenceFlow($0, findingIDs: nil, relay: relay[$0.id]) }, layout: .pretty))
}

func printStoredFlows(databasePath: String, captureRun: Int64?) throws {
    let store = try History(path: databasePath)
    var flows: [StoredFlow] = []
    var relay: [Int64: RelayFacts] = [:]
    for run in try store.captureRuns() where captureRun == nil || run.id == captureRun {
        try store.reading { snapshot in
            flows += try snapshot.flows(inCaptureRun: run.id)
            relay.merge(try snapshot.relayFacts(inCaptureRun: run.id)) { _, last in last }
        }
    }
    try printJSON(flows, relay: relay)
}

func printDNSAnswers(databasePath: String) throws {
    struct Answer: Encodable { let flowID: Int64?; let name: String; let address: String }
    let answers = try History(path: databasePath).reading { try $0.dnsAnswers() }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    FileHandle.standardOutput.write(try encoder.encode(answers.map { Answer(flowID: $0.flowID, name: $0.queryName, address: $0.address) }))
}

func printFlows(path: String) throws {
    let reader = try CaptureImportReader(path: path)
    var engine = FlowEngine()
    var flows: [FlowHandle: FlowState] = [:]
    var order: [FlowHandle] = []
    func absorb(_ batch: HistoryBatch) {
        for upsert in batch.flows {
            if flows[upsert.handle] == nil { order.append(upsert.handle) }
            flows[upsert.handle] = upsert.state
        }
    }
    try reader.forEachPacket { packet in
        guard let time = packet.timestampNanoseconds else { return true }
        engine.process(packet: packet.bytes, linkType: reader.linkType, timestampNanoseconds: time,
                       wireLength: packet.wireLength)
        return true
    }
    absorb(engine.finishAll())
    // The engine's flows have no row yet: each is numbered by the order it was first seen.
    try printJSON(order.enumerated().compactMap { index, handle in
        flows[handle].map { StoredFlow(id: Int64(index + 1), state: $0) }
    })
    let statistics = engine.statistics
    FileHandle.standardError.write(Data("packets \(statistics.packets) undecodable \(statistics.undecodable)\n".utf8))
}
