import Foundation

/// One run of the capture daemon (or one offline import): the scope of a flow's 5-tuple.
public struct CaptureRun: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let startedAt: Instant
    public let endedAt: Instant?
    public let toolVersion: String
    /// "tun:tv0", "interface:eth0", "file:/path/x.pcap".
    public let input: String
    /// libpcap's counts for the whole capture session of a passive tap; nil for the
    /// inline tap and imports, which have no such count.
    public let tapDrops: PassiveTapDrops?

    public init(id: Int64, startedAt: Instant, endedAt: Instant?, toolVersion: String, input: String, tapDrops: PassiveTapDrops? = nil) {
        self.id = id
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.toolVersion = toolVersion
        self.input = input
        self.tapDrops = tapDrops
    }

    /// The kind of input the label names; nil for a label no daemon writes.
    public var inputKind: CaptureInputKind? { CaptureInputKind(label: input) }
}

/// Packets the passive tap never read, as libpcap's `pcap_stats` counts them since the tap
/// opened: dropped by the kernel (its capture buffer was full: `ps_drop`) and by the interface
/// or its driver (`ps_ifdrop`). They have no row and no bytes: the capture cannot show them.
public struct PassiveTapDrops: Sendable, Hashable {
    public var kernel: UInt64
    public var interface: UInt64

    public init(kernel: UInt64, interface: UInt64) {
        self.kernel = kernel
        self.interface = interface
    }

    public var total: UInt64 { kernel &+ interface }
}

/// A rotated .pcap file. Its sequence increases forever; 0 is never issued.
public struct CaptureFile: Sendable, Hashable {
    public let sequence: UInt32
    public let path: String
    public let createdAt: Date
    public let closedAt: Date?
    public let bytes: UInt64

    public init(sequence: UInt32, path: String, createdAt: Date, closedAt: Date?, bytes: UInt64) {
        self.sequence = sequence
        self.path = path
        self.createdAt = createdAt
        self.closedAt = closedAt
        self.bytes = bytes
    }
}

/// Where a packet's bytes are: a capture file and the offset of its record header.
/// A packet that was not captured is file 0 at offset 0, and the offset is what says so.
public struct CaptureLocation: Sendable, Hashable {
    public let fileSequence: UInt32
    public let offset: UInt64

    public init(fileSequence: UInt32, offset: UInt64) {
        self.fileSequence = fileSequence
        self.offset = offset
    }

    public static let notCaptured = CaptureLocation(fileSequence: 0, offset: 0)
    public var isCaptured: Bool { offset != 0 && fileSequence != 0 }
}

/// A handle the flow engine gives a live flow before the store has given it a row.
public typealias FlowHandle = UInt64

/// A flow to insert (no row yet) or to update (its row), as the engine knows it now.
public struct FlowUpsert: Sendable, Hashable {
    public let handle: FlowHandle
    public let rowID: Int64?
    public let state: FlowState
    /// The phone's end of the flow: the address whose open recording tags it. Nil when the
    /// writer cannot tell, and then only a recording of the whole tap tags it.
    public let client: IPAddress?

    public init(handle: FlowHandle, rowID: Int64?, state: FlowState, client: IPAddress? = nil) {
        self.client = client
        self.handle = handle
        self.rowID = rowID
        self.state = state
    }
}

/// Whether a batch's flows may join an open recording. A live capture's do; an offline import's
/// never: old traffic read now is not what a phone is doing while it is recorded.
public enum RecordingTagging: Sendable, Hashable {
    case openRecordings
    case none
}

/// One packet row: which flow, when, which way, how long on the wire, where its bytes are.
public struct PacketRecord: Sendable, Hashable {
    public let flow: FlowHandle
    public let timestampNanoseconds: Int64
    public let direction: Direction
    public let wireLength: UInt32
    public let location: CaptureLocation

    public init(flow: FlowHandle, timestampNanoseconds: Int64, direction: Direction, wireLength: UInt32, location: CaptureLocation) {
        self.flow = flow
        self.timestampNanoseconds = timestampNanoseconds
        self.direction = direction
        self.wireLength = wireLength
        self.location = location
    }
}

/// One address a DNS answer gave a name, and the DNS flow it came from.
public struct DNSAnswerRecord: Sendable, Hashable {
    public let timestampNanoseconds: Int64
    public let queryName: String
    public let address: IPAddress
    public let ttl: UInt32
    public let flow: FlowHandle

    public init(timestampNanoseconds: Int64, queryName: String, address: IPAddress, ttl: UInt32, flow: FlowHandle) {
        self.timestampNanoseconds = timestampNanoseconds
        self.queryName = queryName
        self.address = address
        self.ttl = ttl
        self.flow = flow
    }
}

/// What the engine hands the store in one transaction. Packets and answers name their flow by
/// handle, and every handle they name is among `flows` of the same batch (with its row, when an
/// earlier batch gave it one): a packet changes its flow's counters, so the flow is written too.
public struct HistoryBatch: Sendable, Hashable {
    public var flows: [FlowUpsert]
    public var packets: [PacketRecord]
    public var dnsAnswers: [DNSAnswerRecord]
    /// The relay's facts of flows it handled; each flow is among `flows` too.
    public var relayFacts: [RelayFactsRecord]

    public init(flows: [FlowUpsert] = [], packets: [PacketRecord] = [], dnsAnswers: [DNSAnswerRecord] = [],
                relayFacts: [RelayFactsRecord] = []) {
        self.flows = flows
        self.packets = packets
        self.dnsAnswers = dnsAnswers
        self.relayFacts = relayFacts
    }

    public var isEmpty: Bool { flows.isEmpty && packets.isEmpty && dnsAnswers.isEmpty && relayFacts.isEmpty }
}

/// Per flow and per capture file (nil: never captured), how many packets the history holds.
public struct SessionPacketCount: Sendable, Hashable {
    public let flowID: Int64
    public let fileSequence: UInt32?
    public let count: Int

    public init(flowID: Int64, fileSequence: UInt32?, count: Int) {
        self.flowID = flowID
        self.fileSequence = fileSequence
        self.count = count
    }
}

/// A packet-index entry as the history reads it back: the flow's row, when, which way, how long on
/// the wire, and its offset in the capture file its run names (0: not captured). Written, before
/// the flow has a row, as a `PacketRecord`.
public struct SessionCapturedPacket: Sendable, Hashable {
    public let flowID: Int64
    public let timestampNanoseconds: Int64
    public let direction: Direction
    public let wireLength: UInt32
    public let fileOffset: UInt64

    public init(flowID: Int64, timestampNanoseconds: Int64, direction: Direction, wireLength: UInt32, fileOffset: UInt64) {
        self.flowID = flowID
        self.timestampNanoseconds = timestampNanoseconds
        self.direction = direction
        self.wireLength = wireLength
        self.fileOffset = fileOffset
    }
}

/// Why packets the tap saw have no row in the history. Stored as its raw value and
/// written by its name: never renumber or rename a case.
public enum PacketLossReason: Int64, Sendable, Hashable, CaseIterable, NamedByCase {
    /// Both of the recorder's queues were full: not even the packet's headers could be kept.
    case queueFull = 0
    /// The history refused the batch that held the packet's row.
    case batchFailed = 1
    /// The daemon ended without a clean stop (kill -9, out of memory, power) while the packet was
    /// queued or in a batch not yet committed. Counted at the next start from the last `TapTally`
    /// the history holds, so the count is a lower bound: what the tap handed over after it is not known.
    case daemonStopped = 2

    /// Whether the history's count is "at least": only what was known before the loss is counted.
    public var countIsLowerBound: Bool { self == .daemonStopped }
}
