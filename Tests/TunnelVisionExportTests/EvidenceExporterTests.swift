import EvidenceSeeding
import Foundation
import Testing
import TunnelVisionEvidence
@testable import TunnelVisionExport
import TunnelVisionModel
import TunnelVisionStore

struct EvidenceExporterTests {
    static let catalogues = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Catalogues")
    static let now = Date(timeIntervalSince1970: 1_791_560_000.5)

    struct Export {
        let scratch: ScratchDirectory
        let seed: EvidenceSeed
        let output: URL
        let result: EvidenceExportResult

        /// The archive unpacked by unzip, and the folder inside it.
        func unpacked() throws -> URL {
            let target = scratch.url.appendingPathComponent("unpacked-\(UUID().uuidString)")
            _ = try ForeignTool.run("unzip", ["-q", result.url.path, "-d", target.path])
            return target.appendingPathComponent(result.url.deletingPathExtension().lastPathComponent)
        }
    }

    static func export(
        plan: EvidenceSeed.Plan = .init(), now: Date = now, prepare: (EvidenceSeed) throws -> Void = { _ in },
        sealingWith sealed: (ScratchDirectory) throws -> EvidenceSealing = { _ in .unsigned }
    ) throws -> Export {
        let scratch = try ScratchDirectory()
        let sealing = try sealed(scratch)
        let seed = try EvidenceSeed.make(in: scratch.url.appendingPathComponent("seed"), plan: plan)
        try prepare(seed)
        let output = scratch.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let exporter = EvidenceExporter(history: try History(path: seed.databasePath), captureDirectory: seed.captureDirectory, catalogues: catalogues)
        let result = try exporter.export(sessionID: seed.sessionID, exportedWith: "tvctl 1.0.0-test", now: now, output: output, sealing: sealing)
        return Export(scratch: scratch, seed: seed, output: output, result: result)
    }

