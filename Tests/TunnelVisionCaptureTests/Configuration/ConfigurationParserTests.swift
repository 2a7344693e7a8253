import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionCapture

@Suite struct ConfigurationParserTests {
    private let file = """
        # the lab's gateway
        client_interface = wg1
        client_network = 10.77.0.0/24, fd77::/64
        uplink = ens3   # the way out
        tun = tv1
        keep_days = 3
        keep_bytes = 500000000
        inspection = on
        """

    private func parse(_ arguments: [String], file text: String? = nil) throws(ConfigurationError) -> DaemonConfiguration {
        try ConfigurationParser.parse(arguments: arguments) { $0 == "/etc/test.conf" || $0 == DaemonConfiguration.defaultPath ? text : nil }
    }

    @Test func theFileIsReadAndFlagsWin() throws {
        let configuration = try parse(["--config", "/etc/test.conf", "--uplink", "eth9", "--snaplen=1500"], file: file)
        #expect(configuration.clientInterface == "wg1")
        #expect(configuration.clientNetworks == ["10.77.0.0/24", "fd77::/64"])
        #expect(configuration.uplink == "eth9")
        #expect(configuration.input == .tun(name: "tv1"))
        #expect(configuration.retention.maximumAge == 3 * 86_400)
        #expect(configuration.retention.maximumBytes == 500_000_000)
        #expect(configuration.inspection)
        #expect(configuration.snapshotLength == 1500)
        #expect(configuration.publishedSettings.inspection == true)
        #expect(configuration.publishedSettings.input == "tun:tv1")
        #expect(configuration.publishedSettings.pairs["inspection"] == "on")
    }

    @Test func theShippedConfigurationReadsAsTheDefaultsWithTheLabsNetworks() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../systemd/tunnelvisiond.conf").standardized.path
        let configuration = try ConfigurationParser.parse(arguments: ["--config", shipped])
        var expected = DaemonConfiguration()
        expected.clientNetworks = ["10.77.0.0/24", "fd77::/64"]
        #expect(configuration == expected)
    }

    @Test func withoutAFileTheDefaultsHold() throws {
        let configuration = try parse([])
        #expect(configuration == DaemonConfiguration())
        #expect(configuration.input.label == "tun:tv0")
        #expect(configuration.rotationBytes == 64 * 1024 * 1024)
        #expect(configuration.snapshotLength == 262_144)
        #expect(configuration.retention == RetentionLimits(maximumAge: 7 * 86_400, maximumBytes: 1_000_000_000))
        #expect(!configuration.inspection)
    }

    @Test func networksOnTheCommandLineReplaceTheFilesList() throws {
        let configuration = try parse(["--client-network", "10.9.0.0/16", "--client-network", "fd09::/48"], file: file)
        #expect(configuration.clientNetworks == ["10.9.0.0/16", "fd09::/48"])
    }

    @Test func thePhonesResolversAreReadCanonicalAndPublished() throws {
        let configuration = try parse([], file: "resolver = 10.77.0.1, FD77:0::1\n")
        #expect(configuration.resolvers == ["10.77.0.1", "fd77::1"])
        #expect(configuration.publishedSettings.resolvers == ["10.77.0.1", "fd77::1"])
        let published = DaemonSettings(pairs: configuration.publishedSettings.pairs)
        #expect(published.resolverAddresses == [IPAddress("10.77.0.1")!, IPAddress("fd77::1")!])
        #expect(try parse(["--resolver", "192.0.2.53"], file: "resolver = 10.77.0.1\n").resolvers == ["192.0.2.53"])
        #expect(throws: ConfigurationError.invalidValue(key: "resolver", value: "10.77.0.1, gateway")) {
            try parse(["--resolver", "10.77.0.1, gateway"])
        }
    }

    @Test(arguments: [
        (["--interface", "eth0"], CaptureInput.interface(name: "eth0")),
        (["--read", "/tmp/x.pcap"], .file(path: "/tmp/x.pcap")),
        (["--tun", "tv9"], .tun(name: "tv9")),
    ])
    func theInputIsChosenByItsFlag(arguments: [String], input: CaptureInput) throws {
        #expect(try parse(arguments).input == input)
    }

    @Test(arguments: [
        (["--bogus", "1"], ConfigurationError.unknownFlag("--bogus")),
        (["--db"], .missingValue(flag: "--db")),
        (["db"], .unknownFlag("db")),
        (["--config", "/nowhere.conf"], .unreadableFile(path: "/nowhere.conf")),
        (["--snaplen", "10"], .invalidValue(key: "snaplen", value: "10")),
        (["--snaplen", "300000"], .invalidValue(key: "snaplen", value: "300000")),
        (["--client-network", "10.0.0.0/33"], .invalidValue(key: "client_network", value: "10.0.0.0/33")),
        (["--client-network", "fd00::/129"], .invalidValue(key: "client_network", value: "fd00::/129")),
        (["--client-network", "10.0.0.300/24"], .invalidValue(key: "client_network", value: "10.0.0.300/24")),
        (["--inspection", "maybe"], .invalidValue(key: "inspection", value: "maybe")),
        (["--tun", "a-name-longer-than-15"], .invalidValue(key: "tun", value: "a-name-longer-than-15")),
        (["--keep-days", "0"], .invalidValue(key: "keep_days", value: "0")),
        (["--tun", "tv0", "--interface", "eth0"], .conflictingInputs),
    ])
    func badCommandLinesAreRefusedWithTheirReason(arguments: [String], error: ConfigurationError) {
        #expect(throws: error) { try parse(arguments) }
    }

    @Test(arguments: [
        ("uplink eth0", ConfigurationError.malformedLine(path: "/etc/test.conf", line: 2)),
        ("colour = blue", .unknownKey("colour", path: "/etc/test.conf", line: 2)),
        ("mtu = 100", .invalidValue(key: "mtu", value: "100")),
    ])
    func badFilesAreRefusedWithTheirLine(line: String, error: ConfigurationError) {
        #expect(throws: error) { try parse(["--config", "/etc/test.conf"], file: "# first\n" + line) }
    }
}
