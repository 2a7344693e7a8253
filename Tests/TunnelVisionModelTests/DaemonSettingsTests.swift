import Testing
import TunnelVisionModel

@Suite struct DaemonSettingsTests {
    @Test func everyFieldComesBackFromItsPairs() {
        let settings = DaemonSettings(
            input: "tun:tv0", inspection: true, clientInterface: "wg0", clientNetworks: ["10.66.0.0/24", "fd66::/64"],
            uplink: "eth0", captureDirectory: "/var/lib/tunnelvision/captures", snapshotLength: 262_144,
            rotationBytes: 67_108_864, keepDays: 7, keepBytes: 1_000_000_000, segmentationOffload: false)
        #expect(settings.pairs["inspection"] == "on")
        #expect(settings.pairs["client_networks"] == "10.66.0.0/24,fd66::/64")
        #expect(settings.pairs["offload"] == "off")
        #expect(DaemonSettings(pairs: settings.pairs) == settings)
    }

    @Test func aMissingFieldIsAbsentAndInspectionCountsAsOff() {
        let settings = DaemonSettings(pairs: ["input": "tun:tv0"])
        #expect(settings.input == "tun:tv0")
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
}
