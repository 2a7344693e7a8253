import Foundation
import Testing
import TunnelVisionExport
import TunnelVisionStore

/// Writes a real export of a seeded session into $TUNNELVISION_EXPORT_SAMPLE, for the checks
/// that read it with tools that are not ours (scripts/checks/50-export-with-foreign-tools) and
/// for looking at the report's pages; check 51 verifies its signature. Runs only when asked.
struct EvidenceExportSample {
    static let target = ProcessInfo.processInfo.environment["TUNNELVISION_EXPORT_SAMPLE"]

    @Test(.enabled(if: target != nil))
    func writeASampleExport() throws {
        let directory = URL(fileURLWithPath: try #require(Self.target), isDirectory: true)
        let seed = try EvidenceSeed.make(
            in: directory.appendingPathComponent("seed"),
            plan: .init(flows: 240, packetsPerFlow: 6, payloadBytes: 300, rotationBytes: 64 * 1024, uncapturedEvery: 50, packetsOutsideSession: true))
        let output = directory.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        // Signed as a gateway signs, with a key of its own beside the sample (`signing/`).
        let keys = GatewayKeys(folder: directory.appendingPathComponent("signing", isDirectory: true))
        _ = try keys.create()
        let result = try EvidenceExporter(
            history: try FlowStore(path: seed.databasePath), captureDirectory: seed.captureDirectory,
            catalogues: EvidenceExporterTests.catalogues
        ).export(
            sessionID: seed.sessionID, exportedWith: "tvctl sample", now: Date(), output: output,
            sealing: EvidenceSealing(signer: try keys.signer(), hostName: "gw-sample"))
        print("sample export: \(result.url.path)")
    }
}
