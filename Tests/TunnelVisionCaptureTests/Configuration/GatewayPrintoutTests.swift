import Foundation
import Testing
@testable import TunnelVisionConfiguration
import TunnelVisionModel
import TunnelVisionRelay

/// scripts/gateway reads the configuration through `tunnelvisiond --print-gateway`: these are
/// the lines it splits, from the one parser and its defaults.
@Suite struct GatewayPrintoutTests {
    private func parse(_ text: String) throws(ConfigurationError) -> DaemonConfiguration {
        try ConfigurationParser.parse(arguments: ["--config", "/etc/test.conf"]) { _ in Array(text.utf8) }
    }

    @Test func theDefaultsArePrintedWithTheNetworksSplitByFamily() throws {
        let configuration = try parse("client_network = 10.77.0.0/24, fd77::/64\nclient_network = 10.78.0.0/24\n")
        #expect(configuration.gatewayPrintout == """
            tun=tv0
            tun_address=169.254.77.1/32
            tun_address6=fd00:7476::1/128
            tun_user=tunnelvision
            client_interface=wg0
            client_networks4=10.77.0.0/24 10.78.0.0/24
            client_networks6=fd77::/64
            uplink=eth0
            inspection=off
            relay_port=8443
            inspected_ports=443
            quic_drop=off

            """)
    }

    @Test func theFilesGatewayKeysAndInspectionArePrinted() throws {
        let configuration = try parse("""
            tun = tv3
            tun_address = 169.254.9.1/32
            tun_address6 = fd00:9::1/128
            tun_user = lab-tap
            client_network = fd77::/64
            inspection = on
            relay_port = 9443
            inspected_ports = 443, 8443
            quic_drop = yes
            """)
        let lines = Set((configuration.gatewayPrintout ?? "").split(separator: "\n").map(String.init))
        #expect(lines.isSuperset(of: [
            "tun=tv3", "tun_address=169.254.9.1/32", "tun_address6=fd00:9::1/128", "tun_user=lab-tap", "client_networks4=",
            "client_networks6=fd77::/64", "inspection=on", "relay_port=9443", "inspected_ports=443 8443", "quic_drop=on",
        ]))
    }

    @Test func anInputOtherThanTheTunHasNoRoutingToPrint() throws {
        #expect(try parse("interface = eth1\n").gatewayPrintout == nil)
        #expect(try parse("read = /tmp/x.pcap\n").gatewayPrintout == nil)
    }

    @Test(arguments: [
        ("tun_address", "fd00::1/128"), ("tun_address", "169.254.77.1/33"), ("tun_address6", "169.254.77.1/32"),
        ("tun_user", "-root"), ("tun_user", "two words"),
    ])
    func aGatewayValueTheGatewayCouldNotUseIsRefused(key: String, value: String) {
        #expect(throws: ConfigurationError.invalidValue(key: key, value: value)) { try parse("\(key) = \(value)\n") }
    }

    @Test func upstreamTrustIsTheSystemsOrABundleAndReachesTheRelayAsRead() throws {
        #expect(try parse("upstream_trust = system\n").relayConfiguration.upstreamTrust == .system)
        #expect(try parse("upstream_trust = /etc/lab/roots.pem\n").relayConfiguration.upstreamTrust == .bundle(path: "/etc/lab/roots.pem"))
        #expect(throws: ConfigurationError.invalidValue(key: "upstream_trust", value: "roots.pem")) {
            try parse("upstream_trust = roots.pem\n")
        }
    }
}
