import Foundation
import Glibc
import TunnelVisionRelay

/// `tunnelvisiond --regenerate-ca`: a root command that replaces the inspection CA. The files
/// go to the owner and group of their directory (the daemon's user), the key 0600, the
/// certificate 0640. A running relay keeps the old CA until it restarts, and a restart is also
/// what empties its memory of hosts that refused the old one.
public enum CertificateAuthorityRegeneration {
    public static func run(_ configuration: DaemonConfiguration) throws(RelayError) -> CertificateAuthority {
        guard geteuid() == 0 else {
            throw .certificateAuthorityNotWritable(path: configuration.caKeyPath, reason: "regenerating the CA needs root")
        }
        let directory = (configuration.caKeyPath as NSString).deletingLastPathComponent
        var owner = stat()
        if stat(directory, &owner) != 0 {
            let parent = (directory as NSString).deletingLastPathComponent
            guard stat(parent, &owner) == 0, mkdir(directory, 0o750) == 0, chown(directory, owner.st_uid, owner.st_gid) == 0 else {
                throw .certificateAuthorityNotWritable(path: directory, reason: String(cString: strerror(errno)))
            }
        }
        let authority = try CertificateAuthority.create(
            CertificateAuthorityFiles(keyPath: configuration.caKeyPath, certificatePath: configuration.caCertificatePath))
        for path in [configuration.caKeyPath, configuration.caCertificatePath] where chown(path, owner.st_uid, owner.st_gid) != 0 {
            throw .certificateAuthorityNotWritable(path: path, reason: String(cString: strerror(errno)))
        }
        return authority
    }
}
