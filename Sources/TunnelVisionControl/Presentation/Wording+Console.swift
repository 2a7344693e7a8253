import Foundation

/// What `tvctl console` and the web console say (the console's pages reuse every other sentence).
extension Wording {
    static func sentence(for refusal: ConsoleRefusal) -> String {
        switch refusal {
        case .passwordTooShort(let minimum):
            "Nothing was stored: the console's password needs at least \(minimum) characters (or use --generate)."
        case .passwordNotGiven:
            "Nothing was stored: no password was given on standard input (or use --generate)."
        case .passwordNotWritten(let path, let reason):
            "The password could not be written to \(path) (\(reason)): run this as root, or name a file with --file."
        case .certificateMissing(let path):
            "There is no console certificate at \(path) yet: the console makes it at its first start with TLS on."
        case .certificateUnreadable(let path):
            "\(path) cannot be read as a PEM certificate: check that you are in the tunnelvision group, or remove it and restart the console to make a new one."
        case .randomnessUnavailable:
            "Nothing was stored: the system gave no random bytes for the salt; try again."
        }
    }

    static let consolePasswordPrompt = "Console password: "

    static func consolePasswordGenerated(_ password: String) -> String {
        "Password: \(password)  (shown this once; give it to the people who use the console)"
    }

    static func consolePasswordStored(path: String) -> String {
        "Stored the console password's hash in \(path); restart the console to use it."
    }

    // MARK: The web console's own

    public static let consoleLoginRefused = "That password is not the console's: try again."

    public static func consoleLoginDelayed(seconds: Int) -> String {
        "Too many wrong passwords from this address: wait \(seconds) s before the next try."
    }

    public static let consoleFormExpired = "This form has expired (or did not come from this console): reload the page and try again."
    public static let consoleBodyTooLarge = "The request was too large for the console and was not read."
    public static let consoleLengthRequired = "The request did not say its length, so the console did not read it."
    public static let consoleNotFound = "There is no such page on this console."
    public static let consoleLoginNeeded = "Log in with the console's password."
    public static let consoleLiveEnded = "The recording has ended: reload the page for its findings."
}

extension Wording {
    public static let consoleLiveBehind = "This page fell behind the live list: reload it."
    public static let consoleExportFolderMissing = "The console could not make a folder for the export in its state folder: see the journal."
    public static let consoleStatusLoading = "Reading the status …"
    public static let consoleNoOpenRecording = "Nothing is recording."

    // MARK: The journal (standard error under systemd)

    public static func consoleLogListening(address: String, port: UInt16, tls: Bool) -> String {
        "tvconsole: listening on \(tls ? "https" : "http")://\(address.contains(":") ? "[\(address)]" : address):\(port)/"
    }

    public static func consoleLogCertificate(fingerprint: String, made: Bool, path: String) -> String {
        "tvconsole: \(made ? "made a new" : "using the") certificate \(path), SHA-256 \(fingerprint) (check the browser shows the same; 'tvctl console fingerprint' says it too)"
    }

    public static let consoleLogPlainHTTP = "tvconsole: TLS is off (tls = off in the configuration): passwords and pages cross the network readable by anyone on it"

    public static func consoleLogWrongPassword(client: String, failures: Int, delay: Int?) -> String {
        "tvconsole: wrong password from \(client) (\(plural(failures, "failure")) in a row)" + (delay.map { "; its next try waits \($0) s" } ?? "")
    }

    public static func consoleLogThrottled(client: String, seconds: Int) -> String {
        "tvconsole: login from \(client) refused unread: \(seconds) s of its delay are left"
    }

    public static func consoleLogLoggedIn(client: String) -> String { "tvconsole: logged in from \(client)" }

    public static func consoleLogForgedPost(path: String, client: String) -> String {
        "tvconsole: refused a change to \(TerminalText.visible(path)) from \(client) without this session's form token"
    }

    public static func consoleLogDownload(sessionID: Int64, file: String, bytes: UInt64, withKeys: Bool, client: String, login: String, at date: Date) -> String {
        "tvconsole: bundle of session \(sessionID) downloaded by \(client) (login \(login)…) at \(Formatting.iso8601(date)): \(file), \(bytes) bytes"
            + (withKeys ? ", with TLS keys" : "")
    }

    public static func consoleLogExportFolder(_ folder: String, reason: String) -> String {
        "tvconsole: could not make the export folder \(folder): \(reason)"
    }
}

extension Wording {
    public static let consoleRefusesRoot = "the console does not run as root: run it as its own user in the tunnelvision group (its systemd unit does)."

    public static func consoleConfigurationUnreadable(_ path: String) -> String {
        "the configuration \(path) cannot be read: name a file that exists and is readable."
    }

    public static func consoleConfigurationProblem(_ problem: ConsoleConfigurationFault) -> String {
        switch problem {
        case .malformedLine(let line): "line \(line) of the configuration is not 'key = value': correct it."
        case .unknownKey(let key): "\(TerminalText.visible(key)) is not a setting of the console (they are listen, port, tls, history, state-directory, password-file)."
        case .invalidValue(let key, let value): "\(TerminalText.visible(value)) is not a value \(key) takes: an address for listen, 1–65535 for port, on or off for tls, an absolute path for the others."
        case .missingValue(let flag): "\(TerminalText.visible(flag)) needs a value."
        }
    }

    public static func consolePasswordMissing(_ path: String) -> String {
        "no password is set for the console (\(path) is missing or not one 'tvctl console password' wrote): run 'tvctl console password' as root."
    }

    public static func consoleCertificateProblem(_ problem: ConsoleCertificateFault) -> String {
        switch problem {
        case .unreadable(let path): "the console's certificate or key \(path) cannot be read: remove both to have new ones made."
        case .keyExposed(let path): "the console's key \(path) is readable by others: make it 0600, or remove it and the certificate to have new ones made."
        case .notWritten(let path, let reason): "the console's certificate could not be written to \(path) (\(reason)): check its state folder belongs to it."
        case .openSSL(let detail): "the console's certificate could not be made (\(detail))."
        }
    }

    public static func consoleCannotListen(address: String, port: UInt16) -> String {
        "cannot listen on \(address) port \(port): another program may use it, or the address is not this machine's."
    }
}

/// What the console's configuration said wrong (the console's parser throws it).
public enum ConsoleConfigurationFault: Error, Sendable, Equatable {
    case malformedLine(Int)
    case unknownKey(String)
    case invalidValue(key: String, value: String)
    case missingValue(flag: String)
}

/// Why the console's certificate could not be had.
public enum ConsoleCertificateFault: Error, Sendable, Equatable {
    case unreadable(path: String)
    case keyExposed(path: String)
    case notWritten(path: String, reason: String)
    case openSSL(String)
}
