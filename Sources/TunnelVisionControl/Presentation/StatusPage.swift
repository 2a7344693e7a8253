import Foundation
import TunnelVisionModel
import TunnelVisionStore

/// `tvctl status` for people: one fact a line.
enum StatusPage {
    static func page(
        _ status: DaemonStatus, rates: DaemonStatus.Rates?, now: Date, zone: TimeZone, database: String, style: TextStyle
    ) -> Page {
        var facts: [(String, String)] = [("Daemon", Wording.daemon(status.heartbeat, running: status.isRunning(at: now), now: now, zone: zone))]
        if let capture = status.captureRun {
            facts.append(("Capture", Wording.captureRun(capture, zone: zone)))
            if let drops = capture.tapDrops { facts.append(("Tap drops", Wording.tapDrops(drops))) }
        }
        if let heartbeat = status.heartbeat {
            facts.append(("Traffic", Wording.traffic(heartbeat)))
        }
        if let rates {
            facts.append(("Rates", Wording.rates(rates)))
        }
        if let backlog = status.recorderBacklog, status.captureRun.map({ $0.inputKind == .tun }) ?? true {
            facts.append(("Under load", Wording.underLoad(backlog, waitMilliseconds: status.recorderWaitMilliseconds)))
        }
        facts.append(("Inspection", Wording.inspection(status, running: status.isRunning(at: now))))
        if let heartbeat = status.heartbeat, let relay = Wording.relay(heartbeat) { facts.append(("Relay", relay)) }
        if status.recordings.isEmpty { facts.append(("Recording", "none")) }
        for open in status.recordings {
            facts.append(("Recording", Wording.recording(open.recording, flows: open.flows, now: now, zone: zone)))
        }
        facts.append(("Disk", Wording.disk(history: status.historyBytes, captureFiles: status.captureFiles, free: status.freeBytes)))
        facts.append(("History", database))
        var page = Page(style: style)
        page.facts(facts)
        return page
    }
}

/// The phrases of `tvctl status`.
extension Wording {
    static func inspection(_ status: DaemonStatus, running: Bool) -> String {
        guard status.inspectionEnabled else { return "off" }
        guard running, let fingerprint = status.inspectingCAFingerprint else {
            return "configured on, but no relay is running with a CA: sessions record inspection off"
        }
        return "on, relay on port \(status.relayPort.map(String.init) ?? "?"), CA SHA-256 \(fingerprint)"
    }

    /// The relay's connections and what it could not do; nil when no relay ran.
    static func relay(_ beat: DaemonHeartbeat) -> String? {
        guard let open = beat.relayConnections else { return nil }
        func count(_ value: UInt64?) -> String { Formatting.count(Int(clamping: value ?? 0)) }
        return "\(Formatting.count(open)) connections open; \(count(beat.relayRefusedAtCeiling)) reset at its descriptor ceiling; "
            + "\(count(beat.relayReportsUnmatched)) reports matched no flow of the tap"
    }

    static func daemon(_ heartbeat: DaemonHeartbeat?, running: Bool, now: Date, zone: TimeZone) -> String {
        guard let heartbeat else { return "never seen: this history has no heartbeat" }
        let age = Formatting.duration(now.timeIntervalSince(heartbeat.at))
        return running
            ? "running, pid \(heartbeat.pid), last heartbeat \(age) ago"
            : "not running: its last heartbeat was at \(Formatting.dateTime(heartbeat.at, in: zone)), \(age) ago"
    }

    static func captureRun(_ capture: CaptureRun, zone: TimeZone) -> String {
        "session \(capture.id) since \(Formatting.dateTime(capture.startedAt, in: zone)), input \(capture.input), TunnelVision \(capture.toolVersion)"
    }

    static func traffic(_ beat: DaemonHeartbeat) -> String {
        func count(_ value: UInt64) -> String { Formatting.count(Int(clamping: value)) }
        return "\(count(beat.packetsSeen)) packets (\(Formatting.bytes(beat.bytesSeen))) seen; \(count(beat.packetsRecorded)) recorded, "
            + "\(count(beat.packetsNotCaptured)) without bytes, \(count(beat.packetsDropped)) dropped; queue \(beat.queueDepth)"
    }

    /// The passive tap's libpcap counts: packets it never read, so the capture lacks them.
    static func tapDrops(_ drops: PassiveTapDrops) -> String {
        func count(_ value: UInt64) -> String { Formatting.count(Int(clamping: value)) }
        guard drops.total > 0 else { return "none: libpcap counted no packet dropped by the kernel or the interface" }
        return "the capture missed \(count(drops.kernel)) packets the kernel dropped (its capture buffer was full) "
            + "and \(count(drops.interface)) the interface dropped, as libpcap counts them"
    }

    static func underLoad(_ backlog: RecorderBacklog, waitMilliseconds: Int?) -> String {
        switch backlog {
        case .wait:
            "evidence first: a packet waits up to \(waitMilliseconds.map { "\($0) ms" } ?? "a bound") for a recorder slot "
                + "before it is forwarded"
        case .forward: "forwarding first: with the recorder's queue full, packets are forwarded at once as rows without bytes"
        }
    }

    static func rates(_ rates: DaemonStatus.Rates) -> String {
        let basis = rates.basis == "heartbeats" ? "now" : "on average since the capture began"
        return "\(Int(rates.packetsPerSecond.rounded())) packets/s, \(Formatting.bytes(UInt64(max(0, rates.bytesPerSecond))))/s \(basis)"
    }

    static func recording(_ recording: RecordingWithProject, flows: Int, now: Date, zone: TimeZone) -> String {
        let session = recording.session
        let phone = session.phone.map { " of phone \(quoted($0.name))" } ?? ""
        return "session \(session.id)\(phone), \(self.recording(project: recording.projectName, kind: session.kind)), "
            + "since \(Formatting.time(session.startedAt, in: zone)) (\(Formatting.duration(Instant(now).seconds(since: session.startedAt)))), "
            + plural(flows, "flow")
    }

    static func disk(history: UInt64, captureFiles: [CaptureFile], free: UInt64?) -> String {
        let captureBytes = captureFiles.reduce(UInt64(0)) { $0 &+ $1.bytes }
        var text = "history \(Formatting.bytes(history)); captures \(plural(captureFiles.count, "file")), \(Formatting.bytes(captureBytes))"
        if let free { text += "; \(Formatting.bytes(free)) free beside the history" }
        return text
    }
}
