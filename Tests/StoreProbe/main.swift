// A second OS process for the store's concurrency tests: the tests run it beside themselves
// against the same database file, so that two processes really contend for it.
import Foundation
import TunnelVisionModel
import TunnelVisionStore

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: StoreProbe start-session|write-flows|session-cycle DB ...\n".utf8))
    exit(2)
}
let store: History
do { store = try History(path: arguments[2]) } catch {
    print("error \(error)")
    exit(3)
}

func draft(project: Int64) -> RecordingDraft {
    RecordingDraft(
        projectID: project, kind: .audit(AppRelease(version: "1.0", build: "1")),
        environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "15", toolVersion: "probe"),
        inspection: InspectionConditions(inspectionEnabled: false, caTrusted: false))
}

switch arguments[1] {
case "start-session":
    // Waits for the go file so that both racers start together; a fifth word names the phone.
    let go = arguments[4]
    var request = draft(project: Int64(arguments[3])!)
    if arguments.count > 5 { request.phone = try! store.phone(named: arguments[5])?.phone }
    while !FileManager.default.fileExists(atPath: go) { usleep(200) }
    do {
        let session = try store.startRecording(request, at: Date())
        print("started \(session.id)")
    } catch AuditStoreError.sessionAlreadyOpen(let id) {
        print("alreadyOpen \(id)")
    } catch {
        print("error \(error)")
        exit(1)
    }
case "write-flows":
    // Writes one new flow per batch until the stop file appears; prints how many it wrote.
    let stop = arguments[3]
    let captureRun = try! store.beginCaptureRun(toolVersion: "probe", input: "probe", at: Date())
    var written = 0
    while !FileManager.default.fileExists(atPath: stop) {
        let port = UInt16(truncatingIfNeeded: 1024 + written)
        let key = FlowKey(
            proto: .udp, Endpoint(address: IPAddress(v4: 0x0A4D_0002), port: port),
            Endpoint(address: IPAddress(v4: 0x0A00_0001), port: 53))
        let batch = HistoryBatch(flows: [FlowUpsert(handle: UInt64(written), rowID: nil, state: FlowState(key: key, firstSeen: Instant.now()))])
        do {
            try store.write(batch, captureRun: captureRun.id)
            written += 1
        } catch {
            print("error \(error)")
            exit(1)
        }
    }
    print("wrote \(written)")
case "session-cycle":
    // Starts a session, marks it and ends it, pausing between so the writer runs meanwhile.
    do {
        let session = try store.startRecording(draft(project: Int64(arguments[3])!), at: Date())
        usleep(150_000)
        _ = try store.addMarkerToOpenSession(.consentGiven, at: Date())
        usleep(150_000)
        _ = try store.endRecording(id: session.id, at: Date())
        print("cycled \(session.id)")
    } catch {
        print("error \(error)")
        exit(1)
    }
case "bench":
    // Flows and packet rows per second through `write(_:captureRun:)`, in batches as the
    // daemon writes them: first inserts, then updates of the same flows.
    let flowsPerBatch = Int(arguments[3]) ?? 500, packetsPerFlow = Int(arguments[4]) ?? 10, batches = Int(arguments[5]) ?? 40
    let capture = try! store.beginCaptureRun(toolVersion: "bench", input: "bench", at: Date())
    var rows: [FlowHandle: Int64] = [:]
    func batch(_ index: Int, update: Bool) -> HistoryBatch {
        var result = HistoryBatch()
        for offset in 0..<flowsPerBatch {
            let handle = FlowHandle(index * flowsPerBatch + offset)
            let key = FlowKey(
                proto: .tcp, Endpoint(address: IPAddress(v4: 0x0A4D_0002), port: UInt16(truncatingIfNeeded: handle)),
                Endpoint(address: IPAddress(v4: 0x5DB8_D822 &+ UInt32(truncatingIfNeeded: handle >> 16)), port: 443))
            var state = FlowState(key: key, firstSeen: Instant.now(), tlsStatus: .encrypted, sni: "host\(handle).example.net")
            state.packetCount = UInt64(packetsPerFlow)
            result.flows.append(FlowUpsert(handle: handle, rowID: update ? rows[handle] : nil, state: state))
            for packet in 0..<packetsPerFlow {
                result.packets.append(PacketRecord(
                    flow: handle, timestampNanoseconds: Int64(packet), direction: packet % 2 == 0 ? .outbound : .inbound,
                    wireLength: 1500, location: CaptureLocation(fileSequence: 1, offset: UInt64(24 + packet * 1516))))
            }
        }
        return result
    }
    for pass in ["insert", "update"] {
        let prepared = (0..<batches).map { batch($0, update: pass == "update") }
        let start = Date(), cpuStart = processorSeconds()
        for item in prepared { rows.merge(try! store.write(item, captureRun: capture.id)) { $1 } }
        let seconds = Date().timeIntervalSince(start), cpu = processorSeconds() - cpuStart
        let flows = Double(batches * flowsPerBatch), packets = flows * Double(packetsPerFlow)
        // Rates per processor second: on a shared machine the wall clock counts others' work too.
        print(String(format: "%@\t%d flows/batch\t%.0f flows/s\t%.0f packets/s\t%.2f s\t%.2f cpu-s",
                     pass, flowsPerBatch, flows / cpu, packets / cpu, seconds, cpu))
    }
default:
    exit(2)
}

/// User and system time of this process so far.
func processorSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
