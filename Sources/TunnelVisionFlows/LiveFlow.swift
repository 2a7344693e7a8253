import TunnelVisionModel
import TunnelVisionWire

/// A flow the engine is following: what the store will hold, plus what it takes to go on
/// reading it. The parse state goes once the handshake is read.
struct LiveFlow {
    // Declared widest first: Swift lays stored properties out in this order, and a narrow one
    // between wide ones pads the flow (every byte counts a hundred thousand times over).
    let handle: FlowHandle
    var state: FlowState
    var reading: FlowReading?
    /// What the relay kept of the connection (out of line: few flows are relayed).
    var relayFactsKept: OutOfLine<RelayFacts>?
    var rowID: Int64?
    /// Its key's hash (`FlowIndex.hash`), taken once when it entered the table.
    var keyHash: UInt32 = 0
    /// Its place in the table's list of changed flows; -1 while unchanged since the last batch.
    var dirtyIndex: Int32 = -1
    /// Neighbours in the table's least-recently-seen list.
    var previous: Int32 = -1
    var next: Int32 = -1
    /// The version of the phone's first QUIC long header, taken for the offer's first once a
    /// version of the flow is proven (a client may open with one a server negotiates away).
    var firstClientQUICVersion: QUICVersion?
    var lifecycle = TCPLifecycle()
    /// Whether the phone's end is the key's first endpoint (a flag, not a copy of the endpoint).
    let clientIsEndpointA: Bool
    /// The QUIC reading is over (read, or the datagrams were not QUIC): it does not begin again.
    var quicReadingEnded = false
    /// The relay's TLS server answers the phone on this flow: the server side is not the server's.
    var relayOwnsServerSide = false
    /// Whether the next batch must carry the relay's facts.
    var relayFactsDirty = false

    init(handle: FlowHandle, rowID: Int64?, state: FlowState, clientIsEndpointA: Bool) {
        self.handle = handle
        self.rowID = rowID
        self.state = state
        self.clientIsEndpointA = clientIsEndpointA
    }

    var relayFacts: RelayFacts? {
        get { relayFactsKept?.value }
        set { relayFactsKept = newValue.map(OutOfLine.init) }
    }

    // Inlined where the table yields a flow in place: a call would take the whole flow as its
    // argument, a copy that retains everything it holds.
    var isDirty: Bool { @inline(__always) get { dirtyIndex >= 0 } }
    var lastSeenNanoseconds: Int64 { @inline(__always) get { state.lastSeen.nanosecondsSinceEpoch } }

    @inline(__always)
    func direction(from source: Endpoint) -> Direction {
        source == client ? .outbound : .inbound
    }

    var client: Endpoint { @inline(__always) get { clientIsEndpointA ? state.key.endpointA : state.key.endpointB } }
    var remote: Endpoint { @inline(__always) get { clientIsEndpointA ? state.key.endpointB : state.key.endpointA } }

    /// The flow as the store should now hold it.
    var upsert: FlowUpsert { FlowUpsert(handle: handle, rowID: rowID, state: state, client: client.address) }
}

/// How far a TCP connection has come: its ends' SYNs and FINs, a reset.
struct TCPLifecycle {
    var finishedOut = false
    var finishedIn = false
    var reset = false

    var isClosed: Bool { reset || (finishedOut && finishedIn) }

    mutating func note(_ flags: TCPFlags, direction: Direction) {
        if flags.contains(.rst) { reset = true }
        if flags.contains(.fin) {
            if direction == .outbound { finishedOut = true } else { finishedIn = true }
        }
    }
}
