import Foundation
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
        let rates = DaemonStatus.rates(between: earlier, and: status.heartbeat, captureSession: status.captureSession)
        if context.wantsJSON {
            context.emit(JSONShape.Status(status, rates: rates, now: now, database: library.location.path))
            return
        }
        let zone = context.zone
        var facts: [(String, String)] = []
        if let heartbeat = status.heartbeat {
            let age = Formatting.duration(now.timeIntervalSince(heartbeat.at))
            facts.append(("Daemon", status.isRunning(at: now)
                ? "running, pid \(heartbeat.pid), last heartbeat \(age) ago"
                : "not running: its last heartbeat was at \(Formatting.dateTime(heartbeat.at, in: zone)), \(age) ago"))
        } else {
            facts.append(("Daemon", "never seen: this history has no heartbeat"))
        }
        if let capture = status.captureSession {
            facts.append(("Capture", "session \(capture.id) since \(Formatting.dateTime(capture.startedAt, in: zone)), input \(capture.input), TunnelVision \(capture.toolVersion)"))
        }
        if let heartbeat = status.heartbeat {
            facts.append(("Traffic", "\(Formatting.count(Int(clamping: heartbeat.packetsSeen))) packets (\(Formatting.bytes(heartbeat.bytesSeen))) seen; "
                + "\(Formatting.count(Int(clamping: heartbeat.packetsRecorded))) recorded, \(Formatting.count(Int(clamping: heartbeat.packetsNotCaptured))) without bytes, "
                + "\(Formatting.count(Int(clamping: heartbeat.packetsDropped))) dropped; queue \(heartbeat.queueDepth)"))
        }
        if let rates {
            let basis = rates.basis == "heartbeats" ? "now" : "on average since the capture began"
            facts.append(("Rates", "\(Int(rates.packetsPerSecond.rounded())) packets/s, \(Formatting.bytes(UInt64(max(0, rates.bytesPerSecond))))/s \(basis)"))
        }
        facts.append(("Inspection", status.inspectionEnabled ? "on" : "off"))
        if let recording = status.recording {
            let session = recording.session
            facts.append(("Recording", "session \(session.id), \(Wording.recording(project: recording.projectName, kind: session.kind)), "
                + "since \(Formatting.time(session.startedAt, in: zone)) (\(Formatting.duration(now.timeIntervalSince(session.startedAt)))), "
                + Wording.plural(status.recordingFlows, "flow")))
        } else {
            facts.append(("Recording", "none"))
        }
        let captureBytes = status.captureFiles.reduce(UInt64(0)) { $0 &+ $1.bytes }
        var disk = "history \(Formatting.bytes(status.historyBytes)); captures \(Wording.plural(status.captureFiles.count, "file")), \(Formatting.bytes(captureBytes))"
        if let free = status.freeBytes { disk += "; \(Formatting.bytes(free)) free beside the history" }
        facts.append(("Disk", disk))
        facts.append(("History", library.location.path))
        AuditTables.facts(facts).forEach(context.say)
    }
}

extension JSONShape {
    public struct Status: Encodable, Sendable, Hashable {
        public struct Daemon: Encodable, Sendable, Hashable {
            public let running: Bool
            public let pid: Int32?
            public let heartbeatAt: String?
            public let heartbeatAgeSeconds: Double?
        }

        public struct Capture: Encodable, Sendable, Hashable {
            public let sessionID: Int64
            public let startedAt: String
            public let input: String
            public let toolVersion: String
        }

        public struct Traffic: Encodable, Sendable, Hashable {
            public let packetsSeen: UInt64
            public let bytesSeen: UInt64
            public let packetsRecorded: UInt64
            public let packetsNotCaptured: UInt64
            public let packetsDropped: UInt64
            public let queueDepth: Int
        }

        public struct Rates: Encodable, Sendable, Hashable {
            public let packetsPerSecond: Double
            public let bytesPerSecond: Double
            public let basis: String
        }

        public struct Disk: Encodable, Sendable, Hashable {
            public let historyBytes: UInt64
            public let captureFiles: Int
            public let captureBytes: UInt64
            public let freeBytes: UInt64?
        }

        public let database: String
        public let daemon: Daemon
        public let capture: Capture?
        public let traffic: Traffic?
        public let rates: Rates?
        public let inspectionEnabled: Bool
        public let recording: Session?
        public let disk: Disk

        init(_ status: DaemonStatus, rates: DaemonStatus.Rates?, now: Date, database: String) {
            self.database = database
            let beat = status.heartbeat
            daemon = Daemon(
                running: status.isRunning(at: now), pid: beat?.pid, heartbeatAt: beat.map { Formatting.iso8601($0.at) },
                heartbeatAgeSeconds: beat.map { (now.timeIntervalSince($0.at) * 1000).rounded() / 1000 })
            capture = status.captureSession.map {
                Capture(sessionID: $0.id, startedAt: Formatting.iso8601($0.startedAt), input: $0.input, toolVersion: $0.toolVersion)
            }
            traffic = beat.map {
                Traffic(packetsSeen: $0.packetsSeen, bytesSeen: $0.bytesSeen, packetsRecorded: $0.packetsRecorded,
                        packetsNotCaptured: $0.packetsNotCaptured, packetsDropped: $0.packetsDropped, queueDepth: $0.queueDepth)
            }
            self.rates = rates.map { Rates(packetsPerSecond: $0.packetsPerSecond, bytesPerSecond: $0.bytesPerSecond, basis: $0.basis) }
            inspectionEnabled = status.inspectionEnabled
            recording = status.recording.map { Session($0.session, projectName: $0.projectName, flowCount: status.recordingFlows) }
            disk = Disk(
                historyBytes: status.historyBytes, captureFiles: status.captureFiles.count,
                captureBytes: status.captureFiles.reduce(UInt64(0)) { $0 &+ $1.bytes }, freeBytes: status.freeBytes)
        }
    }
}
