import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionRelay
import TunnelVisionRetention

/// Where the daemon's packets come from.
public enum CaptureInput: Sendable, Hashable {
    /// The inline tap: the daemon owns the TUN device and forwards every packet it records.
    case tun(name: String)
    /// A passive tap of an existing interface through libpcap; nothing is forwarded.
    case interface(name: String)
    /// A pcap or pcapng file ingested as if it had crossed the tap.
    case file(path: String)

    /// How the capture session names its input ("tun:tv0").
    public var label: String {
        switch self {
        case .tun(let name): CaptureInputKind.tun.label(name)
        case .interface(let name): CaptureInputKind.interface.label(name)
        case .file(let path): CaptureInputKind.file.label(path)
        }
    }
}

/// Everything `tunnelvisiond.conf` and the command line can say. The file holds `key = value`
/// lines (`#` starts a comment); flags given on the command line win over the file.
public struct DaemonConfiguration: Sendable, Hashable {
    public static let defaultPath = "/etc/tunnelvision/tunnelvisiond.conf"

    public var database = "/var/lib/tunnelvision/history.sqlite"
    public var captureDirectory = "/var/lib/tunnelvision/captures"
    public var input = CaptureInput.tun(name: "tv0")
    public var clientInterface = "wg0"
    public var clientNetworks: [String] = []
    /// The resolver(s) the phone is configured with on the gateway: their DNS is the lab's own.
    public var resolvers: [String] = []
    public var uplink = "eth0"
    public var mtu = 1500
    public var snapshotLength = PcapFormat.defaultSnapshotLength
    public var rotationBytes: UInt64 = 64 * 1024 * 1024
    public var retention = RetentionLimits()
    public var inspection = false
    /// The relay (docs/ARCHITECTURE.md § The relay): its listener, the original destination ports it terminates, the
    /// UDP/443 drop (applied by scripts/gateway) and its CA's two files.
    public var relayPort: UInt16 = 8443
    public var inspectedPorts: [UInt16] = [443]
    public var quicDrop = false
    public var caKeyPath = DaemonSettings.defaultCAKeyPath
    public var caCertificatePath = DaemonSettings.defaultCACertificatePath
    /// The system's roots, or a PEM bundle the upstream certificates are verified against instead.
    public var upstreamTrust = UpstreamTrust.system
    /// The TUN device's addresses and owner, which scripts/gateway sets up (`--print-gateway`).
    public var gateway = GatewayAddressing()
    /// A server certificate that does not verify against `upstreamTrust` is mirrored to the phone
    /// as a leaf of an untrusted issuer (on); off shows the recording's leaf all the same.
    public var upstreamMirror = true
    public var queuePackets = 2048
    public var flushReachesStorage = true
    /// Let the TUN device hand over whole TCP segments (see `TunDevice`).
    public var segmentationOffload = true
    /// Evidence first (wait for a recorder slot, bounded) or forwarding first; the inline tap only.
    public var recorderBacklog = RecorderBacklog.wait
    public var recorderWaitMilliseconds = RecorderBacklog.defaultWaitMilliseconds
    /// The relay's timeouts, its per-phone cap and the descriptors it leaves to the recorder
    /// (`relay_hold_timeout`, `relay_handshake_timeout`, `relay_idle_timeout`,
    /// `relay_connections_per_phone`, `descriptor_reserve`).
    public var relayLimits = RelayLimits()

    public init() {}

    /// The settings the daemon publishes in the database for `tvctl` to read.
    public var publishedSettings: DaemonSettings {
        DaemonSettings(
            input: input.label, inspection: inspection, clientInterface: clientInterface, clientNetworks: clientNetworks,
            uplink: uplink, captureDirectory: captureDirectory, snapshotLength: snapshotLength, rotationBytes: rotationBytes,
            keepDays: Int(exactly: (retention.maximumAge / 86_400).rounded(.down)), keepBytes: retention.maximumBytes,
            segmentationOffload: segmentationOffload, relayPort: relayPort,
            inspectedPorts: inspectedPorts.map(String.init), quicDrop: quicDrop,
            caCertificatePath: caCertificatePath, resolvers: resolvers,
            recorderBacklog: recorderBacklog, recorderWaitMilliseconds: recorderWaitMilliseconds,
            upstreamMirror: upstreamMirror)
    }

    package var captureFiles: CaptureFileConfiguration {
        CaptureFileConfiguration(directory: captureDirectory, snapshotLength: snapshotLength,
                                 rotationBytes: rotationBytes, flushReachesStorage: flushReachesStorage)
    }

    /// What the relay runs with.
    public var relayConfiguration: RelayConfiguration {
        RelayConfiguration(
            isEnabled: inspection, listenPort: relayPort, inspectedPorts: Set(inspectedPorts),
            certificateAuthority: CertificateAuthorityFiles(keyPath: caKeyPath, certificatePath: caCertificatePath),
            upstreamTrust: upstreamTrust,
            mirrorsUnverifiedUpstream: upstreamMirror, limits: relayLimits)
    }
}

extension DaemonConfiguration {
    /// The phone's end of each flow is the one inside the configured client networks.
    public var flowEngine: FlowEngineConfiguration {
        FlowEngineConfiguration(clientNetworks: clientNetworks.compactMap(IPNetwork.init))
    }
}
