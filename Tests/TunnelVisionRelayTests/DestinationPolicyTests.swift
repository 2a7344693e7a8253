import Testing
import TunnelVisionModel
@testable import TunnelVisionRelay

@Suite struct DestinationPolicyTests {
    static let gateway: Set<IPAddress> = [IPAddress("198.51.100.1")!, IPAddress("10.77.0.1")!, IPAddress("2001:db8:100::1")!]

    @Test(arguments: [
        ("127.0.0.1", DestinationRefusal.loopback), ("127.255.0.9", .loopback), ("::1", .loopback),
        ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified),
        ("::ffff:127.0.0.1", .v4Mapped), ("::ffff:198.51.100.13", .v4Mapped),
        ("169.254.1.1", .linkLocal), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("224.0.0.1", .multicast), ("239.1.2.3", .multicast), ("255.255.255.255", .multicast), ("ff02::1", .multicast),
        ("198.51.100.1", .gatewayAddress), ("10.77.0.1", .gatewayAddress), ("2001:db8:100::1", .gatewayAddress),
    ])
    func aDestinationTheRelayNeverDialsIsRefusedWithItsReason(address: String, refusal: DestinationRefusal) {
        #expect(DestinationPolicy.refusal(for: IPAddress(address)!, local: Self.gateway) == refusal)
    }

    @Test(arguments: ["198.51.100.13", "10.77.0.2", "2001:db8:100::2", "fec0::1", "1.1.1.1", "223.255.255.255", "64:ff9b::1"])
    func anyOtherDestinationIsDialled(address: String) {
        #expect(DestinationPolicy.refusal(for: IPAddress(address)!, local: Self.gateway) == nil)
    }

    @Test func theGatewaysOwnAddressesAreReadFromItsInterfaces() {
        let local = LocalAddresses.current()
        #expect(local.contains(IPAddress("127.0.0.1")!))
    }
}
