import TunnelVisionConfiguration
import TunnelVisionDatapath

extension DaemonConfiguration {
    /// One queue slot holds the largest packet the input can give: a 64 KiB segment (plus the
    /// TUN device's header) with offload or from libpcap, else one MTU.
    package var queueSlotBytes: Int {
        switch input {
        case .tun where !segmentationOffload: mtu + TunDevice.virtioHeaderLength
        default: 65_536 + TunDevice.virtioHeaderLength
        }
    }
}
