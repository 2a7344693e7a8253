import Foundation
import TunnelVisionModel
import TunnelVisionWire

/// Turns captured packets into flows for the history: one table per capture session, the
/// phone's end told by the configured networks (or the initiator), each flow's handshake read
/// from the first bytes of both directions, DNS answers kept to name later flows.
///
/// Pure: it is given every instant, never reads a clock, and does no I/O. The store writes what
/// `takeBatch(now:)` hands over and answers with the rows it gave new flows (`assign(rows:of:)`).
public struct FlowEngine {
    public let configuration: FlowEngineConfiguration
    public internal(set) var statistics = FlowEngineStatistics()

    var table: FlowTable
    var attribution = DNSAttribution()
    var certificates = CertificateSummaryCache()
    private var fragments = FragmentPorts()
    var datagrams = IPFragmentReassembler()
    private var nextHandle: FlowHandle = 1
    var pending = HistoryBatch()
    /// The latest packet time seen: captures may carry timestamps slightly out of order.
    private var clock: Int64 = .min
    /// The first packet's time: the capture's start, as far as the engine can tell.
    private var captureStart: Int64?
    /// Reassembly held at the last count, and bytes placed since (an upper bound of the growth).
    var reassemblyCounted = 0
    var reassemblyGrowth = 0

    public init(configuration: FlowEngineConfiguration = FlowEngineConfiguration()) {
        self.configuration = configuration
        self.table = FlowTable(capacity: configuration.flowCapacity)
    }

    public var liveFlowCount: Int { table.count }

    /// What one live flow takes in the table itself, before whatever it points at.
    public static var liveFlowStride: Int { MemoryLayout<LiveFlow>.stride }

    /// Reads one captured frame.
    public mutating func process(
        packet frame: UnsafeRawBufferPointer, linkType: LinkType, timestampNanoseconds: Int64,
        wireLength: Int? = nil, location: CaptureLocation = .notCaptured
    ) {
        statistics.packets += 1
        guard let packet = DecodedPacket(frame: frame, linkType: linkType) else {
            statistics.undecodable += 1
            return
        }
        clock = max(clock, timestampNanoseconds)
        if captureStart == nil { captureStart = timestampNanoseconds }
        expireIdleFlows(at: clock)

        let (source, destination) = fragments.endpoints(of: packet)
        let slot = flowSlot(for: packet, source: source, destination: destination, at: timestampNanoseconds)
        let length = UInt32(clamping: wireLength ?? frame.count)
        // From the flow's stored fields: a method called on the flow would copy it whole first.
        let key = table[slot].state.key
        let direction: Direction = source == (table[slot].clientIsEndpointA ? key.endpointA : key.endpointB) ? .outbound : .inbound
        count(packet, direction: direction, into: slot, at: timestampNanoseconds)
        pending.packets.append(PacketRecord(
            flow: table[slot].handle, timestampNanoseconds: timestampNanoseconds, direction: direction,
            wireLength: length, location: location
        ))

        switch packet.transport {
        case .tcp:
            if let segment = packet.tcp { readTCP(segment, direction: direction, slot: slot, at: timestampNanoseconds) }
        case .udp:
            if packet.ip.fragmentIdentifier == nil {
                readUDP(packet.payload, source: source, direction: direction, slot: slot, at: timestampNanoseconds)
            } else {
                reassembleUDP(packet.ip, at: timestampNanoseconds)
            }
        default:
            break
        }
    }

    /// Everything to write since the last batch: new and changed flows, flows that ended (idle by
    /// `now`, evicted, closed and replaced), packet rows and DNS answers.
    public mutating func takeBatch(now: Int64) -> HistoryBatch {
        clock = max(clock, now)
        expireIdleFlows(at: clock)
        for slot in table.takeDirtySlots() {
            pending.flows.append(table[slot].upsert)
            if let record = table[slot].relayFactsToWrite {
                pending.relayFacts.append(record)
                table[slot].relayFactsDirty = false
            }
        }
        let batch = pending
        pending = HistoryBatch()
        // The next batch is likely the size of this one: its rows need not grow there step by step.
        pending.packets.reserveCapacity(batch.packets.count)
        return batch
    }

    /// Records the rows the store gave the flows of `batch` it inserted. The batch names each
    /// flow's key, so that no second index of the live flows by handle is kept.
    public mutating func assign(rows: [FlowHandle: Int64], of batch: HistoryBatch) {
        for upsert in batch.flows where upsert.rowID == nil {
            guard let row = rows[upsert.handle], let slot = table.slot(for: upsert.state.key),
                  table[slot].handle == upsert.handle, table[slot].rowID == nil else { continue }
            table[slot].rowID = row
        }
    }

    /// Ends every live flow, as at the end of an import or a capture session.
    public mutating func finishAll() -> HistoryBatch {
        while table.count > 0 { finish(slot: table.count - 1) }
        return takeBatch(now: clock)
    }

    // MARK: - The flow table

