import Foundation
import TunnelVisionArchive
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl archive …`: the lab's archive in PostgreSQL, where every gateway publishes its ended
/// recordings and from where any of them is read, compared or judged.
enum ArchiveCommands {
    static let configuration = OptionSpec.value(
        "archive-config", "PATH",
        "The archive's configuration (default: $\(ArchiveConfiguration.environmentKey), else \(ArchiveConfiguration.defaultPath)).")
    static let recordingArgument = PositionalSpec.required("RECORDING", "GATEWAY:NUMBER, as 'tvctl archive recordings' lists it.")

    static let group = CommandSpec(
        group: "archive", summary: "The lab's archive: publish this gateway's recordings, read every gateway's.",
        discussion: "The daemon never waits for the archive: recordings are published after they end, by 'tvctl archive push' (the tunnelvision-archive timer runs it once the administrator enables it). 'tvctl --archive recordings|findings|diff|export …' is the same as 'tvctl archive …'; with 'reading = archive' in the archive's configuration it is the default, and --local reads this gateway's history.",
        subcommands: [
            CommandSpec(
                "push", summary: "Publish the ended recordings the archive does not hold yet, oldest first, each whole or not at all.",
                discussion: "After a failure the next run waits (1 minute, doubling up to an hour) unless --now is given; 'tvctl status' says what is not yet archived.",
                options: [configuration, .flag("now", "Try now even while backing off after a failure.")],
                examples: [CommandExample("sudo tvctl archive push", "Publish what waits.")],
                action: CommandContext.runs(push)),
            CommandSpec(
                "pull", summary: "Bring the lab's projects to this gateway and send this gateway's edits to the lab.",
                discussion: "A project the archive has and this gateway does not is created here, checked as 'tvctl project create' checks it; one changed on one side only follows that side; one changed on both since they last agreed is refused and left as it is on both. 'tvctl archive push' does the same first.",
                options: [configuration],
                examples: [CommandExample("sudo tvctl archive pull", "The lab's projects, here.")],
                action: CommandContext.runs(pull)),
            CommandSpec(
                "recordings", summary: "Every gateway's published recordings.",
                options: [configuration, SharedOptions.json],
                examples: [CommandExample("tvctl archive recordings", "What the archive holds, oldest first.")],
                action: CommandContext.runs(list)),
            CommandSpec(
                "findings", summary: "A published recording's findings, judged as 'tvctl findings' judges them.",
                positionals: [recordingArgument], options: [configuration, SharedOptions.json],
                examples: [CommandExample("tvctl archive findings bench-a:7", "Recording 7 of bench-a.")],
                action: CommandContext.runs(findings)),
            CommandSpec(
                "diff", summary: "Compare two published releases, of the same gateway or of two, as 'tvctl diff' does.",
                positionals: [
                    .required("EARLIER", "GATEWAY:NUMBER."), .required("LATER", "GATEWAY:NUMBER."),
                ],
                options: [configuration, SharedOptions.json],
                examples: [CommandExample("tvctl archive diff bench-a:5 bench-b:2", "A release recorded on bench A against one recorded on bench B.")],
                action: CommandContext.runs(diff)),
            CommandSpec(
                "export", summary: "Write the signed bundle a gateway published with a recording, as it published it.",
                positionals: [recordingArgument],
                options: [configuration, .value("output", "DIR", "Where the .zip goes (default: the current folder)."), SharedOptions.json],
                examples: [CommandExample("tvctl archive export bench-b:2 --output ~/evidence", "bench-b's recording 2, zipped, in ~/evidence.")],
                action: CommandContext.runs(export)),
        ])

    static func settings(_ context: CommandContext) throws(ControlError) -> ArchiveConfiguration {
        let path = context.arguments.value(configuration)
            ?? context.invocation.environment[ArchiveConfiguration.environmentKey] ?? ArchiveConfiguration.defaultPath
        do { return try ArchiveConfiguration.read(path: path) } catch { throw .refusal(.archive(error)) }
    }

    static func connect(_ settings: ArchiveConfiguration) throws(ControlError) -> ArchiveConnection {
        do {
            let connection = try ArchiveConnection(settings.connection)
            try ArchiveSchema.migrate(connection)
            return connection
        } catch { throw .refusal(.archive(error)) }
    }

    static func push(_ context: CommandContext) throws(ControlError) {
        let settings = try settings(context)
        let library = context.library
        let statePath = ArchiveState.path(besideHistoryIn: library.location.directory)
        var state = ArchiveState.load(path: statePath) ?? ArchiveState()
        let now = context.invocation.clock()
        if !context.arguments.flag("now"), let next = state.nextAttempt, now.nanosecondsSinceEpoch < next {
            context.say(Wording.archiveBackingOff(until: Date(nanosecondsSinceEpoch: next), zone: context.zone))
            return
        }
        let history = GatewayHistory(path: library.location.path)
        state.lastAttempt = now.nanosecondsSinceEpoch
        do {
            let ended = try history.endedRecordingIDs()
            let connection = try connect(settings)
            // The lab's projects first, so that a recording joins the project as the lab has it.
            let projects = try ArchiveProjectSync.run(
                ArchiveProjects(connection: connection, gateway: settings.gateway), state: &state, library: library, context)
            say(projects, context)
            let publisher = ArchivePublisher(connection: connection, gateway: settings.gateway)
            var archived = try publisher.archivedRecordingIDs()
            var published = 0
            let everyHeld = context.arguments.flag("now")
            for id in ended where !archived.contains(id) && (everyHeld || state.isDue(id, now: now.nanosecondsSinceEpoch)) {
                let extract = try history.extract(recordingID: id, publishKeyLogs: settings.publishKeyLogs)
                let (read, assessment) = try FindingsCommand.assess(id, library: library)
                let document = JSONShape.encoded(FindingsCommand.document(read, assessment))
                let keys = extract.recording.integer("keep_keys") == 1 && settings.publishKeyLogs
                let bundle: PublishedBundle
                switch ArchiveBundle.exported(id, withKeys: keys, library: library, context) {
                case .success(let exported): bundle = exported
                case .failure(let failure) where ArchiveBundle.isTheRecordings(failure):
                    // This recording's own evidence cannot be bundled: it waits, the ones after it go on.
                    state.hold(id, reason: failure.sentence, now: now.nanosecondsSinceEpoch)
                    try state.save(path: statePath)
                    context.invocation.console.writeError(Wording.archiveHeld("\(settings.gateway):\(id)", reason: failure.sentence))
                    continue
                case .failure(let failure): throw failure
                }
                if case .published(let flows) = try publisher.publish(extract, findingsDocument: document, bundle: bundle) {
                    context.say(Wording.archivePublished("\(settings.gateway):\(id)", flows: flows))
                    published += 1
                }
                archived.insert(id)
                state.release(id)
                state.archived = archived.sorted()
                try state.save(path: statePath)
            }
            state.archived = archived.sorted()
            state.failures = 0
            state.lastError = nil
            state.nextAttempt = nil
            try state.save(path: statePath)
            if published == 0 && state.held.isEmpty { context.say(Wording.archiveNothingWaiting(gateway: settings.gateway)) }
        } catch {
            let failure: ControlError = switch error {
            case let error as ControlError: error
            case let error as ArchiveError: .refusal(.archive(error))
            default: library.classify(error)
            }
            state.failures += 1
            state.lastError = failure.sentence
            state.nextAttempt = now.addingTimeInterval(ArchiveState.backoff(afterFailures: state.failures)).nanosecondsSinceEpoch
            try? state.save(path: statePath)
            throw failure
        }
        // A held recording is a failure the timer's journal and exit status show; the run itself
        // did its work, so it sets no wait of its own.
        if !state.held.isEmpty { throw .refusal(.archive(.held(state.held.map(\.id)))) }
    }

    static func pull(_ context: CommandContext) throws(ControlError) {
        let settings = try settings(context)
        let library = context.library
        let statePath = ArchiveState.path(besideHistoryIn: library.location.directory)
        var state = ArchiveState.load(path: statePath) ?? ArchiveState()
        let connection = try connect(settings)
        let outcome = try ArchiveProjectSync.run(
            ArchiveProjects(connection: connection, gateway: settings.gateway), state: &state, library: library, context)
        do { try state.save(path: statePath) } catch { throw .refusal(.archive(error)) }
        say(outcome, context)
        if let conflict = outcome.conflicts.first { throw .refusal(.archive(.projectConflict(name: conflict))) }
        if let kept = outcome.kept.first { throw .refusal(.archive(.projectDeletedWithRecordings(name: kept.name, recordings: kept.recordings))) }
        if outcome.pulled.isEmpty && outcome.published.isEmpty && outcome.deleted.isEmpty { context.say(Wording.archiveProjectsAgree) }
    }

    /// One line per project that moved; a conflict on standard error, where a timer's journal keeps it.
    private static func say(_ outcome: ArchiveProjectSync.Outcome, _ context: CommandContext) {
        for name in outcome.pulled { context.say(Wording.archiveProjectPulled(name)) }
        for name in outcome.published { context.say(Wording.archiveProjectPublished(name)) }
        for name in outcome.deleted { context.say(Wording.archiveProjectDeleted(name)) }
        if context.command.hasSuffix("push") {
            for name in outcome.conflicts { context.invocation.console.writeError(Wording.sentence(for: .projectConflict(name: name))) }
            for kept in outcome.kept {
                context.invocation.console.writeError(
                    Wording.sentence(for: .projectDeletedWithRecordings(name: kept.name, recordings: kept.recordings)))
            }
        }
    }

    /// What waits for the archive, read from the state the last push left (never from the
    /// network): `tvctl status`'s line and its JSON's `archive`. Nil on a gateway that has never
    /// published.
    static func standing(library: ControlLibrary) -> (waiting: [Int64], state: ArchiveState)? {
        guard let state = ArchiveState.load(path: ArchiveState.path(besideHistoryIn: library.location.directory)),
              let ended = try? GatewayHistory(path: library.location.path).endedRecordingIDs()
        else { return nil }
        return (Set(ended).subtracting(state.archived).sorted(), state)
    }

    static func list(_ context: CommandContext) throws(ControlError) {
        let connection = try connect(try settings(context))
        let recordings: [ArchivedRecording]
        do { recordings = try ArchiveReader(connection: connection).recordings() } catch { throw .refusal(.archive(error)) }
        if context.wantsJSON {
            context.emit(recordings.map(RecordingShape.init))
            return
        }
        var table = TextTable([
            .init("RECORDING"), .init("PROJECT"), .init("RELEASE"), .init("DEVICE"), .init("STARTED"), .init("ENDED"),
            .init("FLOWS", .right), .init("FINDINGS", .right),
        ])
        for recording in recordings {
            table.append([
                recording.reference, recording.project, recording.release ?? "baseline", "\(recording.device) (\(recording.os))",
                Formatting.dateTime(Date(nanosecondsSinceEpoch: recording.startedAt), in: context.zone),
                Formatting.dateTime(Date(nanosecondsSinceEpoch: recording.endedAt), in: context.zone),
                String(recording.flows), String(recording.findings),
            ])
        }
        context.show(table)
    }

    struct RecordingShape: Encodable {
        let recording, gateway, project: String
        let number: Int64
        let release: String?
        let device, os: String
        let phone: String?
        let startedAt, endedAt: String
        let flows, findings: Int

        init(_ recording: ArchivedRecording) {
            self.recording = recording.reference
            gateway = recording.gateway
            number = recording.localID
            project = recording.project
            release = recording.release
            device = recording.device
            os = recording.os
            phone = recording.phone
            startedAt = Formatting.iso8601(Date(nanosecondsSinceEpoch: recording.startedAt))
            endedAt = Formatting.iso8601(Date(nanosecondsSinceEpoch: recording.endedAt))
            flows = recording.flows
            findings = recording.findings
        }
    }

    static func findings(_ context: CommandContext) throws(ControlError) {
        try rebuilt(context, references: [context.word(0)]) { library, ids throws(ControlError) in
            try FindingsCommand.show(ids[0], library: library, context)
        }
    }

    static func diff(_ context: CommandContext) throws(ControlError) {
        try rebuilt(context, references: [context.word(0), context.word(1)]) { library, ids throws(ControlError) in
            try DiffCommand.compare(ids[0], ids[1], library: library, context)
        }
    }

    static func export(_ context: CommandContext) throws(ControlError) {
        guard let reference = ArchivedRecordingReference(context.word(0)) else {
            throw .refusal(.archive(.recordingNotFound(context.word(0))))
        }
        let output = URL(fileURLWithPath: context.arguments.value("output") ?? FileManager.default.currentDirectoryPath, isDirectory: true)
        let connection = try connect(try settings(context))
        let bundle: PublishedBundle
        do { bundle = try ArchiveReader(connection: connection).bundle(reference) } catch { throw .refusal(.archive(error)) }
        let file = output.appendingPathComponent(bundle.fileName)
        // Never over an earlier file: a bundle is evidence, and the one there may be another.
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        let handle = descriptor >= 0 ? FileHandle(fileDescriptor: descriptor, closeOnDealloc: true) : nil
        guard let handle, (try? handle.write(contentsOf: bundle.bytes)) != nil, (try? handle.synchronize()) != nil else {
            throw .refusal(.archive(.history("\(file.path) could not be written (\(descriptor < 0 ? String(cString: strerror(errno)) : "short write"))")))
        }
        if context.wantsJSON {
            context.emit(["file": file.path, "manifestSHA256": bundle.manifestSHA256])
        } else {
            context.say(Wording.archiveExported(file.path, reference: context.word(0), manifest: bundle.manifestSHA256))
        }
    }

    /// The named recordings written into a history in a private temporary folder, handed to the
    /// local command's body, and removed after it.
    private static func rebuilt(
        _ context: CommandContext, references words: [String],
        _ body: (ControlLibrary, [Int64]) throws(ControlError) -> Void
    ) throws(ControlError) {
        var references: [ArchivedRecordingReference] = []
        for word in words {
            guard let reference = ArchivedRecordingReference(word) else {
                throw .refusal(.archive(.recordingNotFound(word)))
            }
            references.append(reference)
        }
        let reader = ArchiveReader(connection: try connect(try settings(context)))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvctl-archive-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = ControlLibrary(location: DatabaseLocation(path: folder.appendingPathComponent("history.sqlite").path))
        let ids: [Int64]
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            var extracts: [RecordingExtract] = []
            for reference in references { extracts.append(try reader.extract(reference)) }
            try library.visit(creatingHistory: true) { _ in }
            ids = try RebuiltHistory.write(extracts, intoHistoryAt: library.location.path)
        } catch let error as ArchiveError {
            throw .refusal(.archive(error))
        } catch let error as ControlError {
            throw error
        } catch {
            throw .refusal(.archive(.history(String(describing: error))))
        }
        try body(library, ids)
    }
}
