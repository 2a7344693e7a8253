import COpenSSL
import Foundation
import Glibc
import Synchronization
import TunnelVisionModel
@testable import TunnelVisionRelay

/// What the relay told its observer, in order.
final class ObservedReports: RelayObserver, Sendable {
    private let state = Mutex<(reports: [RelayReport], answered: Int, rolledBack: Int)>(([], 0, 0))

    func relayWillAnswer(_ leg: RelayPhoneLeg) { state.withLock { $0.answered += 1 } }
    func relayDidRollBack(_ leg: RelayPhoneLeg) { state.withLock { $0.rolledBack += 1 } }
    func relayDidReport(_ report: RelayReport) { state.withLock { $0.reports.append(report) } }

    var reports: [RelayReport] { state.withLock { $0.reports } }
    var final: RelayReport? { reports.last(where: \.isFinal) }
    var answered: Int { state.withLock { $0.answered } }
    var rolledBack: Int { state.withLock { $0.rolledBack } }
}

/// Two ends of one TCP connection over loopback. A UNIX socketpair cannot reset, and the
/// outcome table has rows for a reset: this pair can (`Sockets.reset`).
enum SocketPair {
    static func tcp() -> (near: Int32, far: Int32) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                _ = bind(listener, pointer, length)
                _ = listen(listener, 1)
                _ = getsockname(listener, pointer, &length)
            }
        }
        let near = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = connect(near, $0, length) }
        }
        let far = accept(listener, nil, nil)
        _ = fcntl(far, F_SETFL, fcntl(far, F_GETFL) | O_NONBLOCK)
        close(listener)
        return (near, far)
    }
}

/// One end of a test's TLS over a socket: the phone's client or the server's server.
final class TestTLS {
    let context: OpaquePointer
    let ssl: OpaquePointer
    let descriptor: Int32

    /// A phone: TLS 1.2 at most, so that an alert it sends by hand during the handshake is a
    /// plaintext record any TLS server reads.
    init(phone descriptor: Int32, serverName: String) {
        context = SSL_CTX_new(TLS_client_method())!
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        ssl = SSL_new(context)!
        self.descriptor = descriptor
        _ = tv_SSL_set_max_proto_version(ssl, Int32(TLS1_2_VERSION))
        _ = tv_SSL_set_tlsext_host_name(ssl, serverName)
        SSL_set_fd(ssl, descriptor)
        SSL_set_connect_state(ssl)
    }

    /// The real server, with a leaf for the name from the test's server CA.
    init(server descriptor: Int32, leaf: Leaf, key: OpaquePointer) {
        context = SSL_CTX_new(TLS_server_method())!
        _ = SSL_CTX_use_certificate(context, leaf.certificate)
        _ = SSL_CTX_use_PrivateKey(context, key)
        ssl = SSL_new(context)!
        self.descriptor = descriptor
        SSL_set_fd(ssl, descriptor)
        SSL_set_accept_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// One step of the handshake: true once it is done.
    @discardableResult
    func handshake() -> Bool { SSL_do_handshake(ssl) == 1 }

    func write(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
    }

    /// Offers only these TLS 1.2 cipher suites (OpenSSL's names), before the first handshake step.
    func offerOnly(_ ciphers: String) { _ = SSL_set_cipher_list(ssl, ciphers) }

    /// The phone's close_notify, encrypted after the handshake.
    func closeNotify() { _ = SSL_shutdown(ssl) }

    /// What has arrived, decrypted.
    func read() -> String {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let count = SSL_read(ssl, &buffer, Int32(buffer.count))
        return count > 0 ? String(decoding: buffer[0..<Int(count)], as: UTF8.self) : ""
    }
}

/// Plain bytes on a test's socket.
enum Plain {
    static func write(_ descriptor: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What the socket holds now; nil at its end.
    static func read(_ descriptor: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if count == 0 { return nil }
        return count > 0 ? Array(buffer[0..<count]) : []
    }

    static func hasBytes(_ descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }
}

/// One relay connection between a phone and a server that the test plays, over real sockets,
/// with the relay's real OpenSSL contexts, its CA made for the test, and the loop run step by
/// step on the test's thread.
final class RelayConnectionHarness: ConnectionRegistry {
    static let serverName = "api.test.example"
    /// Never dialled: the harness hands the relay one end of a socket pair instead.
    static let destination = Endpoint(address: IPAddress("198.51.100.30")!, port: 443)

