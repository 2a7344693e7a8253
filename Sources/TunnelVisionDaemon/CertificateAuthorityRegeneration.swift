import Foundation
import Glibc
import TunnelVisionConfiguration
import TunnelVisionModel
import TunnelVisionRelay

/// `tunnelvisiond --regenerate-ca`: a root command that replaces the inspection CA. The files go
/// to the daemon's user (the account `tunnelvision`; root where there is none, as on a
/// development machine whose daemon runs as root), the certificate to the group `tunnelvision`
/// so members can read it; the key 0600, the certificate 0640. The directory must already be
/// that user's and writable by no one else (or is made so): whoever owns a directory put in its
/// place gets nothing. A running relay keeps the old CA until it restarts, and a restart is also
/// what empties its memory of hosts that refused the old one.
public enum CertificateAuthorityRegeneration {
    public static func run(_ configuration: DaemonConfiguration) throws(RelayError) -> CertificateAuthority {
        guard geteuid() == 0 else {
            throw .certificateAuthorityNotWritable(path: configuration.caKeyPath, reason: "regenerating the CA needs root")
        }
        return try CertificateAuthority.create(
            CertificateAuthorityFiles(keyPath: configuration.caKeyPath, certificatePath: configuration.caCertificatePath),
            owner: daemonOwner)
    }

    /// The daemon's user and the group that shares the certificate, from the account database.
    static var daemonOwner: CAFilesOwner {
        let user = getpwnam(DaemonSettings.daemonAccount)
        let group = getgrnam(DaemonSettings.daemonAccount)
        return CAFilesOwner(user: user?.pointee.pw_uid ?? 0, group: group?.pointee.gr_gid ?? user?.pointee.pw_gid)
    }
}
