import Testing
import TunnelVisionCapture
import TunnelVisionModel

@Suite struct OfflineImportRequestTests {
    @Test func readsTheImportsOptionsInAnyOrder() throws {
        let request = try OfflineImportRequest(arguments: [
            "--db", "/var/lib/tv/history.sqlite", "--client-network", "10.6.0.0/24", "--read", "phone.pcapng",
            "--captures", "/var/lib/tv/captures",
        ])
        #expect(request.capturePath == "phone.pcapng")
        #expect(request.databasePath == "/var/lib/tv/history.sqlite")
        #expect(request.captureDirectory == "/var/lib/tv/captures")
        #expect(request.clientNetworks == [IPNetwork("10.6.0.0/24")!])
    }

    @Test(arguments: [
        (["--read", "x.pcap", "--db", "h.sqlite"], OfflineImportRequest.UsageError.missingOption("--captures DIR")),
        (["--read", "x.pcap", "--db"], .missingValue(option: "--db")),
        (["--read", "x.pcap", "--verbose", "1"], .unknownOption("--verbose")),
        (["--read", "x.pcap", "--client-network", "10.6.0.0/33"], .invalidNetwork("10.6.0.0/33")),
    ])
    func refusesWhatItCannotRun(arguments: [String], error: OfflineImportRequest.UsageError) {
        #expect(throws: error) { try OfflineImportRequest(arguments: arguments) }
    }
}
