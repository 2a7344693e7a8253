import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionConfiguration
import TunnelVisionDaemonLog
import TunnelVisionDatapath
import TunnelVisionModel
import TunnelVisionStore

// The one line the daemon prints when it cannot start, for each cause, in one place.

extension ConfigurationError {
    /// The one sentence shown to whoever started the daemon.
    public var message: String {
        switch self {
        case .unreadableFile(let path, let reason): "cannot read the configuration \(path) (\(reason)); check that it exists and is readable by the daemon."
        case .notARegularFile(let path): "the configuration \(path) is not a regular file; point --config at the file itself."
        case .invalidEncoding(let path, let line): "\(path):\(line) is not valid UTF-8; save the file as UTF-8 text."
        case .malformedLine(let path, let line): "\(path):\(line) is not a `key = value` line."
        case .unknownKey(let key, let path, let line): "\(path):\(line): unknown setting `\(key)`; see tunnelvisiond --help."
        case .invalidValue(let key, let value): "`\(value)` is not a valid value for \(key)."
        case .outOfRange(let key, let value, let lowest, let highest): "`\(value)` is refused for \(key): give a whole number from \(lowest) to \(highest)."
        case .unknownFlag(let flag): "unknown option \(flag); see tunnelvisiond --help."
        case .missingValue(let flag): "\(flag) needs a value."
        case .conflictingInputs: "choose one input: --tun, --interface or --read."
        }
    }
}

extension HistoryError {
    /// Why the daemon could not open its history, and what to change, in one sentence.
    public var daemonMessage: String {
        switch self {
        case .permissionDenied(let path):
            "cannot open the history \(path): permission denied; give the daemon's user read and write on the file and its folder, or name another with --db."
        case .cannotOpen(let path, let reason):
            "cannot open the history \(path) (\(reason)); check that --db names a file in an existing folder."
        case .busy(let path):
            "the history \(path) stayed busy with another writer; stop the other tunnelvisiond or tvctl and start again."
        case .corrupt(let path):
            "the history \(path) is damaged; restore it from a backup, or move it away so that a new one is started."
        case .readOnlyFileSystem(let path):
            "the history \(path) is on a read-only file system; remount it read-write, or name a history on a writable disk with --db."
        case .symbolicLink(let path):
            "\(path) is a symbolic link, which the daemon does not follow (anyone in the group could have put it there); remove it so that the history is a file of its own."
        case .foreignOwner(let path, let owner):
            "the history \(path) belongs to user \(owner), neither root nor the daemon's user, so root does not open it; run the daemon as its user, or move the file away."
        case .emptyFile(let path):
            "the history \(path) is an empty file, not a history; restore it from a backup, or delete it so that a new one is started."
        case .newerSchema(let path, let found, let supported):
            "the history \(path) was written by a newer TunnelVision (schema \(found), this daemon reads \(supported)); update tunnelvisiond."
        case .diskFull(let path):
            "the disk that holds the history \(path) is full; free some space and start again."
        case .unreadableRow(let table, let id, let reason):
            "row \(id) of the history's \(table) cannot be read (\(reason)); restore the history from a backup, or correct that row."
        case .failed(let path, _, let message):
            "the history \(path) failed (\(message)); check the disk and start again."
        }
    }
}

extension DaemonStartError {
    /// The one sentence printed when the daemon cannot start.
    public var message: String {
        switch self {
        case .history(let cause): "cannot open the history (\(cause)); check --db and the group's write access."
        case .captureDirectory(let path, let code): "cannot use the capture directory \(path) (\(String(cString: strerror(code)))); check --captures."
        case .capture(let error): "cannot start the capture: \(CaptureWriteError.describe(error))."
        case .tun(let error): error.message
        case .interface(let error): error.message
        case .inputUnavailable(let input): "cannot read \(input)."
        case .relay(let error): "cannot start TLS inspection: \(error.description) Or set inspection = off."
        case .importFailed(let error): "\(error)."
        case .historyUnopened(let error): error.daemonMessage
        case .sealKey(let failure): failure.daemonMessage
        }
    }
}

extension TunDeviceError {
    /// The one sentence printed when the daemon cannot start.
    public var message: String {
        switch self {
        case .cannotOpenClonePath(let code):
            "cannot open /dev/net/tun (\(String(cString: strerror(code)))); the daemon needs the tun module and CAP_NET_ADMIN."
        case .cannotAttach(let name, let code):
            "cannot attach to TUN device \(name) (\(String(cString: strerror(code)))); run scripts/gateway up, or give the daemon CAP_NET_ADMIN."
        case .cannotBringUp(let name, let code):
            "cannot bring \(name) up (\(String(cString: strerror(code)))); run scripts/gateway up first."
        }
    }
}

extension InterfaceTapError {
    /// The one sentence printed when the daemon cannot start.
    public var message: String {
        switch self {
        case .cannotOpen(let interface, let reason):
            "cannot capture on \(interface) (\(reason)); the daemon needs an existing interface and CAP_NET_RAW, which the unit grants only through the passive tap's drop-in: after setting interface = in the configuration, run 'dpkg-reconfigure tunnelvision' (or scripts/install again)."
        case .unsupportedLinkType(let interface, let linkType):
            "\(interface) has link type \(linkType); the passive tap reads Ethernet, Linux cooked and raw IP interfaces."
        }
    }
}

extension CaptureSealKey.Failure {
    private static func why(_ problem: PrivateDirectory.Problem) -> String {
        switch problem {
        case .notADirectory: "is a symbolic link or not what it should be"
        case .ownedBy(let user, let expected): "belongs to user \(user), neither root nor the daemon's user \(expected)"
        case .writableByOthers(let mode): "can be written by its group or others (mode \(String(mode, radix: 8)))"
        }
    }

    var daemonMessage: String {
        switch self {
        case .unreadable(let path, let errno):
            "cannot read the key that seals the capture files, \(path): \(String(cString: strerror(errno))). It is the daemon's user's alone (0600)."
        case .malformed(let path):
            "\(path) holds no Ed25519 key. Move it aside: the daemon makes a new pair, and files sealed before keep their key's public half in the bundles that hold them."
        case .notTheDaemons(let path, let problem):
            "\(path) \(Self.why(problem)), so the key that seals the capture files is not taken from it: move it aside and run 'sudo systemd-tmpfiles --create' (or scripts/install) so that the daemon makes its own."
        case .notMade(let path, let errno):
            "cannot make the key that seals the capture files, \(path): \(errno == 0 ? "libcrypto made no key" : String(cString: strerror(errno)))."
        }
    }
}
