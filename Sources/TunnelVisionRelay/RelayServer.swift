import Foundation
import CEpoll
import Glibc
import Synchronization
import TunnelVisionModel

/// The relay: its listeners, its CA and leaves, and one event loop on a thread of its own.
/// Nothing in the loop blocks: sockets are non-blocking, TLS runs over the relay's own BIOs, and a
/// connection that cannot move waits in epoll without holding up the others.
public final class RelayServer: @unchecked Sendable {
    public let configuration: RelayConfiguration
    /// Nil with inspection off: then nothing is terminated and no CA is needed.
    public let authority: CertificateAuthority?
    public var caFingerprint: String? { authority?.fingerprint }

    private let loop: EventLoop
    private let context: RelayContext
    private var listeners: [Int32] = []
    private var connections: [Int32: RelayConnection] = [:]
    private var liveConnections = 0
    /// Live connections per phone address, for the per-phone cap.
    private var phoneConnections: [IPAddress: Int] = [:]
    /// The phone's own source port, when NAT rewrote the one the relay sees; nil: not available here.
    private let conntrack = ConntrackLookup()
    /// Connections at once: `limits.maximumConnections`, lowered so that the relay's descriptors
    /// and the reserve fit under the process's RLIMIT_NOFILE.
    public let connectionCeiling: Int
    /// What the daemon publishes of the relay (read from any thread).
    public let counters = RelayCounters()
    private var acceptPaused = false
    /// After running out of descriptors, when to try accepting again.
    private var acceptResumesAt: Int64?
    private var nextTimerScan: Int64 = 0

