import Testing
@testable import TunnelVisionConfiguration
@testable import TunnelVisionDaemon
import TunnelVisionRelay

@Suite("The relay's timeouts, cap and descriptor reserve in tunnelvisiond.conf")
struct RelayLimitsConfigurationTests {
    private func parse(_ text: String) throws(ConfigurationError) -> DaemonConfiguration {
        try ConfigurationParser.parse(arguments: ["--config", "/etc/test.conf"]) { path in
            path == "/etc/test.conf" ? Array(text.utf8) : nil
        }
    }

    @Test("Without the keys the documented defaults hold")
    func defaults() throws {
        let limits = try parse("").relayConfiguration.limits
        #expect(limits.holdSeconds == 10)
        #expect(limits.handshakeSeconds == 30)
        #expect(limits.idleSeconds == 900)
        #expect(limits.connectionsPerPhone == 1024)
        #expect(limits.descriptorReserve == 1024)
    }

    @Test("Each key reaches the relay's limits")
    func keysReachTheRelay() throws {
        let limits = try parse("""
            relay_hold_timeout = 3
            relay_handshake_timeout = 7
            relay_idle_timeout = 20
            relay_connections_per_phone = 50
            descriptor_reserve = 300
            """).relayConfiguration.limits
        #expect(limits.holdSeconds == 3)
        #expect(limits.handshakeSeconds == 7)
        #expect(limits.idleSeconds == 20)
        #expect(limits.connectionsPerPhone == 50)
        #expect(limits.descriptorReserve == 300)
    }

    @Test("A value outside its range is refused in one sentence naming the range", arguments: [
        ("relay_hold_timeout = 0", "relay_hold_timeout", "0", "1", "300"),
        ("relay_handshake_timeout = 301", "relay_handshake_timeout", "301", "1", "300"),
        ("relay_idle_timeout = 86401", "relay_idle_timeout", "86401", "1", "86400"),
        ("relay_idle_timeout = -5", "relay_idle_timeout", "-5", "1", "86400"),
        ("relay_connections_per_phone = 0", "relay_connections_per_phone", "0", "1", "65536"),
        ("descriptor_reserve = 10", "descriptor_reserve", "10", "64", "65536"),
    ])
    func outOfRange(line: String, key: String, value: String, lowest: String, highest: String) {
        let refusal = ConfigurationError.outOfRange(key: key, value: value, lowest: lowest, highest: highest)
        #expect(throws: refusal) { try parse(line) }
        let sentence = refusal.message
        #expect(sentence.contains(key) && sentence.contains(lowest) && sentence.contains(highest))
        #expect(!sentence.dropLast().contains(". "), "one sentence: \(sentence)")
    }

    @Test("The relay's ceiling leaves the reserve under the descriptor limit, two descriptors a connection")
    func ceiling() {
        var limits = RelayLimits()
        limits.descriptorReserve = 1024
        #expect(limits.connectionCeiling(descriptorLimit: 1024) == 0)
        #expect(limits.connectionCeiling(descriptorLimit: 4096) == 1536)
        #expect(limits.connectionCeiling(descriptorLimit: 16_384) == 4096, "never above maximumConnections")
        #expect(limits.connectionCeiling(descriptorLimit: Int.max) == 4096)
        for limit in [1500, 4096, 9000, 16_384] {
            let ceiling = limits.connectionCeiling(descriptorLimit: limit)
            #expect(ceiling * RelayLimits.descriptorsPerConnection + limits.descriptorReserve <= limit)
        }
    }
}