    let observed = ObservedReports()
    let loop: EventLoop
    let context: RelayContext
    let connection: RelayConnection
    /// The phone's end of its connection to the relay.
    private(set) var phone: Int32
    /// The server's end of each connection the relay dialled, in order.
    private(set) var servers: [Int32] = []
    private var connections: [Int32: RelayConnection] = [:]
    private(set) var forgotten = false
    private let serverAuthority: CertificateAuthority
    private let serverLeaves: LeafMinter
    private let folder: String

    init(limits: RelayLimits = RelayLimits(holdSeconds: 2, connectSeconds: 2, handshakeSeconds: 2, idleSeconds: 5)) throws {
        folder = NSTemporaryDirectory() + "tv-relay-connection-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        serverAuthority = try CertificateAuthority.ephemeral(now: Date(), commonName: "test server CA")
        serverLeaves = try LeafMinter(authority: serverAuthority, cacheEntries: 4)
        let trust = folder + "/server-ca.pem"
        try serverAuthority.certificatePEM.write(toFile: trust, atomically: true, encoding: .utf8)
        let configuration = RelayConfiguration(
            isEnabled: true, certificateAuthority: CertificateAuthorityFiles(keyPath: folder + "/ca.key", certificatePath: folder + "/ca.pem"),
            upstreamTrust: .bundle(path: trust), limits: limits)
        let relayAuthority = try CertificateAuthority.ephemeral(now: Date(), commonName: "test relay CA")
        let minter = RequestedLeafMinter(
            installed: try LeafMinter(authority: relayAuthority, cacheEntries: 4), recordingAuthorityDirectory: folder)
        loop = try EventLoop()
        context = RelayContext(
            configuration: configuration, tls: try RelayTLS(upstreamTrust: configuration.upstreamTrust), minter: minter,
            observer: observed, loop: loop)
        let (relayEnd, phoneEnd) = SocketPair.tcp()
        phone = phoneEnd
        let leg = RelayPhoneLeg(phone: Endpoint(address: IPAddress("10.77.0.2")!, port: 40_000), originalDestination: Self.destination)
        connection = RelayConnection(context: context, phone: relayEnd, leg: leg)
        connections[relayEnd] = connection
        connection.loopRegistry = self
        context.dial = { [unowned self] _ in
            let (near, far) = SocketPair.tcp()
            servers.append(far)
            return .success(near)
        }
        connection.start()
    }

    deinit {
        context.presentations.stop()
        if phone >= 0 { close(phone) }
        servers.filter { $0 >= 0 }.forEach { close($0) }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The phone resets its connection (SO_LINGER 0).
    func resetPhone() {
        Sockets.reset(phone)
        phone = -1
    }

    /// The server closes its end of the relay's latest connection to it.
    func closeServer() {
        guard let last = servers.indices.last, servers[last] >= 0 else { return }
        close(servers[last])
        servers[last] = -1
    }

    /// The real server's TLS on the relay's latest connection to it.
    func serverTLS() -> TestTLS? {
        guard let server = servers.last, let leaf = try? serverLeaves.leaf(for: Self.serverName, now: Int(Date().timeIntervalSince1970))
        else { return nil }
        return TestTLS(server: server, leaf: leaf, key: serverLeaves.leafKey)
    }

    /// One round of the relay's loop, as `RelayServer.run` does it.
    func turn() {
        loop.wait(milliseconds: 5) { readiness in
            connections[readiness.descriptor]?.handle(
                descriptor: readiness.descriptor, readable: readiness.isReadable, writable: readiness.isWritable,
                broken: readiness.isBroken, hungUp: readiness.isHungUp)
        }
        for answer in context.presentations.take() { answer.connection.presentationArrived(answer.presentation) }
        context.wakeWaitingForBuffers()
        if !forgotten { connection.timedOut(now: MonotonicClock.nanoseconds()) }
    }

    /// Turns the loop, with `also` between turns, until `done` holds or five seconds pass.
    @discardableResult
    func run(until done: () -> Bool, also: () -> Void = {}) -> Bool {
        let end = Date().addingTimeInterval(5)
        while Date() < end {
            if done() { return true }
            turn()
            also()
        }
        return done()
    }

    /// Until the connection's final report.
    @discardableResult
    func runToEnd(also: () -> Void = {}) -> RelayReport? {
        run(until: { observed.final != nil }, also: also)
        return observed.final
    }

    func adopt(_ descriptor: Int32, for connection: RelayConnection) { connections[descriptor] = connection }
    func release(_ descriptor: Int32) { connections[descriptor] = nil }
    func forget(_ connection: RelayConnection) {
        connections = connections.filter { $0.value !== connection }
        forgotten = true
    }
}
