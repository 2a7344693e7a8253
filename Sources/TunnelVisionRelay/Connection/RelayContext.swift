import TunnelVisionModel

/// What every connection of one loop shares. Touched only on the loop's thread.
final class RelayContext {
    let configuration: RelayConfiguration
    let policy: InspectionPolicy
    let tls: RelayTLS
    let minter: RequestedLeafMinter?
    let observer: RelayObserver
    let loop: EventLoop
    var refusals: RefusalMemory
    let upstreamSessions: UpstreamSessions
    /// The observer's presentation, asked off the loop.
    let presentations: RequestedLeafReads
    /// Bytes read from a socket before they are held, spliced or given to a handshake.
    let wireBuffer: UnsafeMutableRawBufferPointer
    /// Plaintext between the two TLS sessions.
    let plainBuffer: UnsafeMutableRawBufferPointer
    /// The relay's own listeners: a connection whose "original destination" is one of them was not redirected.
    var listenerEndpoints: Set<UInt16> = []

    /// Starts the connection to an original destination (a non-blocking connect, marked): tests
    /// hand the connection one end of a socket pair instead.
    var dial: (Endpoint) -> Result<Int32, Errno>

    static let chunk = 64 * 1024

    init(configuration: RelayConfiguration, tls: RelayTLS, minter: RequestedLeafMinter?, observer: RelayObserver, loop: EventLoop) {
        self.configuration = configuration
        dial = { [mark = configuration.upstreamSocketMark] in Sockets.connect(to: $0, mark: mark) }
        policy = InspectionPolicy(
            isEnabled: configuration.isEnabled, inspectedPorts: configuration.inspectedPorts,
            hasCertificateAuthority: minter != nil)
        self.tls = tls
        self.minter = minter
        self.observer = observer
        self.loop = loop
        refusals = RefusalMemory(capacity: configuration.limits.refusalMemoryEntries)
        upstreamSessions = UpstreamSessions(capacity: configuration.limits.leafCacheEntries)
        presentations = RequestedLeafReads(observer: observer, wake: { [loop] in loop.signal() })
        wireBuffer = .allocate(byteCount: Self.chunk, alignment: 16)
        plainBuffer = .allocate(byteCount: Self.chunk, alignment: 16)
    }

    deinit {
        wireBuffer.deallocate()
        plainBuffer.deallocate()
    }

    var limits: RelayLimits { configuration.limits }

    /// Bytes every connection holds in its queues and TLS buffers, against `limits.bufferBudget`.
    var buffered = 0
    /// Connections that stopped reading at the budget: pumped again once it has room.
    var waitingForBuffers: [ObjectIdentifier: RelayConnection] = [:]

    /// How much a connection may have queued before it stops reading from a side: its own
    /// bound, or nothing while all connections together are at the budget.
    var readLimit: Int { buffered >= limits.bufferBudget ? 0 : limits.bufferBytes }

    /// After the loop's events: once the budget has room, the connections that waited read again.
    func wakeWaitingForBuffers() {
        guard !waitingForBuffers.isEmpty, buffered < limits.bufferBudget else { return }
        let waiting = waitingForBuffers
        waitingForBuffers.removeAll()
        for connection in waiting.values { connection.pump() }
    }
}
