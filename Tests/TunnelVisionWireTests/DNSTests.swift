import PacketBuilding
import Testing
import TunnelVisionModel
@testable import TunnelVisionWire

@Suite struct DNSTests {
    /// A response header (id 1, flags, 1 question, `answers` answers) and the question for `name`.
    static func response(flags: String = "8180", questions: Int = 1, answers: Int, name: [UInt8] = encoded("www.example.com")) -> [UInt8] {
        bytes("0001 \(flags)") + [0, UInt8(questions), 0, UInt8(answers), 0, 0, 0, 0] + name + bytes("0001 0001")
    }

    static func encoded(_ name: String) -> [UInt8] {
        name.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }

    static func record(owner: [UInt8], type: UInt16, ttl: UInt32, data: [UInt8]) -> [UInt8] {
        var record = owner
        record.appendBigEndian(type)
        record += [0, 1]
        record.appendBigEndian(ttl)
        record.appendBigEndian(UInt16(data.count))
        return record + data
    }

    /// The question name starts at offset 12: a pointer to it is c00c.
    static let questionPointer = bytes("c00c")

    @Test func followsTheCNAMEChainAndKeepsTheShortestTTL() throws {
        let message = Self.response(answers: 3)
            + Self.record(owner: Self.questionPointer, type: 5, ttl: 300, data: Self.encoded("edge.cdn.net"))
            + Self.record(owner: Self.encoded("edge.cdn.net"), type: 1, ttl: 60, data: [192, 0, 2, 1])
            + Self.record(owner: Self.encoded("other.net"), type: 1, ttl: 60, data: [192, 0, 2, 9])
        let response = try #require(message.withUnsafeBytes { DNSResponse(message: $0) })
        #expect(response.queryName == "www.example.com")
        #expect(response.answers == [DNSResponse.Answer(address: IPAddress("192.0.2.1")!, ttl: 60)])
    }

    @Test func aChainThatLoopsEnds() throws {
        let message = Self.response(answers: 2)
            + Self.record(owner: Self.questionPointer, type: 5, ttl: 300, data: Self.encoded("b.net"))
            + Self.record(owner: Self.encoded("b.net"), type: 5, ttl: 300, data: Self.encoded("www.example.com"))
        let response = try #require(message.withUnsafeBytes { DNSResponse(message: $0) })
        #expect(response.answers.isEmpty)
    }

    @Test(arguments: [
        ("0180", 1),  // a query, not a response
        ("8183", 1),  // NXDOMAIN
        ("a980", 1),  // opcode 5 (update)
        ("8180", 2),  // two questions
    ])
    func refusesWhatIsNotAPlainAnswer(flags: String, questions: Int) {
        let message = Self.response(flags: flags, questions: questions, answers: 0)
        #expect(message.withUnsafeBytes { DNSResponse(message: $0) } == nil)
    }

    @Test(arguments: [
        bytes("c00c"),         // points at itself (forward of nothing earlier)
        bytes("c020"),         // points forward
        bytes("40 61 00"),     // reserved label type 01
        bytes("80 61 00"),     // reserved label type 10
    ])
    func refusesBadQuestionNames(name: [UInt8]) {
        let message = Self.response(answers: 0, name: name)
        #expect(message.withUnsafeBytes { DNSResponse(message: $0) } == nil)
    }

    @Test func escapesUnprintableBytesAndKeepsIDNsAsPunycode() throws {
        let name: [UInt8] = [3, 0x61, 0x00, 0x2E] + Self.encoded("xn--mnchen-3ya.de")
        let message = Self.response(answers: 0, name: name)
        let response = try #require(message.withUnsafeBytes { DNSResponse(message: $0) })
        #expect(response.queryName == "a\\000\\..xn--mnchen-3ya.de")
    }

    @Test func aNameLongerThan255BytesIsRefused() {
        let long = Array(repeating: String(repeating: "a", count: 63), count: 4).joined(separator: ".")
        let message = Self.response(answers: 0, name: Self.encoded(long))
        #expect(message.withUnsafeBytes { DNSResponse(message: $0) } == nil)
    }

    @Test func pointerChainsAreBoundedAndStrictlyBackwards() {
        // Name at 12: "a" then pointer to 12 → loops back onto itself.
        let message = Self.response(answers: 0, name: bytes("01 61 c00c"))
        #expect(message.withUnsafeBytes { DNSResponse(message: $0) } == nil)
    }

    @Test func splitsDNSOverTCPByLengthPrefix() {
        let stream = bytes("0003 616263 0002 6465 0005 66")
        var messages: [[UInt8]] = []
        let stopped = stream.withUnsafeBytes { DNSOverTCP.forEachMessage(in: $0, from: 0) { messages.append(Array($0)) } }
        #expect(messages == [Array("abc".utf8), Array("de".utf8)])
        #expect(stopped == 9)
    }
}
