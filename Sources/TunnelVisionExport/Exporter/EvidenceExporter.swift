import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionAudit
import TunnelVisionEvidence
import TunnelVisionModel
import TunnelVisionStore

/// Exports a closed session: reads it out of the history its caller opened, in one read
/// transaction, and writes the bundle's .zip in a private folder in one pass — the documents,
/// the capture, capture.json, the report and the manifest, each compressed and hashed as it is
/// written — then moves only the .zip into the output directory.
public struct EvidenceExporter: Sendable {
    /// The caller's history: the exporter never opens one, so a mistyped path is the caller's
    /// to refuse, and one export reads one store.
    public let history: History
    public let captureDirectory: URL?
    /// Where catalogues are looked up; nil: RequirementCatalogueLibrary's own directory.
    public let catalogues: URL?

    public init(history: History, captureDirectory: URL?, catalogues: URL? = nil) {
        self.history = history
        self.captureDirectory = captureDirectory
        self.catalogues = catalogues
    }

    /// `exportedWith` is the tool's version; `now` is the instant of the export, which names
    /// the bundle and is the only thing two exports of one session differ in.
    public func export(
        sessionID: Int64, exportedWith: String, now: Date, output: URL, withKeys: Bool = false,
        sealing: EvidenceSealing = .unsigned, progress: (EvidenceExportStep) -> Void = { _ in }
    ) throws(EvidenceExportError) -> EvidenceExportResult {
        try Self.checkDirectory(output, else: EvidenceExportError.outputUnavailable)
        if let captureDirectory { try Self.checkDirectory(captureDirectory, readable: true, else: EvidenceExportError.captureDirectoryUnavailable) }
        EvidenceStaging.clearStale(in: output)
        let name = Self.bundleName(sessionID: sessionID, at: now)
        var staging: EvidenceStaging?
        defer { staging?.remove() }

        progress(.readingHistory)
        // The staging folder is made only once the bundle stands: a session that cannot be
        // exported (open, missing) is refused before anything is written.
        let (bundle, document, archive) = try read(
            sessionID: sessionID, exportedWith: exportedWith, now: now, withKeys: withKeys, sealing: sealing, progress: progress
        ) {
            () throws(EvidenceExportError) -> EvidenceArchive in
            let made = try EvidenceStaging(in: output)
            staging = made
            return try Self.catching {
                try EvidenceArchive(url: made.url.appendingPathComponent(name + ".zip"), folder: name, modifiedAt: now)
            }
        }
        guard let staging else { throw .writeFailed(output.path) }

        progress(.drawingReport)
        var timestamp: TimestampReply?
        try Self.catching {
            try archive.add(document.document)
            try archive.add(EvidenceFileName.report) { file in
                try file.write(Array(try EvidenceReportPDF.file(bundle: bundle, capture: document, creator: exportedWith).data))
            }
            try archive.finish(sessionID: sessionID, exportedAt: now, signatureKeyID: sealing.note.keyID) { manifest in
                try sealing.seal(manifest, sessionID: sessionID, exportedWith: exportedWith, exportedAt: now) { timestamp = $0 }
            }
        }
        let placed = try staging.place(archive.url, in: output)
        progress(.finished)
        return EvidenceExportResult(
            url: placed, byteCount: Self.size(of: placed), fileNames: archive.fileNames, signatureKeyID: sealing.note.keyID, timestamp: timestamp,
            flowCount: bundle.flows.flows.count,
            findingCount: bundle.findings.findings.count, capture: document,
            members: archive.members.map {
                EvidenceExportResult.Member(name: $0.name, stored: $0.stored, byteCount: $0.byteCount, compressedCount: $0.compressedCount)
            })
    }

    /// Removes the staging folders in `directory` that a killed export left (their process is
    /// gone); a running export's are kept. tvctl calls it as it starts, for its working directory.
    public static func clearStaleStagings(in directory: URL) {
        EvidenceStaging.clearStale(in: directory)
    }

    /// `tunnelvision-evidence-session-<id>-<yyyyMMdd-HHmmss>` in UTC.
    public static func bundleName(sessionID: Int64, at instant: Date) -> String {
        "tunnelvision-evidence-session-\(sessionID)-\(EvidenceUTCStamp(instant).compact)"
    }

