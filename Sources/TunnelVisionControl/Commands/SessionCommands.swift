import Foundation
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl session …`: recordings (audit sessions), one open at a time.
enum SessionCommands {
    static let group = CommandSpec(
        group: "session", summary: "Start, end, list, show and delete recordings.",
        discussion: "A session is one recording of a project on one of the gateway's phones: a baseline without the app, or one release of it. One is open per phone at a time; every flow of that phone that starts while it is open is tagged with it, and no other phone's.",
        examples: [
            CommandExample("tvctl session start 'Acme Health' --release 2.4.1 --build 310 --device 'Pixel 8' --os 'Android 15'", "Record release 2.4.1 (310)."),
            CommandExample("tvctl session end", "End the open recording."),
        ],
        subcommands: [start, end, list, show, delete])

    static let sessionArgument = PositionalSpec.required("ID", "The session's number.")

    /// What `session start` is told about the recording.
    enum StartOption {
        static let baseline = OptionSpec.flag("baseline", "Record without the audited app (a baseline has no release).")
        static let release = OptionSpec.value("release", "VERSION", "The app's version, as the store shows it.")
        static let build = OptionSpec.value("build", "BUILD", "The app's build number.")
        static let device = OptionSpec.value("device", "MODEL", "The test phone's model.")
        static let os = OptionSpec.value("os", "VERSION", "The test phone's operating system and version.")
        static let caTrusted = OptionSpec.value(
            "ca-trusted", "STORE",
            "The phone trusts the CA the running relay inspects with, installed in this store: user, user-full-trust (an iOS profile with full trust on) or system "
                + "(needed to read pinning; refused while the relay is not running).")
        static let keepKeys = OptionSpec.flag(
            "keep-keys", "Keep the TLS secrets of the connections the relay inspects, for 'tvctl export --with-keys' (anyone who reads the history can then decrypt them).")
        static let keepRequestPaths = OptionSpec.flag(
            "keep-request-paths", "Keep the paths of the requests the relay reads inside inspected connections (they can carry personal data; by default only method, host, body size and status are kept).")
        static let notes = OptionSpec.value("notes", "TEXT", "Anything the report should say about this recording (one line, at most 4096 bytes).")
        static let inspection = OptionSpec.value(
            "inspection", "MODE",
            "What the relay presents: off, pinning, or a certificate to be refused (untrusted-issuer, wrong-name, expired). "
                + "Default: pinning when the daemon inspects, else off.")
        static let phone = OptionSpec.value("phone", "NAME", "The gateway's phone to record (needed when it has several).")
    }

    static let start = CommandSpec(
        "start", summary: "Start recording a project.",
        discussion: "Say what is recorded (--baseline, or --release with --build) and on which phone. Inspection is on only while the daemon's relay runs with a CA loaded, and the session keeps that CA's fingerprint; whether the phone trusts it is yours to declare. The phone is the gateway's only one unless --phone names it. Refused while that phone is recorded already.",
        positionals: [ProjectCommands.projectArgument],
        options: [
            StartOption.baseline, StartOption.release, StartOption.build, StartOption.device, StartOption.os,
            StartOption.caTrusted, StartOption.inspection, StartOption.keepKeys, StartOption.keepRequestPaths, StartOption.notes, StartOption.phone, SharedOptions.json,
        ],
        examples: [
            CommandExample("tvctl session start 3 --baseline --device 'iPhone 15' --os 'iOS 18.1'", "A baseline of project 3."),
            CommandExample("tvctl session start 'Acme Health' --release 2.4.1 --build 310 --device 'Pixel 8' --os 'Android 15' --ca-trusted user", "Record a release on a phone with the CA in its user store."),
            CommandExample("tvctl session start 3 --release 2.4.1 --build 310 --device 'Pixel 8' --os 'Android 15' --inspection untrusted-issuer", "Show every inspected connection a certificate no device trusts."),
        ],
        action: CommandContext.runs(start))

    static let end = CommandSpec(
        "end", summary: "End a recording (the open one unless named).",
        positionals: [.optional("ID", "The session to end.")], options: [StartOption.phone, SharedOptions.json],
        examples: [CommandExample("tvctl session end", "End whatever is recording.")],
        action: CommandContext.runs(end))

    static let list = CommandSpec(
        "list", summary: "List sessions, newest first.",
        positionals: [.optional("P", "Only this project's (by id or unique name).")], options: [SharedOptions.json],
        examples: [
            CommandExample("tvctl session list", "Every session of every project."),
            CommandExample("tvctl session list 'Acme Health' --json", "One project's sessions, for a script."),
        ],
        action: CommandContext.runs(list))

    static let show = CommandSpec(
        "show", summary: "Show a session: what it declared, its markers and its flow count.",
        positionals: [sessionArgument], options: [SharedOptions.json],
        examples: [CommandExample("tvctl session show 7", "Session 7.")],
        action: CommandContext.runs(show))

    static let delete = CommandSpec(
        "delete", summary: "Delete a session and its markers (its flows stay, untagged).",
        discussion: "Deleting a session also lets retention take its traffic. Asks on a terminal; a script passes --yes.",
        positionals: [sessionArgument], options: [SharedOptions.yes],
        examples: [CommandExample("tvctl session delete 7 --yes", "Delete session 7 without asking.")],
        action: CommandContext.runs(delete))

    // MARK: Actions

    static func start(_ context: CommandContext) throws(ControlError) {
        let arguments = context.arguments
        let kind = try sessionKind(context)
        guard let device = arguments.value(StartOption.device).flatMap(declared) else {
            throw .usage(.missingOption("--device MODEL", command: context.command))
        }
        guard let os = arguments.value(StartOption.os).flatMap(declared) else {
            throw .usage(.missingOption("--os VERSION", command: context.command))
        }
        let store = try arguments.value(StartOption.caTrusted).map { text throws(ControlError) in
            guard let store = CATrustStore(rawValue: text) else { throw .usage(.invalidCAStore(text, command: context.command)) }
            return store
        }
        var conditions = RecordingConditions(
            deviceModel: device, osVersion: os, caTrusted: store != nil, caStore: store, keepKeys: arguments.flag(StartOption.keepKeys))
        conditions.keepRequestPaths = arguments.flag(StartOption.keepRequestPaths)
        let requested = try arguments.value(StartOption.inspection).map { text throws(ControlError) in
            guard let mode = AuditSerialization.inspectionMode(name: text) else {
                throw .usage(.invalidInspectionMode(text, command: context.command))
            }
            return mode
        }
        let now = try context.storableNow()
        let (session, project) = try context.library.visit { store in
            let project = try context.project(in: store)
            let phone = try PhoneReference.phone(named: arguments.value(StartOption.phone), in: store)
            let beat = try store.latestHeartbeat()
            let running = beat.map { now.timeIntervalSince($0.at) <= DaemonStatus.silenceLimit } ?? false
            let settings = try? store.daemonSettings()
            let inspection = try conditions.inspection(
                daemonSettings: settings, daemonRunning: running, requested: requested)
            let draft = RecordingDraft(
                projectID: project.id, kind: kind, environment: conditions.environment(toolVersion: context.invocation.toolVersion),
                inspection: inspection, gatewayResolvers: settings?.resolvers ?? [],
                notes: arguments.value(StartOption.notes) ?? "", phone: phone)
            return (try store.startRecording(draft, at: now), project)
        }
        if context.wantsJSON {
            context.emit(JSONShape.Session(session, projectName: project.name, flowCount: 0, markers: []))
        } else {
            context.say(Wording.sessionStarted(session, project: project.name))
        }
    }

    static func end(_ context: CommandContext) throws(ControlError) {
        let named = try context.arguments.positional(0).map { text throws(ControlError) in
            try SessionReference.id(text, command: context.command)
        }
        let now = try context.storableNow()
        let (session, projectName, flows) = try context.library.visit { store in
            let id: Int64
            if let named {
                id = named
            } else {
                id = try OpenRecordingReference.session(
                    phone: context.arguments.value(StartOption.phone), purpose: .end, in: store).id
            }
            let session = try store.endRecording(id: id, at: now)
            let project = try store.auditProject(id: session.projectID)
            return (session, project?.name ?? "", try store.flowCount(inRecording: id))
        }
        if context.wantsJSON {
            context.emit(JSONShape.Session(session, projectName: projectName, flowCount: flows))
        } else {
            context.say(Wording.sessionEnded(session, project: projectName, flows: flows, zone: context.zone))
        }
    }

    static func list(_ context: CommandContext) throws(ControlError) {
        let rows = try context.library.read { store in
            let projects = try context.arguments.positional(0).map { [try ProjectReference($0).resolve(in: store)] }
                ?? store.auditProjects()
            var rows: [AuditTables.SessionRow] = []
            for project in projects {
                for session in try store.recordings(forProject: project.id) {
                    rows.append(.init(session: session, projectName: project.name, flowCount: try store.flowCount(inRecording: session.id)))
                }
            }
            return rows.sorted { ($0.session.startedAt, $0.session.id) > ($1.session.startedAt, $1.session.id) }
        }
        if context.wantsJSON {
            context.emit(rows.map { JSONShape.Session($0.session, projectName: $0.projectName, flowCount: $0.flowCount) })
        } else if rows.isEmpty {
            context.say(Wording.noSessions)
        } else {
            context.show(AuditTables.sessions(rows, zone: context.zone))
        }
    }

    static func show(_ context: CommandContext) throws(ControlError) {
        let id = try context.sessionID(0)
        let (session, projectName, flows, markers) = try context.library.read { store in
            let session = try SessionReference.session(id, in: store)
            let project = try store.auditProject(id: session.projectID)
            return (session, project?.name ?? "", try store.flowCount(inRecording: id), try store.markers(forSession: id))
        }
        if context.wantsJSON {
            context.emit(JSONShape.Session(session, projectName: projectName, flowCount: flows, markers: markers))
            return
        }
        context.show(AuditPages.session(
            session, projectName: projectName, flows: flows, markers: markers, zone: context.zone, style: context.style))
    }

    static func delete(_ context: CommandContext) throws(ControlError) {
        let id = try context.sessionID(0)
        let library = context.library
        let (session, projectName, flows) = try library.read { store in
            let session = try SessionReference.session(id, in: store)
            return (session, try store.auditProject(id: session.projectID)?.name ?? "", try store.flowCount(inRecording: id))
        }
        try context.confirm(Wording.confirmSessionDeletion(session, project: projectName, flows: flows))
        try library.visit { store in try store.deleteRecording(id: id) }
        context.say(Wording.sessionDeleted(session, project: projectName))
    }

    // MARK: Helpers

    /// A declared value, trimmed; nil when nothing is left of it.
    private static func declared(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func sessionKind(_ context: CommandContext) throws(ControlError) -> RecordingKind {
        let arguments = context.arguments
        let release = arguments.value(StartOption.release)
        let build = arguments.value(StartOption.build)
        switch (arguments.flag(StartOption.baseline), release.flatMap(declared), build.flatMap(declared)) {
        case (true, nil, nil):
            return .baseline
        case (false, let version?, let build?):
            return .audit(AppRelease(version: version, build: build))
        default:
            throw .usage(.sessionKindUnclear(command: context.command))
        }
    }
}