    private mutating func flowSlot(
        for packet: DecodedPacket, source: Endpoint, destination: Endpoint, at now: Int64
    ) -> Int {
        let key = FlowKey(proto: packet.transport, source, destination)
        let hash = FlowIndex.hash(key)
        if let slot = table.slot(for: key, hash: hash) {
            let idle = now - table[slot].lastSeenNanoseconds > configuration.idleTimeout(for: key.proto)
            let reopened = table[slot].lifecycle.isClosed && packet.tcp.map(Self.isOpeningSYN) == true
            guard idle || reopened else {
                table.touch(slot)
                return slot
            }
            if idle { statistics.flowsExpired += 1 }
            finish(slot: slot)
        }
        if table.count >= configuration.flowCapacity, let oldest = oldestSlot() {
            statistics.flowsEvicted += 1
            finish(slot: oldest)
        }
        let handle = nextHandle
        nextHandle += 1
        let flow = newFlow(handle: handle, key: key, packet: packet, source: source, destination: destination, at: now)
        return table.insert(flow, hash: hash)
    }

    private func newFlow(
        handle: FlowHandle, key: FlowKey, packet: DecodedPacket, source: Endpoint, destination: Endpoint, at now: Int64
    ) -> LiveFlow {
        let client = clientEnd(of: packet, source: source, destination: destination)
        let remote = key.peer(of: client)
        let seen = Instant(nanosecondsSinceEpoch: now)
        var state = FlowState(
            key: key, firstSeen: seen, lastSeen: seen,
            tlsStatus: .born(proto: key.proto, remotePort: remote.port),
            resolvedName: attribution.resolvedName(for: remote.address, askedBy: client.address, at: now)
        )
        if let segment = packet.tcp, !segment.flags.contains(.syn) { state.continuation = continuation(at: now) }
        var flow = LiveFlow(handle: handle, rowID: nil, state: state, clientIsEndpointA: client == key.endpointA)
        if key.proto == .tcp {
            flow.reading = .tcp(ReadingBox(TCPStreamReading(limit: configuration.reassemblyLimit, carriesDNS: remote.port == 53)))
        }
        return flow
    }

    /// The phone's end: inside the configured networks, else the end that opened the flow — the
    /// SYN's sender, or for a first packet from a service port to a higher one, its receiver
    /// (a capture that begins with an answer).
    private func clientEnd(of packet: DecodedPacket, source: Endpoint, destination: Endpoint) -> Endpoint {
        if configuration.isClient(source.address) { return source }
        if configuration.isClient(destination.address) { return destination }
        if let segment = packet.tcp, segment.flags.contains(.syn) {
            return segment.flags.contains(.ack) ? destination : source
        }
        if packet.transport.hasPorts, source.port < 1024, destination.port >= 1024 { return destination }
        return source
    }

    /// A TCP record that begins without a SYN continues a connection opened before it. Within
    /// the idle timeout of the capture's start no record of this capture can have ended idle, so
    /// unless the table was full (an eviction) the opening came before the capture itself.
    private func continuation(at now: Int64) -> FlowContinuation {
        let sinceStart = now - (captureStart ?? now)
        return sinceStart <= configuration.tcpIdleTimeoutNanoseconds && statistics.flowsEvicted == 0
            ? .openedBeforeCapture : .openedBeforeRecord
    }

    private static func isOpeningSYN(_ segment: TCPSegment) -> Bool {
        segment.flags.contains(.syn) && !segment.flags.contains(.ack)
    }

    private func oldestSlot() -> Int? {
        FlowTable.lists.compactMap { table.oldestSlot(inList: $0) }
            .min { table[$0].lastSeenNanoseconds < table[$1].lastSeenNanoseconds }
    }

    /// Each list is ordered by last sight, so its idle flows are at its tail.
    private mutating func expireIdleFlows(at now: Int64) {
        for list in FlowTable.lists {
            while let slot = table.oldestSlot(inList: list),
                  now - table[slot].lastSeenNanoseconds > configuration.idleTimeout(for: table[slot].state.key.proto) {
                statistics.flowsExpired += 1
                finish(slot: slot)
            }
        }
    }

    /// Takes a flow out of the table; its last state goes into the next batch unless an earlier
    /// batch already carried it unchanged.
    private mutating func finish(slot: Int) {
        let flow = table.remove(slot)
        if flow.isDirty { pending.flows.append(flow.upsert) }
        if flow.isDirty, let record = flow.relayFactsToWrite { pending.relayFacts.append(record) }
    }

    private mutating func count(_ packet: DecodedPacket, direction: Direction, into slot: Int, at now: Int64) {
        let bytes = UInt64(packet.ip.totalLength)
        table[slot].state.packetCount += 1
        if direction == .outbound { table[slot].state.bytesOut += bytes } else { table[slot].state.bytesIn += bytes }
        if now > table[slot].lastSeenNanoseconds {
            table[slot].state.lastSeen = Instant(nanosecondsSinceEpoch: now)
        } else if now < table[slot].state.firstSeen.nanosecondsSinceEpoch {
            // Only a packet out of order can precede the first one seen.
            table[slot].state.firstSeen = Instant(nanosecondsSinceEpoch: now)
        }
        table.markDirty(slot)
    }
}
