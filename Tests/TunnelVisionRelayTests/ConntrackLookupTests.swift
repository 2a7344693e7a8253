import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

/// The conntrack netlink messages the relay sends and reads, as the kernel lays them out.
@Suite("Asking conntrack for a redirected connection's original source")
struct ConntrackLookupTests {
    typealias C = ConntrackLookup
    let phone = Endpoint(address: IPAddress("10.77.0.2")!, port: 40010)
    let rewritten = Endpoint(address: IPAddress("10.77.0.2")!, port: 58439)
    let relay = Endpoint(address: IPAddress("10.77.0.1")!, port: 8443)
    let server = Endpoint(address: IPAddress("198.51.100.10")!, port: 443)

    func tuple(_ type: UInt16, from source: Endpoint, to destination: Endpoint) -> [UInt8] {
        let ip = C.attribute(C.tupleIP | C.nested, C.attribute(C.v4Source, Array(source.address.bytes.suffix(4)))
            + C.attribute(C.v4Destination, Array(destination.address.bytes.suffix(4))))
        let proto = C.attribute(C.tupleProto | C.nested, C.attribute(C.protoNumber, [6])
            + C.attribute(C.protoSource, C.bigEndian(source.port)) + C.attribute(C.protoDestination, C.bigEndian(destination.port)))
        return C.attribute(type | C.nested, ip + proto)
    }

    func message(type: UInt16, sequence: UInt32, body: [UInt8]) -> ArraySlice<UInt8> {
        ArraySlice(C.littleEndian(UInt32(16 + body.count)) + C.littleEndian16(type) + C.littleEndian16(0)
            + C.littleEndian(sequence) + C.littleEndian(0) + body)
    }

    @Test("The answer's original tuple gives the phone's own port, not the one NAT rewrote")
    func originalSourceIsRead() {
        let body: [UInt8] = [2, 0, 0, 0] + tuple(C.tupleOriginal, from: phone, to: server) + tuple(C.tupleReply, from: relay, to: rewritten)
        #expect(C.parse(message(type: C.messageNew, sequence: 7, body: body), sequence: 7, family: .v4) == .found(phone))
    }

    @Test("The request names the entry by the tuple the relay sees, in its reply direction")
    func requestCarriesTheReplyTuple() {
        let request = C.request(local: relay, peer: rewritten, sequence: 9)
        #expect(Array(request[4..<6]) == C.littleEndian16(C.messageGet))
        #expect(Array(request[16...]) == [2, 0, 0, 0] + tuple(C.tupleReply, from: relay, to: rewritten))
        #expect(Int(request[0]) | Int(request[1]) << 8 == request.count)
    }

    @Test("An error, another request's answer and torn bytes give no endpoint and never trap")
    func otherAnswers() {
        let error = message(type: C.messageError, sequence: 3, body: C.littleEndian(UInt32(bitPattern: -2)))
        #expect(C.parse(error, sequence: 3, family: .v4) == .notFound)
        let body: [UInt8] = [2, 0, 0, 0] + tuple(C.tupleOriginal, from: phone, to: server)
        let late = message(type: C.messageNew, sequence: 2, body: body)
        #expect(C.parse(late, sequence: 3, family: .v4) == .other)
        let whole = Array(message(type: C.messageNew, sequence: 3, body: body))
        for cut in 0..<whole.count {
            var torn = whole[0..<cut]
            if cut >= 4 { torn.replaceSubrange(0..<4, with: C.littleEndian(UInt32(cut))) }
            let answer = C.parse(torn, sequence: 3, family: .v4)
            if cut < 36 { #expect(answer == .notFound, "cut at \(cut)") }
        }
    }
}
