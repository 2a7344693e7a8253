import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionFlows
import TunnelVisionModel
import TunnelVisionRelay
import TunnelVisionRetention

/// Everything `tunnelvisiond.conf` and the command line can say. The file holds `key = value`
/// lines (`#` starts a comment); flags given on the command line win over the file.
public struct DaemonConfiguration: Sendable, Hashable {
    public static let defaultPath = "/etc/tunnelvision/tunnelvisiond.conf"

    public var database = "/var/lib/tunnelvision/history.sqlite"
    public var captureDirectory = "/var/lib/tunnelvision/captures"
    public var input = CaptureInput.tun(name: "tv0")
    public var clientInterface = "wg0"
    public var clientNetworks: [IPNetwork] = []
    /// The resolver(s) the phone is configured with on the gateway: their DNS is the lab's own.
    public var resolvers: [IPAddress] = []
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
            input: input, inspection: inspection, clientInterface: clientInterface, clientNetworks: clientNetworks,
            uplink: uplink, captureDirectory: captureDirectory, snapshotLength: snapshotLength, rotationBytes: rotationBytes,
            keepDays: retention.keepDays, keepBytes: retention.maximumBytes,
            segmentationOffload: segmentationOffload, relayPort: relayPort,
            inspectedPorts: inspectedPorts, quicDrop: quicDrop,
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
        FlowEngineConfiguration(clientNetworks: clientNetworks)
    }
}