    /// Requests from other threads, read by the loop after a wake-up.
    private let requests = NSLock()
    private var stopRequested = false
    private var forgetRequested = false
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    /// Loads (or makes) the CA when inspection is on and binds the listeners; `start` runs it.
    public init(configuration: RelayConfiguration, observer: RelayObserver) throws(RelayError) {
        self.configuration = configuration
        let authority = configuration.isEnabled ? try CertificateAuthority.loadOrCreate(configuration.certificateAuthority) : nil
        self.authority = authority
        var descriptors = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &descriptors)
        // Started from a shell (tvrelay, a check) the soft limit is often 1,024, all of it the
        // reserve: raised to the hard limit where that is allowed. The unit sets both and filters
        // the call, so there it fails and the unit's limit stands.
        if descriptors.rlim_cur < descriptors.rlim_max {
            var raised = descriptors
            raised.rlim_cur = descriptors.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { descriptors = raised }
        }
        connectionCeiling = configuration.limits.connectionCeiling(
            descriptorLimit: Int(clamping: descriptors.rlim_cur))
        loop = try EventLoop()
        let tls = try RelayTLS(upstreamTrust: configuration.upstreamTrust)
        let minter = try authority.map { authority throws(RelayError) in
            RequestedLeafMinter(
                installed: try LeafMinter(authority: authority, cacheEntries: configuration.limits.leafCacheEntries),
                recordingAuthorityDirectory: (configuration.certificateAuthority.keyPath as NSString).deletingLastPathComponent)
        }
        context = RelayContext(configuration: configuration, tls: tls, minter: minter, observer: observer, loop: loop)
        for family in [IPAddress.Family.v4, .v6] {
            switch Sockets.listen(family: family, port: configuration.listenPort) {
            case .success(let descriptor):
                listeners.append(descriptor)
                loop.set(descriptor, .read)
            case .failure(let error):
                // A machine without IPv6 still relays IPv4.
                if family == .v4 || listeners.isEmpty && family == .v6 && error.code != EAFNOSUPPORT {
                    listeners.forEach { close($0) }
                    throw .listenerUnavailable(port: configuration.listenPort, reason: error.description)
                }
            }
        }
        if configuration.listenPort == 0, let first = listeners.first, let bound = Sockets.local(of: first) {
            boundPort = bound.port
        } else {
            boundPort = configuration.listenPort
        }
        context.listenerEndpoints = [boundPort]
    }

    /// The port actually listened on (the configured one, or the kernel's pick for port 0).
    public let boundPort: UInt16

    deinit {
        listeners.forEach { close($0) }
    }

    /// Runs the loop on a new thread.
    public func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "relay"
        self.thread = thread
        thread.start()
    }

    /// Ends the loop and every connection (each gets a final report), then returns.
    public func stop() {
        requests.lock()
        stopRequested = true
        requests.unlock()
        loop.signal()
        if thread != nil { finished.wait() }
    }

    /// After the CA is regenerated: refusals of the old CA say nothing about the new one.
    public func forgetRefusals() {
        requests.lock()
        forgetRequested = true
        requests.unlock()
        loop.signal()
    }

    /// Runs the loop on the calling thread until `stop`.
    public func run() {
        while true {
            requests.lock()
            let stopping = stopRequested, forgetting = forgetRequested
            forgetRequested = false
            requests.unlock()
            if forgetting { context.refusals.forgetAll() }
            if stopping { break }
            loop.wait(milliseconds: 250) { readiness in
                if listeners.contains(readiness.descriptor) {
                    acceptAll(from: readiness.descriptor)
                } else if let connection = connections[readiness.descriptor] {
                    connection.handle(
                        descriptor: readiness.descriptor, readable: readiness.isReadable,
                        writable: readiness.isWritable, broken: readiness.isBroken, hungUp: readiness.isHungUp)
                }
            }
            for answer in context.presentations.take() { answer.connection.presentationArrived(answer.presentation) }
            context.wakeWaitingForBuffers()
            scanTimers()
        }
        context.presentations.stop()
        var seen = Set<ObjectIdentifier>()
        for connection in connections.values where seen.insert(ObjectIdentifier(connection)).inserted {
            connection.abandon()
        }
        connections.removeAll()
    }

    private func acceptAll(from listener: Int32) {
        while true {
            let descriptor = tv_accept4(listener, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            guard descriptor >= 0 else {
                // Out of descriptors or memory: the pending connection stays readable, so wait a
                // little instead of spinning on it.
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    acceptPaused = true
                    acceptResumesAt = MonotonicClock.nanoseconds() + 100_000_000
                    listeners.forEach { loop.set($0, []) }
                }
                return
            }
            Sockets.setNoDelay(descriptor)
            Sockets.setKeepalive(descriptor)
            guard let seen = Sockets.peer(of: descriptor),
                  let destination = Sockets.originalDestination(of: descriptor, family: seen.address.family),
                  !isOwnListener(destination, of: descriptor)
            else {
                // Not brought here by the redirect: there is nowhere to relay it to.
                Sockets.reset(descriptor)
                continue
            }
            let leg = RelayPhoneLeg(phone: phoneEndpoint(seen: seen, of: descriptor), originalDestination: destination)
            guard liveConnections < connectionCeiling else {
                refuseAtCeiling(descriptor, leg: leg)
                continue
            }
            let held = phoneConnections[leg.phone.address, default: 0]
            let connection = RelayConnection(context: context, phone: descriptor, leg: leg,
                                             overPhoneCap: held >= configuration.limits.connectionsPerPhone)
            connection.loopRegistry = self
            connections[descriptor] = connection
            liveConnections += 1
            phoneConnections[leg.phone.address] = held + 1
            counters.live.store(liveConnections, ordering: .relaxed)
            connection.start()
        }
    }

    /// The phone's endpoint as the tap saw it: conntrack's original source when it answers (NAT may
    /// have rewritten the port the socket shows), else the socket's peer.
    private func phoneEndpoint(seen: Endpoint, of descriptor: Int32) -> Endpoint {
        guard let conntrack, let local = Sockets.local(of: descriptor),
              let original = conntrack.originalSource(local: local, peer: seen), original.address == seen.address
        else { return seen }
        if original.port != seen.port { counters.sourcePortsRestored.add(1, ordering: .relaxed) }
        return original
    }

    /// At the ceiling the phone gets a reset at once (not a wait in the backlog): the descriptors
    /// left are the recorder's. Its flow keeps why.
    private func refuseAtCeiling(_ descriptor: Int32, leg: RelayPhoneLeg) {
        Sockets.reset(descriptor)
        counters.refusedAtCeiling.add(1, ordering: .relaxed)
        var report = RelayReport(phoneLeg: leg, accepted: MonotonicClock.wallNanoseconds())
        report.event = .relayFailed(reason: "the relay was at its ceiling of \(connectionCeiling) connections; the phone's connection was reset")
        report.instants.ended = report.instants.accepted
        report.isFinal = true
        context.observer.relayDidReport(report)
    }

    /// Without a redirect, SO_ORIGINAL_DST answers the socket's own address: a loop.
    private func isOwnListener(_ destination: Endpoint, of descriptor: Int32) -> Bool {
        guard let local = Sockets.local(of: descriptor) else { return true }
        return destination == local && context.listenerEndpoints.contains(destination.port)
    }

    private func scanTimers() {
        let now = MonotonicClock.nanoseconds()
        if let resume = acceptResumesAt, now >= resume {
            acceptResumesAt = nil
            resumeAccepting()
        }
        guard now >= nextTimerScan else { return }
        nextTimerScan = now + 200_000_000
        // Each connection once, under its phone descriptor (its upstream one points at it too).
        for (descriptor, connection) in connections where descriptor == connection.phone {
            connection.timedOut(now: now)
        }
    }
}

extension RelayServer: ConnectionRegistry {
    func adopt(_ descriptor: Int32, for connection: RelayConnection) {
        connections[descriptor] = connection
    }

    func release(_ descriptor: Int32) {
        connections[descriptor] = nil
    }

    func forget(_ connection: RelayConnection) {
        connections[connection.phone] = nil
        liveConnections -= 1
        counters.live.store(liveConnections, ordering: .relaxed)
        let phone = connection.leg.phone.address
        if let held = phoneConnections[phone], held > 1 { phoneConnections[phone] = held - 1 } else { phoneConnections[phone] = nil }
        if acceptResumesAt == nil { resumeAccepting() }
    }

    private func resumeAccepting() {
        guard acceptPaused else { return }
        acceptPaused = false
        listeners.forEach { loop.set($0, .read) }
    }
}

/// The relay's counts, for the daemon's heartbeat and journal.
public final class RelayCounters: Sendable {
    /// Connections open now.
    public let live = Atomic<Int>(0)
    /// Connections reset because the relay was at its connection ceiling.
    public let refusedAtCeiling = Atomic<UInt64>(0)
    /// Connections whose source port NAT had rewritten, named by the phone's own (from conntrack).
    public let sourcePortsRestored = Atomic<UInt64>(0)
}
