import PacketBuilding
import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

/// TLS after a cleartext start, and the host an HTTP request names.
@Suite struct CleartextStartTests {
    static let hello = PacketBuilder.handshakeRecord(type: 1, body: PacketBuilder.clientHelloBody(extensions: []))

    static func decide(_ text: [UInt8], opening: StreamOpening = .unrecognised) -> CleartextUpgrade.Decision? {
        var upgrade = CleartextUpgrade()
        text.withUnsafeBytes { upgrade.advanceClient(over: $0, opening: opening) }
        return upgrade.decision
    }

    @Test(arguments: [
        ("EHLO phone\r\nSTARTTLS\r\n", CleartextUpgrade.Prelude.startTLSCommand),
        ("a1 CAPABILITY\r\na2 starttls\r\n", .startTLSCommand),
        ("CAPA\r\nSTLS\r\n", .startTLSCommand),
        ("AUTH TLS\r\n", .startTLSCommand),
    ])
    func aCommandThatStartsTLSDecidesWhereItBegins(_ text: String, prelude: CleartextUpgrade.Prelude) {
        let commands = Array(text.utf8)
        #expect(Self.decide(commands + Self.hello) == .upgraded(prelude, clientOffset: commands.count))
    }

    @Test func theBinaryPreludesAreRecognisedByTheirBytes() {
        let postgres: [UInt8] = [0, 0, 0, 8, 0x04, 0xD2, 0x16, 0x2F]
        #expect(Self.decide(postgres) == .upgraded(.postgresSSLRequest, clientOffset: 8))
        var mysql: [UInt8] = [32, 0, 0, 1, 0x00, 0x0A, 0, 0] + [UInt8](repeating: 0, count: 28)
        #expect(Self.decide(mysql) == .upgraded(.mysqlSSLRequest, clientOffset: 36))
        mysql[5] = 0x02  // CLIENT_SSL not asked for
        #expect(Self.decide(mysql) == CleartextUpgrade.Decision.none)
        let connect = Array("CONNECT wire.test:443 HTTP/1.1\r\nHost: wire.test:443\r\n\r\n".utf8)
        #expect(Self.decide(connect, opening: .httpRequest) == .upgraded(.httpConnect, clientOffset: connect.count))
    }

    static func socks5Request(host: String) -> [UInt8] {
        [5, 1, 0, 3, UInt8(host.utf8.count)] + Array(host.utf8) + [0x11, 0x5B]
    }

    static func decideWithHost(_ bytes: [UInt8]) -> (CleartextUpgrade.Decision?, String?) {
        var upgrade = CleartextUpgrade()
        bytes.withUnsafeBytes { upgrade.advanceClient(over: $0, opening: .unrecognised) }
        return (upgrade.decision, upgrade.requestedHost)
    }

    @Test func aSOCKSConnectIsAPreludeAndItsDomainTheAnnouncedName() {
        let plain = [5, 1, 0] + Self.socks5Request(host: "Wire.Test")
        #expect(Self.decideWithHost(plain + Self.hello) == (.upgraded(.socks5, clientOffset: plain.count), "wire.test"))
        let password = [5, 2, 0, 2] + [1, 5] + Array("phone".utf8) + [6] + Array("secret".utf8) + Self.socks5Request(host: "wire.test")
        #expect(Self.decideWithHost(password + Self.hello) == (.upgraded(.socks5, clientOffset: password.count), "wire.test"))
        let address: [UInt8] = [5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0x11, 0x5B]
        #expect(Self.decideWithHost(address + Self.hello) == (.upgraded(.socks5, clientOffset: address.count), nil))
        let version6: [UInt8] = [5, 1, 0, 5, 1, 0, 4] + [UInt8](repeating: 0, count: 15) + [1, 0x01, 0xBB]
        #expect(Self.decideWithHost(version6) == (.upgraded(.socks5, clientOffset: version6.count), nil))
        let socks4a: [UInt8] = [4, 1, 0x11, 0x5B, 0, 0, 0, 1] + Array("user".utf8) + [0] + Array("wire.test".utf8) + [0]
        #expect(Self.decideWithHost(socks4a + Self.hello) == (.upgraded(.socks4, clientOffset: socks4a.count), "wire.test"))
        let socks4: [UInt8] = [4, 1, 0x11, 0x5B, 127, 0, 0, 1, 0]
        #expect(Self.decideWithHost(socks4 + Self.hello) == (.upgraded(.socks4, clientOffset: socks4.count), nil))
        // A domain that is an address, or no valid name, names nothing.
        let literal = [5, 1, 0] + Self.socks5Request(host: "192.0.2.1")
        #expect(Self.decideWithHost(literal).1 == nil)
    }

