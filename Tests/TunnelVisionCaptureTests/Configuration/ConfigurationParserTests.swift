import Foundation
import Testing
@testable import TunnelVisionConfiguration
@testable import TunnelVisionDaemon
import TunnelVisionModel
@testable import TunnelVisionRetention

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
        try ConfigurationParser.parse(arguments: arguments) { path in
            path == "/etc/test.conf" || path == DaemonConfiguration.defaultPath ? text.map { Array($0.utf8) } : nil
        }
    }

    @Test func theFileIsReadAndFlagsWin() throws {
        let configuration = try parse(["--config", "/etc/test.conf", "--uplink", "eth9", "--snaplen=1500"], file: file)
        #expect(configuration.clientInterface == "wg1")
        #expect(configuration.clientNetworks == [IPNetwork("10.77.0.0/24")!, IPNetwork("fd77::/64")!])
        #expect(configuration.uplink == "eth9")
        #expect(configuration.input == .tun(name: "tv1"))
        #expect(configuration.retention.keepDays == 3)
        #expect(configuration.retention.maximumAge == 3 * 86_400)
        #expect(configuration.publishedSettings.keepDays == 3)
        #expect(configuration.retention.maximumBytes == 500_000_000)
        #expect(configuration.inspection)
        #expect(configuration.snapshotLength == 1500)
        #expect(configuration.publishedSettings.inspection == true)
        #expect(configuration.publishedSettings.input == .tun(name: "tv1"))
        #expect(configuration.publishedSettings.pairs["input"] == "tun:tv1")
        #expect(configuration.publishedSettings.pairs["inspection"] == "on")
    }

    @Test func theShippedConfigurationReadsAsTheDefaultsWithTheLabsNetworks() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../systemd/tunnelvisiond.conf").standardized.path
        let configuration = try ConfigurationParser.parse(arguments: ["--config", shipped])
        var expected = DaemonConfiguration()
        expected.clientNetworks = [IPNetwork("10.77.0.0/24")!, IPNetwork("fd77::/64")!]
        #expect(configuration == expected)
    }

    @Test func theUpstreamMirrorIsOnUnlessTurnedOff() throws {
        #expect(try parse([]).relayConfiguration.mirrorsUnverifiedUpstream)
        let off = try parse(["--config", "/etc/test.conf"], file: file + "\nupstream_mirror = off\n")
        #expect(!off.relayConfiguration.mirrorsUnverifiedUpstream)
        #expect(throws: ConfigurationError.invalidValue(key: "upstream_mirror", value: "maybe")) {
            try parse(["--config", "/etc/test.conf"], file: file + "\nupstream_mirror = maybe\n")
        }
    }

    @Test func withoutAFileTheDefaultsHold() throws {
        let configuration = try parse([])
        #expect(configuration == DaemonConfiguration())
        #expect(configuration.input.label == "tun:tv0")
        #expect(configuration.rotationBytes == 64 * 1024 * 1024)
        #expect(configuration.snapshotLength == 262_144)
        #expect(configuration.retention == RetentionLimits(keepDays: 7, maximumBytes: 1_000_000_000))
        #expect(!configuration.inspection)
    }

    @Test func networksOnTheCommandLineReplaceTheFilesList() throws {
        let configuration = try parse(["--client-network", "10.9.0.0/16", "--client-network", "fd09::/48"], file: file)
        #expect(configuration.clientNetworks == [IPNetwork("10.9.0.0/16")!, IPNetwork("fd09::/48")!])
    }

    @Test func thePhonesResolversAreReadCanonicalAndPublished() throws {
        let configuration = try parse([], file: "resolver = 10.77.0.1, FD77:0::1\n")
        let resolvers = [IPAddress("10.77.0.1")!, IPAddress("fd77::1")!]
        #expect(configuration.resolvers == resolvers)
        #expect(configuration.publishedSettings.pairs["resolvers"] == "10.77.0.1,fd77::1")
        #expect(DaemonSettings(pairs: configuration.publishedSettings.pairs).resolvers == resolvers)
        #expect(try parse(["--resolver", "192.0.2.53"], file: "resolver = 10.77.0.1\n").resolvers == [IPAddress("192.0.2.53")!])
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
        (["--config", "/nowhere.conf"], .unreadableFile(path: "/nowhere.conf", reason: "No such file or directory")),
        (["--snaplen", "10"], .outOfRange(key: "snaplen", value: "10", lowest: "64", highest: "262144")),
        (["--snaplen", "300000"], .outOfRange(key: "snaplen", value: "300000", lowest: "64", highest: "262144")),
        (["--client-network", "10.0.0.0/33"], .invalidValue(key: "client_network", value: "10.0.0.0/33")),
        (["--client-network", "fd00::/129"], .invalidValue(key: "client_network", value: "fd00::/129")),
        (["--client-network", "10.0.0.300/24"], .invalidValue(key: "client_network", value: "10.0.0.300/24")),
        // Found by the Configuration fuzz target: an empty item of a list trapped the parser.
        (["--client-network", "10.0.0.0/24, ,fd00::/64"], .invalidValue(key: "client_network", value: "10.0.0.0/24, ,fd00::/64")),
        (["--client-network", "10.0.0.0/"], .invalidValue(key: "client_network", value: "10.0.0.0/")),
        (["--client-network", "/24"], .invalidValue(key: "client_network", value: "/24")),
        (["--inspection", "maybe"], .invalidValue(key: "inspection", value: "maybe")),
        // tvctl export reads timestamp_url; the daemon refuses a value that is no URL as it refuses any.
        (["--timestamp-url", "tsa.example"], .invalidValue(key: "timestamp_url", value: "tsa.example")),
        (["--tun", "a-name-longer-than-15"], .invalidValue(key: "tun", value: "a-name-longer-than-15")),
        (["--keep-days", "0"], .outOfRange(key: "keep_days", value: "0", lowest: "1", highest: "36500")),
        (["--tun", "tv0", "--interface", "eth0"], .conflictingInputs),
    ])
    func badCommandLinesAreRefusedWithTheirReason(arguments: [String], error: ConfigurationError) {
        #expect(throws: error) { try parse(arguments) }
    }

    @Test func aTimeStampingAuthorityIsAcceptedForTvctlExportAndChangesNothingOfTheDaemons() throws {
        let plain = try parse([])
        #expect(try parse(["--timestamp-url", "https://tsa.example/tsr"]) == plain)
        #expect(try parse(["--timestamp-url", "off"]) == plain)
    }

    @Test(arguments: [
        ("uplink eth0", ConfigurationError.malformedLine(path: "/etc/test.conf", line: 2)),
        ("colour = blue", .unknownKey("colour", path: "/etc/test.conf", line: 2)),
        ("mtu = 100", .outOfRange(key: "mtu", value: "100", lowest: "576", highest: "65535")),
    ])
    func badFilesAreRefusedWithTheirLine(line: String, error: ConfigurationError) {
        #expect(throws: error) { try parse(["--config", "/etc/test.conf"], file: "# first\n" + line) }
    }

    // A number the daemon accepted once overflowed at the first rotation.
    @Test(arguments: [
        ("keep_days", "1000000", "1", "36500"), ("keep_days", "1e308", "1", "36500"), ("keep_days", "0.5", "1", "36500"),
        ("keep_days", "-1", "1", "36500"), ("snaplen", "99999999999", "64", "262144"), ("snaplen", "0x100", "64", "262144"),
        ("rotate_bytes", "18446744073709551616", "4096", "1099511627776"), ("rotate_bytes", "+4096", "4096", "1099511627776"),
        ("keep_bytes", "0", "1", "1152921504606846976"), ("mtu", "65536", "576", "65535"), ("queue_packets", "1 000", "64", "65536"),
        ("recorder_wait_ms", "0", "1", "10000"), ("recorder_wait_ms", "10001", "1", "10000"),
    ])
    func everyNumberIsRangeCheckedWhereItIsRead(key: String, value: String, lowest: String, highest: String) {
        let refusal = ConfigurationError.outOfRange(key: key, value: value, lowest: lowest, highest: highest)
        #expect(throws: refusal) { try parse(["--" + key.replacingOccurrences(of: "_", with: "-"), value]) }
        #expect(throws: refusal) { try parse(["--config", "/etc/test.conf"], file: "\(key) = \(value)\n") }
        #expect(refusal.message == "`\(value)` is refused for \(key): give a whole number from \(lowest) to \(highest).")
    }

    // Evidence first is the default; forwarding first stays a setting, published for tvctl.
    @Test func whenTheRecorderIsBehindPacketsWaitUnlessTheConfigurationSaysForward() throws {
        let defaults = try parse([])
        #expect(defaults.recorderBacklog == .wait)
        #expect(defaults.recorderWaitMilliseconds == 1_000)
        #expect(defaults.publishedSettings.pairs["when_recorder_behind"] == "wait")
        #expect(defaults.publishedSettings.pairs["recorder_wait_ms"] == "1000")
        let forward = try parse(["--config", "/etc/test.conf", "--recorder-wait-ms", "40"], file: "when_recorder_behind = forward\n")
        #expect(forward.recorderBacklog == .forward)
        #expect(forward.recorderWaitMilliseconds == 40)
        let published = DaemonSettings(pairs: forward.publishedSettings.pairs)
        #expect(published.recorderBacklog == .forward)
        #expect(published.recorderWaitMilliseconds == 40)
        #expect(throws: ConfigurationError.invalidValue(key: "when_recorder_behind", value: "drop")) {
            try parse(["--when-recorder-behind", "drop"])
        }
    }

    @Test func theLargestAcceptedKeepDaysGivesACutOffTheHistoryCanHold() throws {
        let configuration = try parse(["--keep-days", "36500"])
        let cutOff = Date(timeIntervalSince1970: 9_000_000_000).addingTimeInterval(-configuration.retention.maximumAge)
        #expect(cutOff.isStorable)
    }

    // A CRLF file whose first line was a comment read as one long comment.
    @Test func aCRLFFileReadsLikeItsLFTwin() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../systemd/tunnelvisiond.conf").standardized.path
        let text = try String(contentsOfFile: shipped, encoding: .utf8)
        let crlf = text.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(crlf.utf8.count > text.utf8.count)
        let read = try parse(["--config", "/etc/test.conf"], file: crlf + "snaplen = 1500\r\n")
        #expect(read.snapshotLength == 1500)
        #expect(read.clientNetworks == [IPNetwork("10.77.0.0/24")!, IPNetwork("fd77::/64")!])
        #expect(throws: ConfigurationError.outOfRange(key: "snaplen", value: "99999999999", lowest: "64", highest: "262144")) {
            try parse(["--config", "/etc/test.conf"], file: "# comment\r\nsnaplen = 99999999999\r\n")
        }
        #expect(throws: ConfigurationError.unknownKey("colour", path: "/etc/test.conf", line: 2)) {
            try parse(["--config", "/etc/test.conf"], file: "# comment\r\ncolour = blue\r\n")
        }
    }

    @Test func invalidUTF8IsRefusedWithItsLineEvenInTheDefaultFile() {
        let bytes = Array("# first\nuplink = eth0\n".utf8) + [0x6d, 0x74, 0x75, 0x20, 0x3d, 0x20, 0xff, 0x0a]
        for arguments in [["--config", "/etc/test.conf"], []] {
            let path = arguments.isEmpty ? DaemonConfiguration.defaultPath : "/etc/test.conf"
            #expect(throws: ConfigurationError.invalidEncoding(path: path, line: 3)) {
                try ConfigurationParser.parse(arguments: arguments) { _ in bytes }
            }
        }
    }

    @Test func aDefaultFileThatIsThereButUnreadableIsAnErrorAndOnlyAnAbsentOneMeansTheDefaults() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tv-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try ConfigurationFile.read(directory.appendingPathComponent("absent.conf").path) == nil)
        // A directory where the file should be: there, but not a file (root reads any mode, so
        // a 0000 file would not fail under the test's user in every run).
        #expect(throws: ConfigurationError.notARegularFile(path: directory.path)) { try ConfigurationFile.read(directory.path) }
        let fifo = directory.appendingPathComponent("fifo.conf").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: ConfigurationError.notARegularFile(path: fifo)) { try ConfigurationFile.read(fifo) }
        #expect(throws: ConfigurationError.notARegularFile(path: fifo)) {
            try ConfigurationParser.parse(arguments: ["--config", fifo])
        }
    }
}
