import TunnelVisionModel

/// What every connection of one loop shares. Touched only on the loop's thread.
final class RelayContext {
    let configuration: RelayConfiguration
    let policy: InspectionPolicy
    let tls: RelayTLS
    let minter: PresentationMinter?
    let observer: RelayObserver
    let loop: EventLoop
    var refusals: RefusalMemory
    let upstreamSessions: UpstreamSessions
    /// The observer's presentation, asked off the loop.
    let presentations: PresentationReads
    /// Ciphertext between a socket and a memory BIO.
    let wireBuffer: UnsafeMutableRawBufferPointer
    /// Plaintext between the two TLS sessions.
    let plainBuffer: UnsafeMutableRawBufferPointer
    /// The relay's own listeners: a connection whose "original destination" is one of them was not redirected.
    var listenerEndpoints: Set<UInt16> = []

    static let chunk = 64 * 1024

    init(configuration: RelayConfiguration, tls: RelayTLS, minter: PresentationMinter?, observer: RelayObserver, loop: EventLoop) {
        self.configuration = configuration
        policy = InspectionPolicy(
            isEnabled: configuration.isEnabled, inspectedPorts: configuration.inspectedPorts,
            hasCertificateAuthority: minter != nil)
        self.tls = tls
        self.minter = minter
        self.observer = observer
        self.loop = loop
        refusals = RefusalMemory(capacity: configuration.limits.refusalMemoryEntries)
        upstreamSessions = UpstreamSessions(capacity: configuration.limits.leafCacheEntries)
        presentations = PresentationReads(observer: observer, wake: { [loop] in loop.signal() })
        wireBuffer = .allocate(byteCount: Self.chunk, alignment: 16)
        plainBuffer = .allocate(byteCount: Self.chunk, alignment: 16)
    }

    deinit {
        wireBuffer.deallocate()
        plainBuffer.deallocate()
    }

    var limits: RelayLimits { configuration.limits }
}
