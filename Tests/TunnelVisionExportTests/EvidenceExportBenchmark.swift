import Foundation
import Testing
import TunnelVisionExport
import TunnelVisionStore

/// The export of a long session, run only when asked (scripts/bench-export): one run seeds the
/// history into $TUNNELVISION_BENCH_EXPORT, another exports it, so that the export's peak memory
/// is measured in a process of its own.
struct EvidenceExportBenchmark {
    static let environment = ProcessInfo.processInfo.environment
    static let directory = environment["TUNNELVISION_BENCH_EXPORT"].map { URL(fileURLWithPath: $0, isDirectory: true) }
    static let phase = environment["TUNNELVISION_BENCH_PHASE"] ?? ""

    /// VmHWM: the most this process has held in memory so far.
    static func peakMegabytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    @Test(.enabled(if: directory != nil && phase == "seed"))
    func seed() throws {
        let directory = try #require(Self.directory)
        let findings = Int(Self.environment["TUNNELVISION_BENCH_FINDINGS"] ?? "") ?? 0
        let seed = try EvidenceSeed.make(
            in: directory,
            plan: .init(flows: 20_000, packetsPerFlow: 20, payloadBytes: 516, rotationBytes: 64 * 1024 * 1024,
                        distinctHostFindings: findings))
        try Data("\(seed.sessionID)\n".utf8).write(to: directory.appendingPathComponent("session"))
    }

    @Test(.enabled(if: directory != nil && phase == "export"))
    func export() throws {
        let directory = try #require(Self.directory)
        let session = try #require(Int64(String(decoding: Data(contentsOf: directory.appendingPathComponent("session")), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let output = directory.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let exporter = EvidenceExporter(
            history: try FlowStore(path: directory.appendingPathComponent("history.sqlite").path),
            captureDirectory: directory.appendingPathComponent("captures"), catalogues: EvidenceExporterTests.catalogues)
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
            stages.append("\(lastStep) \(now - last) (peak so far \(Self.peakMegabytes()) MB)")
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
}
