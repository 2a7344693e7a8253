import Foundation
import TunnelVisionControl

/// What the console listens on and where it finds the history, its password and its state.
/// Read from `/etc/tunnelvision/console.conf` (`key = value`, `#` comments), then the command
/// line (`--key value`), the later winning. TLS is on unless `tls = off` says otherwise.
public struct ConsoleConfiguration: Sendable, Equatable {
    public var listen = "0.0.0.0"
    public var port: UInt16 = 8443
    public var tls = true
    public var history: String?
    public var stateDirectory = ConsoleFilesDefaults.stateDirectory
    public var passwordFile = ConsoleFilesDefaults.passwordFile

    public static let defaultPath = "/etc/tunnelvision/console.conf"
    public static let keys = ["listen", "port", "tls", "history", "state-directory", "password-file"]

    public init() {}

    public typealias Problem = ConsoleConfigurationFault

    /// Applies one setting.
    public mutating func set(_ key: String, _ value: String) throws(Problem) {
        switch key {
        case "listen":
            guard IPAddressText.family(of: value) != nil else { throw .invalidValue(key: key, value: value) }
            listen = value
        case "port":
            guard let number = UInt16(value), number > 0 else { throw .invalidValue(key: key, value: value) }
            port = number
        case "tls":
            switch value {
            case "on": tls = true
            case "off": tls = false
            default: throw .invalidValue(key: key, value: value)
            }
        case "history": history = try path(key, value)
        case "state-directory": stateDirectory = try path(key, value)
        case "password-file": passwordFile = try path(key, value)
        default: throw .unknownKey(key)
        }
    }

    private func path(_ key: String, _ value: String) throws(Problem) -> String {
        guard value.hasPrefix("/") else { throw .invalidValue(key: key, value: value) }
        return value
    }

    /// The file's text, line by line.
    public mutating func apply(file text: String) throws(Problem) {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = content.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw .malformedLine(index + 1) }
            try set(parts[0], parts[1])
        }
    }

    /// `--key value` pairs (and `--config FILE`, which the caller reads first).
    public mutating func apply(arguments: [String]) throws(Problem) {
        var index = 0
        while index < arguments.count {
            let flag = arguments[index]
            guard flag.hasPrefix("--") else { throw .unknownKey(flag) }
            guard index + 1 < arguments.count else { throw .missingValue(flag: flag) }
            let key = String(flag.dropFirst(2))
            if key != "config" { try set(key, arguments[index + 1]) }
            index += 2
        }
    }

    /// The file `--config` names, if given.
    public static func configPath(in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: "--config"), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
}

/// The console's defaults, spelled where tvctl spells them.
public enum ConsoleFilesDefaults {
    public static let stateDirectory = ConsoleFiles.defaultStateDirectory
    public static let passwordFile = ConsoleFiles.defaultPasswordPath
}

/// Whether text is an IPv4 or IPv6 address, by the system's own reading.
public enum IPAddressText {
    public static func family(of text: String) -> Int32? {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return AF_INET }
        if inet_pton(AF_INET6, text, &v6) == 1 { return AF_INET6 }
        return nil
    }
}
