import TunnelVisionModel

/// What only scripts/gateway uses from the configuration: the addresses it gives the TUN device
/// and the user it hands the device to. The daemon's parser reads them, so that one parser and
/// one set of defaults decide for both.
public struct GatewayAddressing: Sendable, Hashable {
    /// Link-local: the tap's own address, which no phone or server uses.
    public var tunAddress = IPNetwork(IPAddress(v4: 0xA9FE_4D01), prefixLength: 32)
    /// The relay's redirect delivers IPv6 to an address of the device itself.
    public var tunAddress6 = IPNetwork(IPAddress(v6High: 0xFD00_7476_0000_0000, low: 1), prefixLength: 128)
    public var tunUser = "tunnelvision"

    public init() {}
}

extension DaemonConfiguration {
    /// `tunnelvisiond --print-gateway`: what scripts/gateway needs, one `key=value` a line, lists
    /// space-separated. The routing is for the inline tap: another input has none to set up.
    public var gatewayPrintout: String? {
        guard case .tun(let device) = input else { return nil }
        let lines = [
            ("tun", device),
            ("tun_address", gateway.tunAddress.description),
            ("tun_address6", gateway.tunAddress6.description),
            ("tun_user", gateway.tunUser),
            ("client_interface", clientInterface),
            ("client_networks4", clientNetworks.filter { $0.address.family == .v4 }.map(\.description).joined(separator: " ")),
            ("client_networks6", clientNetworks.filter { $0.address.family == .v6 }.map(\.description).joined(separator: " ")),
            ("uplink", uplink),
            ("inspection", inspection ? "on" : "off"),
            ("relay_port", String(relayPort)),
            ("inspected_ports", inspectedPorts.map(String.init).joined(separator: " ")),
            ("quic_drop", quicDrop ? "on" : "off"),
        ]
        return lines.map { "\($0.0)=\($0.1)" }.joined(separator: "\n") + "\n"
    }
}