    /// Everything that comes from the history, inside one read transaction: the documents and
    /// the capture describe the same instant of it, or the export fails. Whether the session
    /// has ended is asked once, by the bundle. The documents and the capture are written into
    /// the archive here; what depends on the capture (capture.json, the report) is left to the caller.
    private func read(
        sessionID: Int64, exportedWith: String, now: Date, withKeys: Bool, sealing: EvidenceSealing,
        progress: (EvidenceExportStep) -> Void, makeArchive: () throws(EvidenceExportError) -> EvidenceArchive
    ) throws(EvidenceExportError) -> (EvidenceBundle, EvidenceCaptureDocument, EvidenceArchive) {
        do {
            // A damaged index answers with the wrong rows, or none: checked before anything is read.
            try history.checkIntegrity()
            // The daemon's published key; a malformed or foreign one counts as none, and links then cannot be checked.
            let sealKey = try? CaptureSealKey(besideHistory: history.path).trustedPublicKey()
            return try history.reading { snapshot in
                guard let session = try snapshot.recording(id: sessionID),
                      let project = try snapshot.auditProject(id: session.projectID) else { throw EvidenceExportError.sessionNotFound }
                // Asked for keys the recording never kept: a bundle "exported with keys" holding none would mislead.
                if withKeys, !session.inspection.keepsKeys { throw EvidenceExportError.keysNotKept }
                // The phone↔relay secrets, in flow order: only with --with-keys do they leave the history.
                let relayFacts = try snapshot.relayFacts(inRecording: sessionID)
                let keyed = relayFacts.sorted { $0.key < $1.key }.filter { !$0.value.keyLog.isEmpty }
                // An ended session is held up to its end: what its flows carried later is only counted.
                let later = try session.endedAt.map { try snapshot.packets(after: $0, inRecording: sessionID) }
                let bundle = try EvidenceBundle(
                    project: project, session: session, markers: try snapshot.markers(forSession: sessionID),
                    flows: try snapshot.flows(inRecording: sessionID).map { later?.cut($0) ?? $0 }, catalogue: try catalogue(for: project),
                    exportedWith: exportedWith, exportedAt: now, relayFacts: relayFacts,
                    keyLog: EvidenceKeyLog(included: withKeys, flows: keyed.count), signature: sealing.note,
                    timestamp: sealing.timestampNote)
                let archive = try makeArchive()
                // Deflated as they are encoded, one at a time: none is held whole.
                let documents = bundle.documents
                for (index, document) in documents.enumerated() {
                    try archive.add(document)
                    progress(.compressing(fraction: Double(index + 1) / Double(documents.count)))
                }
                progress(.writingCapture)
                let capture = try EvidenceCaptureWriter.write(
                    for: bundle, from: snapshot, captureDirectory: captureDirectory, sealKey: sealKey, into: archive,
                    application: exportedWith,
                    tlsKeyLog: withKeys ? keyed.flatMap(\.value.keyLog) : [], cutting: later)
                // What crossed the tap without a row is no connection's: counted for the session's span.
                let losses = try snapshot.packetLosses(from: session.startedAt, to: bundle.sessionEnd)
                // The passive tap counts its drops per capture session: each one the session's span meets.
                let tapped = try snapshot.captureRuns().filter {
                    $0.startedAt <= bundle.sessionEnd && ($0.endedAt ?? Instant(nanosecondsSinceEpoch: .max)) >= session.startedAt
                }
                return (bundle, capture.counting(packetsWithoutRow: losses).noting(passiveTapSessions: tapped), archive)
            }
        } catch {
            throw Self.classify(error)
        }
    }

    private func catalogue(for project: AuditProject) throws(EvidenceExportError) -> RequirementCatalogue {
        do {
            return try RequirementCatalogueLibrary.catalogue(for: project, in: catalogues)
        } catch {
            switch error {
            case .notInstalled(let identifier, _): throw .catalogueNotBundled(identifier: identifier)
            case .unusable(let identifier, _): throw .catalogueUnusable(identifier: identifier)
            case .directoryUnreadable:
                throw .catalogueNotBundled(identifier: project.catalogueVersion ?? RequirementCatalogueLibrary.defaultIdentifier)
            }
        }
    }

    static func classify(_ error: any Error) -> EvidenceExportError {
        switch error {
        case let error as EvidenceExportError: error
        case let error as HistoryError: .historyUnreadable(error)
        case EvidenceBundleError.sessionStillOpen: .sessionStillOpen
        case is EvidenceBundleError: .historyChangedWhileExporting
        case EvidenceCaptureError.flowNotInBundle: .historyChangedWhileExporting
        case EvidenceCaptureError.sourceUnreadable(let path, let errno): .captureFileUnreadable(path: path, errno: errno)
        case EvidenceCaptureError.sourceNotRegularFile(let path): .captureFileNotRegular(path: path)
        case EvidenceCaptureError.notAsSealed(let path, let mismatch): .captureNotAsSealed(path: path, mismatch)
        case EvidenceCaptureError.destinationUnavailable(let path), EvidenceCaptureError.writeFailed(let path): .writeFailed(path)
        case let failure as EvidenceReportPDF.Failure: .writeFailed("report.pdf: \(failure.reason)")
        case let failure as ZipArchiveWriter.Failure: .writeFailed(failure.reason)
        case EvidenceSealingError.notSigned: .notSigned
        case EvidenceSealingError.notTimestamped(let failure): .notTimestamped(failure)
        default: .writeFailed("\(error)")
        }
    }

    private static func catching<T>(_ body: () throws -> T) throws(EvidenceExportError) -> T {
        do { return try body() } catch { throw classify(error) }
    }

    private static func checkDirectory(
        _ url: URL, readable: Bool = false, else failure: (String) -> EvidenceExportError
    ) throws(EvidenceExportError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue,
              access(url.path, readable ? R_OK | X_OK : W_OK | X_OK) == 0 else {
            throw failure(url.path)
        }
    }

    private static func size(of url: URL) -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.uint64Value ?? 0
    }
}

extension EvidenceReportPDF {
    /// report.pdf of a bundle: composed with the fonts it is drawn in, dated with the export.
    public static func file(bundle: EvidenceBundle, capture: EvidenceCaptureDocument, creator: String) throws -> EvidenceFile {
        let report = try EvidenceReport(bundle: bundle, capture: capture, limits: .bundled)
        let typography = EvidenceReportTypography.standard
        let layout = EvidenceReportLayout(report: report, geometry: .a4, measuring: CairoTextMeasurer(typography: typography))
        let data = try data(
            of: layout, typography: typography, title: report.title + " — " + report.subtitle, creator: creator,
            createdAt: bundle.exportedAt)
        return EvidenceFile(name: EvidenceFileName.report, data: data)
    }
}
