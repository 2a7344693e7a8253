import Foundation
import TunnelVisionArchive
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl status`: is the daemon capturing, what it has seen, what is recording, how full the disk is.
enum StatusCommand {
    static let spec = CommandSpec(
        "status", summary: "Whether the daemon is capturing, its traffic and rates, the open recording, the disk.",
        discussion: "The daemon counts as running while its heartbeat in the history is at most \(Int(DaemonStatus.silenceLimit)) s old. Rates are measured over one heartbeat when it is running (status then takes a second), else averaged over the capture session.",
        options: [SharedOptions.json],
        examples: [
            CommandExample("tvctl status", "The state of the gateway."),
            CommandExample("tvctl status --json | jq .daemon.running", "Only whether the daemon runs."),
        ],
        action: CommandContext.runs(run))

    static let sampleWait: TimeInterval = 1.2

    static func run(_ context: CommandContext) throws(ControlError) {
        let library = context.library
        var status = try DaemonStatus.read(library: library)
        var earlier: DaemonHeartbeat?
        if status.isRunning(at: context.invocation.clock()) {
            earlier = status.heartbeat
            Thread.sleep(forTimeInterval: sampleWait)
            status = try DaemonStatus.read(library: library)
        }
        let now = context.invocation.clock()
        let rates = DaemonStatus.rates(between: earlier, and: status.heartbeat, captureRun: status.captureRun)
        if context.wantsJSON {
            let archive = ArchiveCommands.standing(library: library).map { JSONShape.ArchiveStanding(waiting: $0.waiting, state: $0.state) }
            context.emit(JSONShape.Status(status, rates: rates, now: now, database: library.location.path, archive: archive))
            return
        }
        context.show(StatusPage.page(
            status, rates: rates, now: now, zone: context.zone, database: library.location.path, style: context.style))
        if let archive = ArchiveCommands.standing(library: library) {
            context.say(Wording.archiveStanding(waiting: archive.waiting.count, state: archive.state, zone: context.zone))
        }
    }
}
