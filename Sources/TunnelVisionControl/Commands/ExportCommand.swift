import Foundation
import TunnelVisionEvidence
import TunnelVisionExport
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl export SESSION`: the evidence bundle of an ended session, as a .zip.
enum ExportCommand {
    static let spec = CommandSpec(
        "export", summary: "Write the evidence bundle of an ended session: a folder, zipped.",
        discussion: "The bundle is assembled in a private folder beside the output and only the finished .zip is moved there; a failure leaves nothing behind, and earlier exports are never touched. Packets are copied from the capture files the history points at (or from --captures). On a terminal, progress is shown.",
        positionals: [SessionCommands.sessionArgument],
        options: [
            .value("output", "DIR", "Where the .zip goes (default: the current folder)."),
            .value("captures", "DIR", "The daemon's capture folder, when its files have moved (default: where the history says)."),
            .flag("with-keys", "Put the TLS secrets of the connections the relay inspected at the start of capture.pcapng, so Wireshark decrypts them."),
            .flag("no-timestamp", "Do not ask the configured time-stamping authority (timestamp_url): the bundle then says it has no timestamp."),
            SharedOptions.json,
        ],
        examples: [
            CommandExample("tvctl export 7 --output ~/evidence", "Session 7's bundle, zipped, in ~/evidence."),
            CommandExample("tvctl export 7 --json | jq -r .file", "Only the path of the .zip."),
            CommandExample("tvctl export 7 --with-keys", "With the inspected connections' TLS secrets, for Wireshark."),
        ],
        action: CommandContext.runs(run))

    static func run(_ context: CommandContext) throws(ControlError) {
        let id = try context.sessionID(0)
        let output = URL(fileURLWithPath: context.arguments.value("output") ?? FileManager.default.currentDirectoryPath, isDirectory: true)
        let captures = context.arguments.value("captures").map { URL(fileURLWithPath: $0, isDirectory: true) }
        let progress = ExportProgress(context: context)
        let plan = try ExportConfiguration(environment: context.invocation.environment).timestampPlan(skip: context.arguments.flag("no-timestamp"))
        // Through the library, so that a missing history or a permission is said the way every
        // other command says it; the exporter reads the store the library opened.
        let result: EvidenceExportResult
        do throws(ControlError) {
            result = try context.library.visit { store in
                // Read once the history answered, so that an outsider hears about the group first.
                let sealing = try sealing(context, timestamp: plan)
                do throws(EvidenceExportError) {
                    return try EvidenceExporter(history: store, captureDirectory: captures).export(
                        sessionID: id, exportedWith: context.invocation.toolVersion, now: context.invocation.clock(), output: output,
                        withKeys: context.arguments.flag("with-keys"), sealing: sealing, progress: progress.show)
                } catch {
                    if case .historyUnreadable(let history) = error { throw history }
                    throw ControlError.refusal(.export(error, sessionID: id))
                }
            }
        } catch {
            progress.clear()
            throw error
        }
        progress.clear()
        if context.wantsJSON {
            context.emit(ExportedShape(result))
        } else {
            let skipped: String? = if case .skipped(let url) = plan { url } else { nil }
            context.say(Wording.exported(result, sessionID: id, skippedTimestamp: skipped))
        }
    }

    /// A gateway without a key exports unsigned and says so; a key that is there and cannot be
    /// read refuses the export, so that nobody makes an unsigned bundle by mistake.
    static func sealing(_ context: CommandContext, timestamp plan: EvidenceTimestampPlan) throws(ControlError) -> EvidenceSealing {
        let signer: GatewaySigner?
        do throws(GatewayKeyError) { signer = try KeyCommands.keys(context).signer() } catch {
            throw ControlError.refusal(.gatewayKey(error))
        }
        return EvidenceSealing(signer: signer, hostName: EvidenceSealing.localHostName, timestamp: plan)
    }

    struct ExportedShape: Encodable {
        let file: String
        let byteCount: UInt64
        let fileNames: [String]
        /// The gateway key that signed manifest.json; absent: not signed.
        let signatureKeyID: String?
        /// The TSA and the instant it vouched for the manifest; absent: no timestamp.
        let timestampAuthority: String?
        let timestampedAt: String?
        let flowCount: Int
        let findingCount: Int
        /// nothingRecorded, complete or incomplete.
        let capture: String
        let packetsRecorded: Int
        let packetsWritten: Int
        let packetsWithoutBytes: [String: Int]
        /// Packets that crossed the tap in the session's minutes without a row, by reason, so that a bundle says what the capture lacks.
        var packetsWithoutRow: [String: Int] = [:]

        init(_ result: EvidenceExportResult) {
            file = result.url.path
            byteCount = result.byteCount
            fileNames = result.fileNames
            signatureKeyID = result.signatureKeyID
            timestampAuthority = result.timestamp?.authority
            timestampedAt = result.timestamp.map { Formatting.iso8601($0.instant) }
            flowCount = result.flowCount
            findingCount = result.findingCount
            switch result.captureStanding {
            case .nothingRecorded:
                capture = "nothingRecorded"; packetsRecorded = 0; packetsWritten = 0; packetsWithoutBytes = [:]
            case .complete(let packets):
                capture = "complete"; packetsRecorded = packets; packetsWritten = packets; packetsWithoutBytes = [:]
            case .incomplete(let written, let recorded, let missing, let withoutRow):
                capture = "incomplete"; packetsRecorded = recorded; packetsWritten = written
                packetsWithoutBytes = Dictionary(missing.map { ($0.reason.rawValue, $0.count) }, uniquingKeysWith: +)
                packetsWithoutRow = Dictionary(withoutRow.map { ($0.reason.name, $0.count) }, uniquingKeysWith: +)
            }
        }
    }
}

/// One line of progress on a terminal, rewritten in place; nothing anywhere else.
struct ExportProgress {
    let context: CommandContext

    var shows: Bool { context.invocation.console.outputIsTerminal && !context.wantsJSON }

    func show(_ step: EvidenceExportStep) {
        guard shows else { return }
        context.invocation.console.writeOutput("\r\u{1B}[K" + context.style.dim(Wording.exportStep(step)))
    }

    func clear() {
        guard shows else { return }
        context.invocation.console.writeOutput("\r\u{1B}[K")
    }
}
