import Foundation
import TunnelVisionArchive

/// The `--json` shape of `tvctl status`.
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
            /// The passive tap's libpcap drop counts for this capture session; absent
            /// for an input that has none.
            public let kernelDropped: UInt64?
            public let interfaceDropped: UInt64?
        }

        public struct Traffic: Encodable, Sendable, Hashable {
            public let packetsSeen: UInt64
            public let bytesSeen: UInt64
            public let packetsRecorded: UInt64
            public let packetsNotCaptured: UInt64
            public let packetsDropped: UInt64
            public let queueDepth: Int
        }

        /// The relay's counts from the last heartbeat; absent when no relay ran.
        public struct RelayCounts: Encodable, Sendable, Hashable {
            public let connections: Int
            /// Connections reset because the relay was at its descriptor ceiling.
            public let refusedAtCeiling: UInt64
            /// Relay reports that matched no flow of the tap: their facts are not in the history.
            public let reportsUnmatched: UInt64
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
        public let relay: RelayCounts?
        public let rates: Rates?
        public let inspectionEnabled: Bool
        /// "wait" or "forward", and the bound of a wait; absent from a daemon before it.
        public let whenRecorderBehind: String?
        public let recorderWaitMilliseconds: Int?
        /// The CA the running relay signs with; absent when no relay runs with one.
        public let inspectionCASHA256: String?
        /// The oldest open recording; `recordings` has every one (one per phone).
        public let recording: Session?
        public let recordings: [Session]
        public let disk: Disk
        /// What waits for the lab's archive, as the last publication left it; absent on a
        /// gateway that has never published.
        public let archive: ArchiveStanding?

        init(_ status: DaemonStatus, rates: DaemonStatus.Rates?, now: Date, database: String, archive: ArchiveStanding? = nil) {
            self.database = database
            self.archive = archive
            let beat = status.heartbeat
            daemon = Daemon(
                running: status.isRunning(at: now), pid: beat?.pid, heartbeatAt: beat.map { Formatting.iso8601($0.at) },
                heartbeatAgeSeconds: beat.map { (now.timeIntervalSince($0.at) * 1000).rounded() / 1000 })
            capture = status.captureRun.map {
                Capture(sessionID: $0.id, startedAt: Formatting.iso8601($0.startedAt), input: $0.input, toolVersion: $0.toolVersion,
                        kernelDropped: $0.tapDrops?.kernel, interfaceDropped: $0.tapDrops?.interface)
            }
            traffic = beat.map {
                Traffic(packetsSeen: $0.packetsSeen, bytesSeen: $0.bytesSeen, packetsRecorded: $0.packetsRecorded,
                        packetsNotCaptured: $0.packetsNotCaptured, packetsDropped: $0.packetsDropped, queueDepth: $0.queueDepth)
            }
            if let beat, let connections = beat.relayConnections {
                relay = RelayCounts(connections: connections, refusedAtCeiling: beat.relayRefusedAtCeiling ?? 0,
                              reportsUnmatched: beat.relayReportsUnmatched ?? 0)
            } else {
                relay = nil
            }
            self.rates = rates.map { Rates(packetsPerSecond: $0.packetsPerSecond, bytesPerSecond: $0.bytesPerSecond, basis: $0.basis) }
            inspectionEnabled = status.inspectionEnabled
            whenRecorderBehind = status.recorderBacklog?.rawValue
            recorderWaitMilliseconds = status.recorderWaitMilliseconds
            inspectionCASHA256 = status.isRunning(at: now) ? status.inspectingCAFingerprint : nil
            recordings = status.recordings.map {
                Session($0.recording.session, projectName: $0.recording.projectName, flowCount: $0.flows)
            }
            recording = recordings.first
            disk = Disk(
                historyBytes: status.historyBytes, captureFiles: status.captureFiles.count,
                captureBytes: status.captureFiles.reduce(UInt64(0)) { $0 &+ $1.bytes }, freeBytes: status.freeBytes)
        }
    }

    /// The facts of `tvctl status`'s archive line.
    public struct ArchiveStanding: Encodable, Sendable, Hashable {
        public struct Held: Encodable, Sendable, Hashable {
            public let recording: Int64
            public let reason: String
            public let nextAttemptAt: String
        }

        /// Ended recordings the archive does not hold yet, by number.
        public let waiting: [Int64]
        public let lastAttemptAt: String?
        public let lastError: String?
        public let nextAttemptAt: String?
        /// Recordings whose bundle could not be exported: they wait, the others go on.
        public let held: [Held]

        init(waiting: [Int64], state: ArchiveState) {
            self.waiting = waiting
            lastAttemptAt = state.lastAttempt.map { Formatting.iso8601(Date(nanosecondsSinceEpoch: $0)) }
            lastError = state.lastError
            nextAttemptAt = state.nextAttempt.map { Formatting.iso8601(Date(nanosecondsSinceEpoch: $0)) }
            held = state.held.map {
                Held(recording: $0.id, reason: $0.reason, nextAttemptAt: Formatting.iso8601(Date(nanosecondsSinceEpoch: $0.nextAttempt)))
            }
        }
    }
}
