import Foundation
import TunnelVisionAudit
import TunnelVisionEvidence
import TunnelVisionModel
import TunnelVisionStore

/// Exports a closed session: reads it out of the history its caller opened, in one read
/// transaction, has the documents and the capture written into a private folder, adds
/// capture.json, the report and the manifest, compresses the folder and moves only the .zip
/// into the output directory.
public struct EvidenceExporter: Sendable {
    /// The caller's history: the exporter never opens one, so a mistyped path is the caller's
    /// to refuse, and one export reads one store.
    public let history: FlowStore
    public let captureDirectory: URL?
    /// Where catalogues are looked up; nil: RequirementCatalogueLibrary's own directory.
    public let catalogues: URL?

    public init(history: FlowStore, captureDirectory: URL?, catalogues: URL? = nil) {
        self.history = history
        self.captureDirectory = captureDirectory
        self.catalogues = catalogues
    }

    /// `exportedWith` is the tool's version; `now` is the instant of the export, which names
    /// the bundle and is the only thing two exports of one session differ in.
    public func export(
        sessionID: Int64, exportedWith: String, now: Date, output: URL, withKeys: Bool = false,
        progress: (EvidenceExportStep) -> Void = { _ in }
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
        let (bundle, capture, document, folder) = try read(sessionID: sessionID, exportedWith: exportedWith, now: now, withKeys: withKeys, progress: progress) {
            () throws(EvidenceExportError) -> URL in
            let made = try EvidenceStaging(in: output)
            staging = made
            let folder = made.url.appendingPathComponent(name, isDirectory: true)
            guard mkdir(folder.path, 0o700) == 0 else { throw .writeFailed("\(folder.path): \(String(cString: strerror(errno)))") }
            return folder
        }
        guard let staging else { throw .writeFailed(output.path) }

        progress(.drawingReport)
        var entries = [capture.entry]
        func keep(_ file: EvidenceFile) throws {
            try Self.save(file, in: folder)
            entries.append(EvidenceManifest.Entry(hashing: file))
        }
        try Self.catching {
            try bundle.eachDocumentFile(keep)
            try keep(document.documentFile())
            try keep(EvidenceReportPDF.file(bundle: bundle, capture: document, creator: exportedWith))
            try Self.save(EvidenceManifest(sessionID: sessionID, exportedAt: now, entries: entries).file(), in: folder)
        }

        let archive = staging.url.appendingPathComponent(name + ".zip")
        let names = (entries.map(\.name) + [EvidenceFileName.manifest]).sorted()
        do {
            try EvidenceArchive.write(
                folder: folder, files: names, storedUncompressed: [EvidenceFileName.capture], modifiedAt: now,
                to: archive, progress: { progress(.compressing(fraction: $0)) })
        } catch {
            throw .writeFailed(error.reason)
        }
        let placed = try staging.place(archive, in: output)
        progress(.finished)
        return EvidenceExportResult(
            url: placed, byteCount: Self.size(of: placed), fileNames: names, flowCount: bundle.flows.flows.count,
            findingCount: bundle.findings.findings.count, capture: document)
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
    /// has ended is asked once, by the bundle.
    private func read(
        sessionID: Int64, exportedWith: String, now: Date, withKeys: Bool, progress: (EvidenceExportStep) -> Void,
        makeFolder: () throws(EvidenceExportError) -> URL
    ) throws(EvidenceExportError) -> (EvidenceBundle, EvidenceCapture, EvidenceCaptureDocument, URL) {
        do {
            // A damaged index answers with the wrong rows, or none: checked before anything is read.
            try history.checkIntegrity()
            return try history.reading { snapshot in
                guard let session = try snapshot.auditSession(id: sessionID),
                      let project = try snapshot.auditProject(id: session.projectID) else { throw EvidenceExportError.sessionNotFound }
                // The phone↔relay secrets, in flow order: only with --with-keys do they leave the history.
                let relayFacts = try snapshot.relayFacts(inAuditSession: sessionID)
                let keyed = relayFacts.sorted { $0.key < $1.key }.filter { !$0.value.keyLog.isEmpty }
                let bundle = try EvidenceBundle(
                    project: project, session: session, markers: try snapshot.markers(forSession: sessionID),
                    flows: try snapshot.flows(inAuditSession: sessionID), catalogue: try catalogue(for: project),
                    exportedWith: exportedWith, exportedAt: now, relayFacts: relayFacts,
                    keyLog: EvidenceKeyLog(included: withKeys, flows: keyed.count))
                let folder = try makeFolder()
                progress(.writingCapture)
                let capture = try EvidenceCaptureWriter.write(
                    for: bundle, from: snapshot, captureDirectory: captureDirectory, into: folder, application: exportedWith,
                    tlsKeyLog: withKeys ? keyed.flatMap(\.value.keyLog) : [])
                // What crossed the tap without a row is no connection's: counted for the session's span.
                let losses = try snapshot.packetLosses(from: session.startedAt, to: bundle.sessionEnd)
                // The passive tap counts its drops per capture session: each one the session's span meets.
                let tapped = try snapshot.captureSessions().filter {
                    $0.startedAt <= bundle.sessionEnd && ($0.endedAt ?? .distantFuture) >= session.startedAt
                }
                let document = capture.document.counting(packetsWithoutRow: losses).noting(passiveTapSessions: tapped)
                return (bundle, capture, document, folder)
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
        case EvidenceCaptureError.destinationUnavailable(let path), EvidenceCaptureError.writeFailed(let path): .writeFailed(path)
        case let failure as EvidenceReportPDF.Failure: .writeFailed("report.pdf: \(failure.reason)")
        default: .writeFailed("\(error)")
        }
    }

    private static func catching<T>(_ body: () throws -> T) throws(EvidenceExportError) -> T {
        do { return try body() } catch { throw classify(error) }
    }

    private static func save(_ file: EvidenceFile, in folder: URL) throws {
        let url = folder.appendingPathComponent(file.name)
        guard FileManager.default.createFile(atPath: url.path, contents: file.data, attributes: [.posixPermissions: 0o640]) else {
            throw EvidenceExportError.writeFailed(url.path)
        }
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