    @Test func aSOCKSRequestCutShortWaitsAndAnyOtherIsNone() {
        let whole = [5, 1, 0] + Self.socks5Request(host: "wire.test")
        for cut in 1..<whole.count { #expect(Self.decide(Array(whole.prefix(cut))) == nil, "cut at \(cut)") }
        let socks4a: [UInt8] = [4, 1, 0x11, 0x5B, 0, 0, 0, 1, 0] + Array("wire.test".utf8) + [0]
        for cut in 1..<socks4a.count { #expect(Self.decide(Array(socks4a.prefix(cut))) == nil, "cut at \(cut)") }
        #expect(Self.decide([5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80]) == CleartextUpgrade.Decision.none)  // BIND
        #expect(Self.decide([5, 0, 5]) == CleartextUpgrade.Decision.none)  // no method offered
        #expect(Self.decide([5, 1, 0, 4]) == CleartextUpgrade.Decision.none)  // neither a request nor authentication
        #expect(Self.decide([5, 1, 0, 5, 1, 0, 9]) == CleartextUpgrade.Decision.none)  // unknown address type
        #expect(Self.decide([4, 2, 0, 80, 127, 0, 0, 1, 0]) == CleartextUpgrade.Decision.none)  // SOCKS4 BIND
        #expect(Self.decide([4, 1, 0, 80, 127, 0, 0, 1] + [UInt8](repeating: 0x61, count: 300)) == CleartextUpgrade.Decision.none)
    }

    @Test func theProxysTLSFollowsItsGrant() {
        let serverHello: [UInt8] = [22, 3, 3, 0, 4, 2, 0, 0, 0]
        func offset(_ prelude: CleartextUpgrade.Prelude, _ bytes: [UInt8]) -> Int? {
            bytes.withUnsafeBytes { CleartextUpgrade.serverOffset(for: prelude, in: $0) }
        }
        let granted: [UInt8] = [5, 0, 5, 0, 0, 1, 127, 0, 0, 1, 0x11, 0x5B]
        #expect(offset(.socks5, granted + serverHello) == granted.count)
        let afterPassword: [UInt8] = [5, 2, 1, 0, 5, 0, 0, 3, 4] + Array("host".utf8) + [0, 80]
        #expect(offset(.socks5, afterPassword + serverHello) == afterPassword.count)
        #expect(offset(.socks5, [5, 2, 1, 1]) == nil)  // authentication failed
        #expect(offset(.socks5, [5, 0, 5, 5, 0, 1, 0, 0, 0, 0, 0, 0]) == nil)  // connection refused
        #expect(offset(.socks5, [5, 0xFF]) == nil)
        #expect(offset(.socks5, Array(granted.prefix(7))) == nil)
        #expect(offset(.socks4, [0, 90, 0, 80, 127, 0, 0, 1] + serverHello) == 8)
        #expect(offset(.socks4, [0, 91, 0, 80, 127, 0, 0, 1]) == nil)
    }

    @Test func otherStreamsAreNotUpgraded() {
        #expect(Self.decide(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8), opening: .httpRequest) == CleartextUpgrade.Decision.none)
        #expect(Self.decide([0x17, 0x03, 0x03, 0x00, 0x10]) == CleartextUpgrade.Decision.none)
        #expect(Self.decide([0, 0, 0, 9, 1, 2, 3, 4]) == CleartextUpgrade.Decision.none)
        #expect(Self.decide(Array("EHLO phone\r\n".utf8)) == nil)  // may still come
        #expect(Self.decide(Array(repeating: UInt8(ascii: "a"), count: 5000)) == CleartextUpgrade.Decision.none)
    }

    @Test func theServersTLSIsFoundWhereItsProtocolPutsIt() {
        let serverHello: [UInt8] = [22, 3, 3, 0, 4, 2, 0, 0, 0]
        func offset(_ prelude: CleartextUpgrade.Prelude, _ bytes: [UInt8]) -> Int? {
            bytes.withUnsafeBytes { CleartextUpgrade.serverOffset(for: prelude, in: $0) }
        }
        let smtp = Array("220 ready\r\n250-x\r\n250 STARTTLS\r\n220 go ahead\r\n".utf8)
        #expect(offset(.startTLSCommand, smtp + serverHello) == smtp.count)
        #expect(offset(.startTLSCommand, smtp) == nil)
        #expect(offset(.postgresSSLRequest, Array("S".utf8) + serverHello) == 1)
        #expect(offset(.postgresSSLRequest, Array("N".utf8)) == nil)
        #expect(offset(.mysqlSSLRequest, [3, 0, 0, 0, 9, 9, 9] + serverHello) == 7)
        let established = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)
        #expect(offset(.httpConnect, established + serverHello) == established.count)
        #expect(offset(.httpConnect, Array("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n".utf8)) == nil)
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: Example.COM:8080\r\n\r\n", "example.com" as String?),
        ("GET http://other.example/x HTTP/1.1\r\nHost: ignored.example\r\n\r\n", "other.example"),
        ("GET / HTTP/1.1\nUser-Agent: x\nhost:  name.example.\n\n", "name.example"),
        ("GET / HTTP/1.1\r\nHost: 192.0.2.1\r\n\r\n", nil),
        ("GET / HTTP/1.1\r\nHost: [2001:db8::1]:80\r\n\r\n", nil),
        ("GET / HTTP/1.0\r\n\r\n", nil),
        ("GET http://192.0.2.1/ HTTP/1.1\r\nHost: named.example\r\n\r\n", nil),
    ])
    func anHTTPRequestNamesItsHost(_ request: String, host: String?) {
        let reading = Array(request.utf8).withUnsafeBytes { HTTPRequestHost.read($0) }
        #expect(reading == .read(host))
    }

    @Test func anUnfinishedHeadWaits() {
        let reading = Array("GET / HTTP/1.1\r\nAccept: */*\r\n".utf8).withUnsafeBytes { HTTPRequestHost.read($0) }
        #expect(reading == .needMore)
    }
}
