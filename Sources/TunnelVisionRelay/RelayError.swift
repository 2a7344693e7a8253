import TunnelVisionModel

/// Why the relay could not start or could not mint; each says what the user can do.
public enum RelayError: Error, Sendable, Hashable, CustomStringConvertible {
    case certificateAuthorityHalfPresent(present: String, missing: String)
    case certificateAuthorityUnreadable(path: String, reason: String)
    case certificateAuthorityKeyExposed(path: String, mode: UInt32)
    case certificateAuthorityMismatch(keyPath: String, certificatePath: String)
    case certificateAuthorityNotWritable(path: String, reason: String)
    case certificateAuthorityDirectoryRefused(path: String, problem: PrivateDirectory.Problem)
    case openSSL(operation: String, reason: String)
    case listenerUnavailable(port: UInt16, reason: String)
    case upstreamTrustUnreadable(path: String)

    public var description: String {
        switch self {
        case .certificateAuthorityHalfPresent(let present, let missing):
            "The inspection CA is incomplete: \(present) exists but \(missing) does not; restore it or regenerate the CA."
        case .certificateAuthorityUnreadable(let path, let reason):
            "The inspection CA file \(path) cannot be read (\(reason)); restore it or regenerate the CA."
        case .certificateAuthorityKeyExposed(let path, let mode):
            "The inspection CA key \(path) is readable by others (mode \(String(mode, radix: 8))); run chmod 600 on it or regenerate the CA."
        case .certificateAuthorityMismatch(let keyPath, let certificatePath):
            "The inspection CA key \(keyPath) does not belong to the certificate \(certificatePath); regenerate the CA."
        case .certificateAuthorityNotWritable(let path, let reason):
            "The inspection CA cannot be written to \(path) (\(reason)); check that its directory exists and belongs to the daemon."
        case .certificateAuthorityDirectoryRefused(let path, .notADirectory):
            "The inspection CA's directory \(path) is a symbolic link or not a directory, so it is not used; remove it and run 'tunnelvisiond --regenerate-ca' as root."
        case .certificateAuthorityDirectoryRefused(let path, .ownedBy(let user, let expected)):
            "The inspection CA's directory \(path) belongs to user \(user), not to the daemon's user \(expected), so it is not used; move it away and run 'tunnelvisiond --regenerate-ca' as root."
        case .certificateAuthorityDirectoryRefused(let path, .writableByOthers(let mode)):
            "The inspection CA's directory \(path) can be written by its group or others (mode \(String(mode, radix: 8))), so it is not used; move it away and run 'tunnelvisiond --regenerate-ca' as root."
        case .openSSL(let operation, let reason):
            "OpenSSL failed to \(operation): \(reason)."
        case .listenerUnavailable(let port, let reason):
            "The relay cannot listen on port \(port) (\(reason)); choose another relay port."
        case .upstreamTrustUnreadable(let path):
            "The trust bundle \(path) for the relay's upstream connections cannot be read."
        }
    }
}
