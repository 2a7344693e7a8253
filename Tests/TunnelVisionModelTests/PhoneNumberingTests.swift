import Testing
import TunnelVisionModel

@Suite struct PhoneNumberingTests {
    private let networks = [IPNetwork("10.77.0.0/24")!, IPNetwork("fd77::/64")!]

    private func phone(_ name: String, _ number: Int) -> Phone {
        Phone(name: name, ipv4: IPAddress("10.77.0.\(number)")!, ipv6: IPAddress("fd77::\(String(number, radix: 16))")!,
              publicKey: name, keyFingerprint: name)
    }

    @Test func theNthAddressIsTheOneTheWireGuardScriptsWrite() {
        #expect(PhoneNumbering.address(2, in: networks[0]) == IPAddress("10.77.0.2"))
        #expect(PhoneNumbering.address(254, in: networks[0]) == IPAddress("10.77.0.254"))
        #expect(PhoneNumbering.address(171, in: networks[1]) == IPAddress("fd77::ab"))
        #expect(PhoneNumbering.address(2, in: IPNetwork("10.77.0.8/29")!) == nil)
        #expect(PhoneNumbering.address(2, in: IPNetwork("fd77::1:1/112")!) == nil)
        #expect(PhoneNumbering.address(1, in: networks[0]) == nil)
        #expect(PhoneNumbering.address(255, in: networks[0]) == nil)
    }

    @Test func theFirstPhoneIsTwoAndAGapIsFilledFirst() {
        #expect(PhoneNumbering.lowestFree(in: networks, phones: []) == 2)
        #expect(PhoneNumbering.lowestFree(in: networks, phones: [phone("a", 2), phone("b", 3)]) == 4)
        #expect(PhoneNumbering.lowestFree(in: networks, phones: [phone("a", 2), phone("c", 4)]) == 3)
    }

    // A phone recorded by hand with addresses of two numbers blocks both.
    @Test func aNumberHeldInOneNetworkOnlyIsNotFree() {
        let mixed = Phone(name: "m", ipv4: IPAddress("10.77.0.2")!, ipv6: IPAddress("fd77::3")!, publicKey: "m", keyFingerprint: "m")
        #expect(PhoneNumbering.lowestFree(in: networks, phones: [mixed]) == 4)
        #expect(PhoneNumbering.lowestFree(in: [networks[0]], phones: [mixed]) == 3)
    }

    @Test func whenEveryNumberIsHeldThereIsNone() {
        let all = PhoneNumbering.numbers.map { phone("p\($0)", $0) }
        #expect(PhoneNumbering.lowestFree(in: networks, phones: all) == nil)
        #expect(PhoneNumbering.lowestFree(in: networks, phones: Array(all.dropLast())) == 254)
    }
}