    @Test func aClosedSessionBecomesOneZipWithOneFolderOfEightFiles() throws {
        let export = try Self.export()
        let name = "tunnelvision-evidence-session-\(export.seed.sessionID)-20261009-153320"
        #expect(export.result.url.lastPathComponent == name + ".zip")
        #expect(try FileManager.default.contentsOfDirectory(atPath: export.output.path) == [name + ".zip"])
        let mode = try FileManager.default.attributesOfItem(atPath: export.result.url.path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        let files = ["capture.json", "capture.pcapng", "findings.json", "flows.csv", "flows.json", "manifest.json", "report.pdf", "session.json"]
        #expect(export.result.fileNames == files)
        let listing = try ForeignTool.run("unzip", ["-Z1", export.result.url.path]).split(separator: "\n").map(String.init)
        #expect(listing.sorted() == ([name + "/"] + files.map { name + "/" + $0 }).sorted())
        _ = try ForeignTool.run("unzip", ["-tq", export.result.url.path])
        #expect(export.result.flowCount == 24)
        #expect(export.result.findingCount > 0)
        #expect(export.result.captureStanding == .complete(packets: 240))
        #expect(export.result.byteCount == UInt64(try Data(contentsOf: export.result.url).count))
    }

    @Test func theCaptureIsStoredAndEveryOtherFileDeflatedAsZipfileReadsThem() throws {
        let export = try Self.export()
        let script = """
            import sys, zipfile
            for info in zipfile.ZipFile(sys.argv[1]).infolist():
                if not info.is_dir():
                    print(info.filename.split("/")[-1], "stored" if info.compress_type == zipfile.ZIP_STORED else "deflated", info.file_size, info.compress_size)
            """
        let listing = try ForeignTool.run("python3", ["-c", script, export.result.url.path]).split(separator: "\n").map(String.init)
        let members = export.result.members.sorted { $0.name < $1.name }
        #expect(listing == members.map { "\($0.name) \($0.stored ? "stored" : "deflated") \($0.byteCount) \($0.compressedCount)" })
        #expect(members.filter(\.stored).map(\.name) == ["capture.pcapng"])
        #expect(members.map(\.name) == export.result.fileNames)
    }

    @Test func theManifestAgreesWithSha256sum() throws {
        let export = try Self.export()
        let folder = try export.unpacked()
        let manifest = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("manifest.json"))) as? [String: Any])
        let entries = try #require(manifest["files"] as? [[String: Any]])
        #expect(entries.compactMap { $0["name"] as? String } == export.result.fileNames.filter { $0 != "manifest.json" })
        let check = entries.map { "\($0["sha256"] as? String ?? "")  \($0["name"] as? String ?? "")" }.joined(separator: "\n") + "\n"
        try Data(check.utf8).write(to: folder.appendingPathComponent("SHA256SUMS"))
        let verdicts = try ForeignTool.run("sha256sum", ["-c", "SHA256SUMS"], in: folder)
        #expect(verdicts.split(separator: "\n").count == 7)
        #expect(verdicts.split(separator: "\n").allSatisfy { $0.hasSuffix(": OK") })
        for entry in entries {
            let size = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(entry["name"] as? String ?? "").path)[.size] as? Int
            #expect(size == entry["byteCount"] as? Int)
        }
    }

    @Test func tsharkReadsEveryWrittenPacketWithItsCommentAndDirection() throws {
        let export = try Self.export(plan: .init(uncapturedEvery: 4, packetsOutsideSession: true))
        let folder = try export.unpacked()
        let lines = try ForeignTool.run("tshark", [
            "-r", folder.appendingPathComponent("capture.pcapng").path, "-T", "fields",
            "-e", "frame.comment", "-e", "frame.p2p_dir", "-e", "ip.src", "-E", "separator=|",
        ]).split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        #expect(lines.count == export.result.capture.packets.written)
        let flows = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("flows.json"))) as? [String: Any])
        let findingIDs = Dictionary(uniqueKeysWithValues: (flows["flows"] as? [[String: Any]] ?? []).map {
            ($0["id"] as? Int ?? 0, ($0["findingIDs"] as? [String]) ?? [])
        })
        for fields in lines {
            let comment = fields[0]
            let flow = Int(comment.dropFirst("flow=".count).prefix { $0.isNumber }) ?? -1
            let ids = findingIDs[flow] ?? []
            #expect(comment == (ids.isEmpty ? "flow=\(flow)" : "flow=\(flow) findings=\(ids.joined(separator: ","))"))
            // p2p_dir: 0 outgoing, 1 incoming; outgoing is what the phone sent.
            #expect(fields[1] == (fields[2] == "10.77.0.2" ? "0" : "1"), "\(fields)")
        }
    }

    @Test func whatTheCaptureLacksIsCountedWithItsReason() throws {
        var missingPackets = 0
        let export = try Self.export(plan: .init(uncapturedEvery: 4, packetsOutsideSession: true)) { seed in
            let store = try History(path: seed.databasePath)
            let sequences = try store.reading { try $0.captureFileSequences(inRecording: seed.sessionID) }.sorted()
            let files = try store.reading { try $0.captureFiles() }
            let victim = try #require(files.first { $0.sequence == sequences[1] })
            missingPackets = try store.reading { try $0.capturedPackets(inRecording: seed.sessionID, fileSequence: victim.sequence) }.count
            try FileManager.default.removeItem(atPath: victim.path)
        }
        let capture = export.result.capture
        let uncaptured = (0..<24).filter { $0 % 4 == 0 }.count
        #expect(capture.packets.count(.notCaptured) == uncaptured)
        #expect(capture.packets.count(.captureFileMissing) == missingPackets && missingPackets > 0)
        // The seed's packet after the session's end is cut: counted, not held (EvidenceCutTests).
        #expect(capture.packets.recorded == 240)
        #expect(capture.packets.written == 240 - uncaptured - missingPackets)
        #expect(capture.sourceFiles.filter { $0.standing == .missing }.map(\.packets) == [missingPackets])
        #expect(capture.flows.map(\.packets.recorded).reduce(0, +) == 240)
        #expect(capture.writtenOutsideSession.afterEnd == 0)
        #expect(capture.packetsAfterEnd == 1)
        #expect(capture.writtenOutsideSession.beforeStart == 9)
        guard case .incomplete(let written, let recorded, let missing, let withoutRow) = export.result.captureStanding, withoutRow.isEmpty else {
            Issue.record("standing: \(export.result.captureStanding)")
            return
        }
        #expect(written == capture.packets.written && recorded == 240)
        #expect(missing.map(\.reason) == [.notCaptured, .captureFileMissing])
    }

    @Test func twoExportsOfOneSessionDifferOnlyWhereTheExportDoes() throws {
        let first = try Self.export()
        let exporter = EvidenceExporter(history: try History(path: first.seed.databasePath), captureDirectory: first.seed.captureDirectory, catalogues: Self.catalogues)
        let again = try exporter.export(sessionID: first.seed.sessionID, exportedWith: "tvctl 1.0.0-test", now: Self.now.addingTimeInterval(61), output: first.output)
        #expect(try FileManager.default.contentsOfDirectory(atPath: first.output.path).count == 2)
        let one = try first.unpacked()
        let other = try Export(scratch: first.scratch, seed: first.seed, output: first.output, result: again).unpacked()
        for name in ["capture.pcapng", "capture.json", "flows.json", "flows.csv", "findings.json"] {
            #expect(try Data(contentsOf: one.appendingPathComponent(name)) == Data(contentsOf: other.appendingPathComponent(name)), "\(name)")
        }
        let session = { (folder: URL) in
            String(decoding: try Data(contentsOf: folder.appendingPathComponent("session.json")), as: UTF8.self)
                .split(separator: "\n").filter { !$0.contains("exportedAt") }
        }
        #expect(try session(one) == session(other))
    }

    // The second export in one second was told to check the disk's space.
    @Test func anExportInTheSameSecondAsTheLastIsToldSoAndKeepsTheFirst() throws {
        let first = try Self.export()
        let exporter = EvidenceExporter(history: try History(path: first.seed.databasePath), captureDirectory: first.seed.captureDirectory, catalogues: Self.catalogues)
        #expect(throws: EvidenceExportError.bundleExists(first.result.url.path)) {
            try exporter.export(sessionID: first.seed.sessionID, exportedWith: "tvctl 1.0.0-test", now: Self.now.addingTimeInterval(0.2), output: first.output)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: first.output.path) == [first.result.url.lastPathComponent])
    }

    /// A bundle carries TLS secrets only for a recording started with --keep-keys; asked for keys
    /// a recording never kept, the export is refused in one sentence and leaves nothing behind.
    @Test(arguments: [false, true]) func withKeysExportsTheKeptSecretsOrSaysNoneWereKept(keeps: Bool) throws {
        let scratch = try ScratchDirectory()
        let seed = try EvidenceSeed.make(in: scratch.url.appendingPathComponent("seed"), plan: .init(flows: 3, keepsKeys: keeps))
        let output = scratch.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let exporter = EvidenceExporter(history: try History(path: seed.databasePath), captureDirectory: seed.captureDirectory, catalogues: Self.catalogues)
        guard keeps else {
            #expect(throws: EvidenceExportError.keysNotKept) {
                try exporter.export(sessionID: seed.sessionID, exportedWith: "t", now: Self.now, output: output, withKeys: true)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == [])
            // Without --with-keys the same recording exports, holding no secrets.
            let plain = try exporter.export(sessionID: seed.sessionID, exportedWith: "t", now: Self.now, output: output)
            #expect(!(try Data(contentsOf: plain.url)).containsBytes(Array("CLIENT_RANDOM".utf8)))
            return
        }
        let result = try exporter.export(sessionID: seed.sessionID, exportedWith: "t", now: Self.now, output: output, withKeys: true)
        let export = Export(scratch: scratch, seed: seed, output: output, result: result)
        let folder = try export.unpacked()
        let session = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("session.json"))) as? [String: Any])
        let inspection = try #require((session["session"] as? [String: Any])?["inspection"] as? [String: Any])
        #expect(inspection["keepKeys"] as? Bool == true)
        #expect(session["notIncluded"] as? String == EvidenceWording.Note.notIncluded(keyLog: EvidenceKeyLog(included: true, flows: 1)))
        #expect(try Data(contentsOf: folder.appendingPathComponent("capture.pcapng")).containsBytes(Array("CLIENT_RANDOM 0a0b 0c0d".utf8)))
    }

    @Test func refusalsLeaveNothingBehind() throws {
        let scratch = try ScratchDirectory()
        let seed = try EvidenceSeed.make(in: scratch.url.appendingPathComponent("seed"), plan: .init(flows: 3))
        let output = scratch.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let stale = output.appendingPathComponent(EvidenceStaging.prefix + "2147483646-deadbeef")
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: true)
        let store = try History(path: seed.databasePath)
        let exporter = EvidenceExporter(history: store, captureDirectory: seed.captureDirectory, catalogues: Self.catalogues)
        let seeded = try #require(try store.recording(id: seed.sessionID))
        let project = try #require(try store.auditProject(id: seeded.projectID))
        let open = try store.startRecording(
            RecordingDraft(projectID: project.id, kind: .baseline,
                              environment: AuditEnvironment(deviceModel: "Pixel 8", osVersion: "15", toolVersion: "0.9.0"),
                              inspection: InspectionConditions(inspectionEnabled: false, caTrusted: false)),
            at: seed.end.addingTimeInterval(100))

        let cases: [(Int64, URL, URL?, EvidenceExportError)] = [
            (open.id, output, seed.captureDirectory, .sessionStillOpen),
            (9_999, output, seed.captureDirectory, .sessionNotFound),
            (seed.sessionID, output.appendingPathComponent("nowhere"), seed.captureDirectory, .outputUnavailable(output.appendingPathComponent("nowhere").path)),
            (seed.sessionID, output, scratch.url.appendingPathComponent("no-captures"), .captureDirectoryUnavailable(scratch.url.appendingPathComponent("no-captures").path)),
        ]
        for (session, target, captures, error) in cases {
            let exporter = EvidenceExporter(history: store, captureDirectory: captures, catalogues: Self.catalogues)
            #expect(throws: error) { try exporter.export(sessionID: session, exportedWith: "t", now: Self.now, output: target) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == [], "after \(error)")
        }
        _ = try store.endRecording(id: open.id, at: seed.end.addingTimeInterval(200))
        _ = try store.updateAuditProject(id: project.id, with: AuditProjectDraft(name: project.name, catalogueVersion: "tr-03161-1_9.9"))
        #expect(throws: EvidenceExportError.catalogueNotBundled(identifier: "tr-03161-1_9.9")) {
            try exporter.export(sessionID: seed.sessionID, exportedWith: "t", now: Self.now, output: output)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == [])
    }

    @Test func aPacketOfAFlowTheDocumentsDoNotListStopsTheCapture() throws {
        let scratch = try ScratchDirectory()
        let seed = try EvidenceSeed.make(in: scratch.url.appendingPathComponent("seed"), plan: .init(flows: 2))
        let store = try History(path: seed.databasePath)
        let (project, session, markers, flows, counts) = try store.reading { snapshot in
            let session = try #require(try snapshot.recording(id: seed.sessionID))
            let project = try #require(try snapshot.auditProject(id: session.projectID))
            return (project, session,
                    try snapshot.markers(forSession: session.id), try snapshot.flows(inRecording: session.id),
                    try snapshot.packetCounts(inRecording: session.id))
        }
        let catalogue = try RequirementCatalogueLibraryAccess.catalogue(in: Self.catalogues)
        let partial = try EvidenceBundle(
            project: project, session: session, markers: markers, flows: Array(flows.prefix(1)), catalogue: catalogue,
            exportedWith: "t", exportedAt: Self.now)
        let archive = try EvidenceArchive(url: scratch.url.appendingPathComponent("partial.zip"), folder: "partial", modifiedAt: Self.now)
        #expect(throws: EvidenceCaptureError.flowNotInBundle(id: flows[1].id)) {
            try EvidenceCaptureWriter.write(
                for: partial, packetCounts: counts, sources: EvidenceCaptureSources(files: [], directory: seed.captureDirectory),
                capturedPackets: { _ in [] }, into: archive, application: "t")
        }
        #expect(archive.members.isEmpty)
        #expect(EvidenceExporter.classify(EvidenceCaptureError.flowNotInBundle(id: 1)) == .historyChangedWhileExporting)
    }

    @Test func packetsThatCrossedTheTapWithoutARowMakeTheCaptureIncompleteAndAreSaidWhy() throws {
        let export = try Self.export(plan: .init(flows: 2)) { seed in
            let store = try History(path: seed.databasePath)
            let capture = try #require(try store.reading { try $0.captureRuns() }.first)
            try store.recordPacketLoss(5, reason: .queueFull, captureRun: capture.id, at: seed.start.addingTimeInterval(1))
            try store.recordPacketLoss(2, reason: .batchFailed, captureRun: capture.id, at: seed.end)
            // A daemon killed in the session: its last tally left 3 packets unaccounted.
            try store.recordTally(TapTally(handed: 40, accounted: 37, at: seed.start.addingTimeInterval(2)), losses: [:],
                                  captureRun: capture.id)
            try store.closeInterruptedCaptureRuns()
            // Two hours later: outside the session's minutes, not counted.
            try store.recordPacketLoss(9, reason: .batchFailed, captureRun: capture.id, at: seed.end.addingTimeInterval(7_200))
        }
        #expect(export.result.capture.packetsWithoutRow == ["queueFull": 5, "batchFailed": 2, "daemonStopped": 3])
        guard case .incomplete(let written, let recorded, let missing, let withoutRow) = export.result.captureStanding else {
            Issue.record("standing: \(export.result.captureStanding)")
            return
        }
        #expect(written == recorded && missing.isEmpty)
        #expect(withoutRow == [EvidencePacketLoss(reason: .queueFull, count: 5), EvidencePacketLoss(reason: .batchFailed, count: 2),
                               EvidencePacketLoss(reason: .daemonStopped, count: 3)])
        let json = try JSONSerialization.jsonObject(
            with: Data(contentsOf: try export.unpacked().appendingPathComponent("capture.json"))) as? [String: Any]
        #expect(json?["packetsWithoutRow"] as? [String: Int] == ["queueFull": 5, "batchFailed": 2, "daemonStopped": 3])
        #expect(json?["withoutRowContents"] as? String == EvidenceWording.Note.packetsWithoutRow)
    }

    @Test func unzippedAtUmask000NoPathOfTheBundleIsGroupOrWorldWritable() throws {
        let export = try Self.export(plan: .init(flows: 2))
        let target = export.scratch.url.appendingPathComponent("unpacked-umask-000")
        _ = try ForeignTool.run("sh", ["-c", "umask 000 && unzip -q \"$1\" -d \"$2\"", "sh", export.result.url.path, target.path])
        let folder = target.appendingPathComponent(export.result.url.deletingPathExtension().lastPathComponent)
        #expect(try ForeignTool.run("find", [folder.path, "-perm", "/022"]) == "")
        let listing = try ForeignTool.run("find", [folder.path, "-printf", "%m %y\n"]).split(separator: "\n")
        #expect(listing.count == 9)
        #expect(Set(listing) == ["750 d", "640 f"])
    }

    @Test func aHistoryWithADamagedIndexIsRefusedBeforeAnythingIsRead() throws {
        let export = try Self.export(plan: .init(flows: 2))
        // The root page of an index no export reads uses, overwritten: only the check can see it.
        let damage = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1]); db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            size = db.execute("PRAGMA page_size").fetchone()[0]
            root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'flows_last_seen'").fetchone()[0]
            db.close()
            with open(sys.argv[1], "r+b") as f: f.seek((root - 1) * size); f.write(b"\\x0d" + b"\\xff" * (size - 1))
            """
        _ = try ForeignTool.run("python3", ["-c", damage, export.seed.databasePath])
        let output = export.scratch.url.appendingPathComponent("again")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let exporter = EvidenceExporter(
            history: try History(path: export.seed.databasePath), captureDirectory: export.seed.captureDirectory,
            catalogues: Self.catalogues)
        #expect(throws: EvidenceExportError.historyUnreadable(.corrupt(path: export.seed.databasePath))) {
            try exporter.export(sessionID: export.seed.sessionID, exportedWith: "t", now: Self.now, output: output)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == [])
    }
}

import TunnelVisionAudit

enum RequirementCatalogueLibraryAccess {
    static func catalogue(in directory: URL) throws -> RequirementCatalogue {
        try RequirementCatalogueLibrary.catalogue(identifier: RequirementCatalogueLibrary.defaultIdentifier, in: directory)
    }
}

extension Data {
    func containsBytes(_ needle: [UInt8]) -> Bool { range(of: Data(needle)) != nil }
}
