import Testing
import TunnelVisionModel

@Suite(.enabled(if: CaptureReading.externalIsPresent, "skipped extra: the external captures are absent"))
struct DNSCaptureTests {
    @Test(arguments: [
        ("zeek/dns-two-responses.pcap", "www.cmu.edu", ["128.2.10.163"]),
        ("tcpdump/dns_tcp.pcap", "www.tcpdump.org", ["192.139.46.66", "198.199.88.104"]),
        ("nDPI/dns.pcap", "e7.whatsapp.net", ["108.168.176.234", "169.45.219.232", "169.45.219.235", "169.45.248.121",
                                              "169.45.248.180", "169.45.248.189", "169.47.40.142", "169.53.81.79"]),
        ("suricata-verify/20250224-dns-additionals-with-cname.pcap", "www.example.com", []),
    ])
    func readsTheAnswersReachableFromTheQuestion(file: String, name: String, addresses: [String]) throws {
        let reading = try CaptureReading(file)
        let answered = Set(reading.dnsAnswers.filter { $0.queryName == name }.map(\.address.description))
        #expect(answered == Set(addresses))
    }

    @Test func aFlowIsNamedByTheDNSAnswerSeenBeforeItAndTheSNIWins() throws {
        let reading = try CaptureReading("nDPI/tls_heur__trojan-tcp-tls.pcapng")
        let youtube = try #require(reading.flows.first { $0.key.endpointA.address == IPAddress("142.250.180.142") })
        #expect(youtube.resolvedName == ResolvedName(name: "www.youtube.com"))
        #expect(youtube.name == FlowName(text: "www.youtube.com", origin: .sni))
        let local = try #require(reading.flows.first { $0.key.endpointA.port == 1234 })
        #expect(local.resolvedName == ResolvedName(name: "test.lan"))
    }
}
