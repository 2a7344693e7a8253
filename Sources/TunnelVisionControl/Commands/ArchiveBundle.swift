import Foundation
import TunnelVisionArchive
import TunnelVisionExport
import TunnelVisionStore

/// The signed bundle a gateway publishes with a recording: exported as `tvctl export` exports it,
/// in a private temporary folder, and read back whole with its manifest's digest.
enum ArchiveBundle {
    static func export(_ id: Int64, withKeys: Bool, library: ControlLibrary, _ context: CommandContext) throws(ControlError) -> PublishedBundle {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvctl-bundle-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .refusal(.archive(.history("\(folder.path) could not be made: \(error.localizedDescription)")))
        }
        let plan = try ExportConfiguration(environment: context.invocation.environment).timestampPlan(skip: false)
        let result: EvidenceExportResult = try library.visit { store in
            let sealing = try ExportCommand.sealing(context, timestamp: plan)
            do throws(EvidenceExportError) {
                return try EvidenceExporter(history: store, captureDirectory: nil).export(
                    sessionID: id, exportedWith: context.invocation.toolVersion, now: context.invocation.clock(), output: folder,
                    withKeys: withKeys, sealing: sealing)
            } catch {
                if case .historyUnreadable(let history) = error { throw history }
                throw ControlError.refusal(.export(error, sessionID: id))
            }
        }
        guard let digest = BundleManifestDigest.of(bundle: result.url.path),
              let bundle = PublishedBundle(file: result.url.path, manifestSHA256: digest)
        else { throw .refusal(.archive(.bundleNotReadBack(result.url.path))) }
        return bundle
    }

    static func exported(_ id: Int64, withKeys: Bool, library: ControlLibrary, _ context: CommandContext) -> Result<PublishedBundle, ControlError> {
        do throws(ControlError) {
            return .success(try export(id, withKeys: withKeys, library: library, context))
        } catch {
            return .failure(error)
        }
    }

    /// Whether the export failed for something of this recording (its captures, its seal), not
    /// for something every recording shares (the history, the signing key, the folder).
    static func isTheRecordings(_ error: ControlError) -> Bool {
        switch error {
        case .refusal(.export(let failure, _)):
            switch failure {
            case .captureFileUnreadable, .captureFileNotRegular, .captureNotAsSealed, .historyChangedWhileExporting: true
            default: false
            }
        case .refusal(.archive(.bundleNotReadBack)): true
        default: false
        }
    }
}
