import Testing
import TunnelVisionModel

@Suite struct DaemonSettingsTests {
    @Test func everyFieldComesBackFromItsPairs() {
        let settings = DaemonSettings(
            input: .tun(name: "tv0"), inspection: true, clientInterface: "wg0",
            clientNetworks: [IPNetwork("10.66.0.0/24")!, IPNetwork("fd66::/64")!],
            uplink: "eth0", captureDirectory: "/var/lib/tunnelvision/captures", snapshotLength: 262_144,
            rotationBytes: 67_108_864, keepDays: 7, keepBytes: 1_000_000_000, segmentationOffload: false,
            relayPort: 8443, inspectedPorts: [443, 8443], resolvers: [IPAddress("10.66.0.1")!, IPAddress("fd66::1")!])
        #expect(settings.pairs["input"] == "tun:tv0")
        #expect(settings.pairs["inspection"] == "on")
        #expect(settings.pairs["client_networks"] == "10.66.0.0/24,fd66::/64")
        #expect(settings.pairs["inspected_ports"] == "443,8443")
        #expect(settings.pairs["resolvers"] == "10.66.0.1,fd66::1")
        #expect(settings.pairs["offload"] == "off")
        #expect(DaemonSettings(pairs: settings.pairs) == settings)
    }

    @Test func aMissingFieldIsAbsentAndInspectionCountsAsOff() {
        let settings = DaemonSettings(pairs: ["input": "tun:tv0"])
        #expect(settings.input == .tun(name: "tv0"))
        #expect(settings.inspection == nil && settings.snapshotLength == nil)
        #expect(!settings.inspectionEnabled)
        #expect(settings.unrecognized.isEmpty)
    }

    @Test func anUnknownKeyOrAnUnreadableValueIsKeptAsWritten() {
        let pairs = ["relay": "running", "inspection": "maybe", "snaplen": "-1x"]
        let settings = DaemonSettings(pairs: pairs)
        #expect(settings.inspection == nil && settings.snapshotLength == nil)
        #expect(!settings.inspectionEnabled)
        #expect(settings.unrecognized == pairs)
        #expect(settings.pairs == pairs)
    }

    @Test func anEmptyNetworkListIsEmptyNotAbsent() {
        #expect(DaemonSettings(pairs: ["client_networks": ""]).clientNetworks == [])
    }

    // A list with one item its type cannot read is not shortened into a list that looks whole.
    @Test(arguments: [
        ("client_networks", "10.66.0.0/24,10.66.0.0/33"), ("resolvers", "10.66.0.1,gateway"), ("inspected_ports", "443,,8443"),
        ("inspected_ports", "443,70000"), ("input", "tun:"), ("input", "pipe:x"),
    ])
    func aTypedValueItsTypeCannotReadIsKeptAsWritten(key: String, text: String) {
        let settings = DaemonSettings(pairs: [key: text])
        #expect(settings.clientNetworks == nil && settings.resolvers == nil && settings.inspectedPorts == nil && settings.input == nil)
        #expect(settings.unrecognized == [key: text])
    }
}
