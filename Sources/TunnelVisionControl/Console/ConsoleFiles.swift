import Foundation

/// Where the web console keeps what the administrator gives it and what it makes itself.
/// tvctl reads the certificate (for its fingerprint) and writes the password; the console
/// reads both. The key never leaves the console's own folder.
public enum ConsoleFiles {
    /// Written by `tvctl console password` as root; the unit hands it to the console as a credential.
    public static let defaultPasswordPath = "/etc/tunnelvision/console-password"
    /// The console's state folder (systemd's StateDirectory=).
    public static let defaultStateDirectory = "/var/lib/tunnelvision-console"
    public static let certificateName = "console.crt"
    public static let keyName = "console.key"

    public static func certificatePath(in directory: String) -> String { directory + "/" + certificateName }
    public static func keyPath(in directory: String) -> String { directory + "/" + keyName }
}

/// What `tvctl console` refused.
public enum ConsoleRefusal: Sendable, Equatable {
    case passwordTooShort(minimum: Int)
    case passwordNotGiven
    case passwordNotWritten(path: String, reason: String)
    case certificateMissing(path: String)
    case certificateUnreadable(path: String)
    case randomnessUnavailable
}
