import EvidenceSeeding
import Foundation
import TunnelVisionExport
import TunnelVisionStore

/// Seeded histories exported for what is not a test: the sample the foreign tools read
/// (scripts/checks/50-export-with-foreign-tools) and the long session scripts/bench-export
/// measures, seeded and exported by two runs so the export's peak memory is its own.
enum ExportGenerators {
    /// A real export of a small seeded session into DIR/export, signed as a gateway signs with a
    /// key of its own beside the sample (`signing/`); prints the archive's path.
    static func writeSample(into directory: URL, catalogues: URL) throws {
        let seed = try EvidenceSeed.make(
            in: directory.appendingPathComponent("seed"),
            plan: .init(flows: 240, packetsPerFlow: 6, payloadBytes: 300, rotationBytes: 64 * 1024, uncapturedEvery: 50, packetsOutsideSession: true))
        let output = directory.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let keys = GatewayKeys(folder: directory.appendingPathComponent("signing", isDirectory: true))
        _ = try keys.create()
        let result = try EvidenceExporter(
            history: try History(path: seed.databasePath), captureDirectory: seed.captureDirectory, catalogues: catalogues
        ).export(
            sessionID: seed.sessionID, exportedWith: "tvctl sample", now: Date(), output: output,
            sealing: EvidenceSealing(signer: try keys.signer(), hostName: "gw-sample"))
        print("sample export: \(result.url.path)")
    }

    /// The benchmark's session: FLOWS flows (20,000 by default) sharing 400,000 packets (at
    /// least four a flow), so the capture is about the same size at every count and what grows
    /// is the documents; FINDINGS of them each a finding. The recording's id is left in
    /// DIR/session for the export run.
    static func seedBenchmark(into directory: URL, findings: Int, flows: Int) throws {
        let seed = try EvidenceSeed.make(
            in: directory,
            plan: .init(flows: flows, packetsPerFlow: max(4, 400_000 / flows), payloadBytes: 516, rotationBytes: 64 * 1024 * 1024,
                        distinctHostFindings: findings))
        try Data("\(seed.sessionID)\n".utf8).write(to: directory.appendingPathComponent("session"))
    }

    /// Exports the benchmark's session, printing each stage's time and the peak memory so far.
    static func exportBenchmark(from directory: URL, catalogues: URL) throws {
        let text = String(decoding: try Data(contentsOf: directory.appendingPathComponent("session")), as: UTF8.self)
        guard let session = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            fail("no recording id in \(directory.appendingPathComponent("session").path): seed first")
        }
        let output = directory.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let exporter = EvidenceExporter(
            history: try History(path: directory.appendingPathComponent("history.sqlite").path),
            captureDirectory: directory.appendingPathComponent("captures"), catalogues: catalogues)
        let started = ContinuousClock.now
        var stages: [String] = []
        var last = started
        var lastStep = "start"
        let result = try exporter.export(sessionID: session, exportedWith: "bench", now: Date(), output: output) { step in
            let name: String = switch step {
            case .readingHistory: "reading"
            case .writingCapture: "capture"
            case .drawingReport: "report"
            case .compressing: "documents"
            case .finished: "finished"
            }
            guard name != lastStep else { return }
            let now = ContinuousClock.now
            stages.append("\(lastStep) \(now - last) (peak so far \(peakMegabytes()) MB)")
            (last, lastStep) = (now, name)
        }
        let elapsed = ContinuousClock.now - started
        print("stages: " + stages.joined(separator: ", "))
        for member in result.members {
            print("member: \(member.name) \(member.stored ? "stored" : "deflated") \(member.byteCount) -> \(member.compressedCount) bytes")
        }
        print("export: \(elapsed) for \(result.flowCount) flows, \(result.findingCount) findings, "
              + "\(result.capture.packets.written) packets, \(result.byteCount) bytes")
    }

    /// VmHWM: the most this process has held in memory so far.
    static func peakMegabytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
}
