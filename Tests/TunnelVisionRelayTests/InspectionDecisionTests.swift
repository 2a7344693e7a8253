import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

@Suite struct InspectionDecisionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        var enabled = true
        var port: UInt16 = 443
        var caLoaded = true
        var stream: [UInt8]
        var holdLimit = 64 * 1024
        var remembered: Set<String> = []
        let expected: RelayDecision?
        var testDescription: String { label }
    }

    static let hello = Hellos.record(name: "api.example.com")
    static let longName = String(repeating: "a", count: 56) + "." + String(repeating: "b", count: 59) + ".lab"

    @Test(arguments: [
        Case(label: "inspection on, 443, CA, SNI, not remembered → terminate", stream: hello,
             expected: .terminate(serverName: "api.example.com")),
        Case(label: "inspection off → splice", enabled: false, stream: hello, expected: .splice(.inspectionOff)),
        Case(label: "a port not inspected → splice", port: 8443, stream: hello, expected: .splice(.portNotInspected)),
        Case(label: "no CA → splice", caLoaded: false, stream: hello, expected: .splice(.noCertificateAuthority)),
        Case(label: "plain HTTP → splice, not TLS", stream: Array("GET / HTTP/1.1\r\n".utf8), expected: .splice(.notTLS)),
        Case(label: "no SNI → splice", stream: Hellos.record(name: nil), expected: .splice(.noServerName)),
        Case(label: "a name that is not a host name → no SNI", stream: Hellos.record(name: "bad name"),
             expected: .splice(.noServerName)),
        Case(label: "SSL 2.0 hello → no SNI", stream: [0x80, 0x2E, 0x01, 0x03, 0x01] + [UInt8](repeating: 0, count: 45),
             expected: .splice(.noServerName)),
        Case(label: "host remembered → splice", stream: hello, remembered: ["api.example.com"],
             expected: .splice(.hostRemembered)),
        Case(label: "a name with a trailing dot → terminate, for the name without it",
             stream: Hellos.record(name: "api.example.com."), expected: .terminate(serverName: "api.example.com")),
        Case(label: "a 120-byte name → terminate", stream: Hellos.record(name: InspectionDecisionTests.longName),
             expected: .terminate(serverName: InspectionDecisionTests.longName)),
        Case(label: "a 17 KiB hello over two records → terminate",
             stream: Hellos.splitIntoRecords(Hellos.record(name: "big.example", paddedTo: 17 * 1024), pieces: 2),
             expected: .terminate(serverName: "big.example")),
        Case(label: "another host remembered → terminate", stream: hello, remembered: ["other.example"],
             expected: .terminate(serverName: "api.example.com")),
        Case(label: "a ServerHello first → unreadable ClientHello",
             stream: [22, 3, 3, 0, 8, 2, 0, 0, 4, 3, 3, 0, 0], expected: .splice(.unreadableClientHello)),
        Case(label: "the hold fills → splice", stream: Array(hello.prefix(60)), holdLimit: 60, expected: .splice(.holdFull)),
        Case(label: "a partial hello → wait", stream: Array(hello.prefix(40)), expected: nil),
        Case(label: "inspection off decides before any byte", enabled: false, stream: [], expected: .splice(.inspectionOff)),
    ])
    func decisionFollowsRulesSection3(_ example: Case) {
        let policy = InspectionPolicy(
            isEnabled: example.enabled, inspectedPorts: [443], hasCertificateAuthority: example.caLoaded)
        var hold = ClientHelloHold(limit: example.holdLimit)
        hold.append(example.stream)
        let decision = policy.decision(
            destinationPort: example.port, hold: hold.state, heldBytes: hold.bytes,
            isRemembered: { example.remembered.contains($0) })
        #expect(decision == example.expected)
    }

    @Test func theRefusalMemoryIsBoundedAndForgetsOnANewCA() {
        var memory = RefusalMemory(capacity: 3)
        for host in ["a.example", "b.example", "c.example", "d.example"] { memory.remember(host, alert: 48) }
        #expect(memory.count == 3)
        #expect(!memory.isRemembered("a.example"))
        #expect(memory.isRemembered("D.example"))
        memory.forgetAll()
        #expect(memory.count == 0)
        #expect(!memory.isRemembered("d.example"))
    }
}
