import TunnelVisionModel
import TunnelVisionWire

/// Terminate only with inspection on, an inspected port, a CA loaded, a complete
/// ClientHello that announced a name, and a host not remembered as refusing; else splice
/// (the decision table in `docs/ARCHITECTURE.md` § The relay).
public struct InspectionPolicy: Sendable {
    public var isEnabled: Bool
    public var inspectedPorts: Set<UInt16>
    public var hasCertificateAuthority: Bool

    public init(isEnabled: Bool, inspectedPorts: Set<UInt16>, hasCertificateAuthority: Bool) {
        self.isEnabled = isEnabled
        self.inspectedPorts = inspectedPorts
        self.hasCertificateAuthority = hasCertificateAuthority
    }

    /// Decisions that need no byte from the phone: the relay splices at once, without a hold.
    public func decisionBeforeHold(destinationPort: UInt16) -> RelayDecision? {
        if !isEnabled { return .splice(.inspectionOff) }
        if !inspectedPorts.contains(destinationPort) { return .splice(.portNotInspected) }
        if !hasCertificateAuthority { return .splice(.noCertificateAuthority) }
        return nil
    }

    /// The decision once the hold has settled or filled; nil while it waits.
    public func decision(
        destinationPort: UInt16, hold: ClientHelloHold.State, heldBytes: some Collection<UInt8>,
        isRemembered: (String) -> Bool
    ) -> RelayDecision? {
        if let early = decisionBeforeHold(destinationPort: destinationPort) { return early }
        switch hold {
        case .waiting:
            return nil
        case .full:
            return .splice(.holdFull)
        case .settled(nil):
            // A handshake record whose first message the reader could not take is still TLS.
            return .splice(heldBytes.first == TLSRecordLayer.contentHandshake ? .unreadableClientHello : .notTLS)
        case .settled(let reading?):
            guard let name = reading.serverName else {
                return .splice(reading.offer == nil && heldBytes.first != TLSRecordLayer.contentHandshake ? .notTLS : .noServerName)
            }
            return isRemembered(name) ? .splice(.hostRemembered) : .terminate(serverName: name)
        }
    }
}
