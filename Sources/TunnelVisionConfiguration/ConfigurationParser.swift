import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionModel
import TunnelVisionRelay

/// Reads `tunnelvisiond.conf` and the command line into one `DaemonConfiguration`. Both use the
/// same keys: `client_network = …` in the file is `--client-network …` on the command line.
public enum ConfigurationParser {
    public static let usage = """
        usage: tunnelvisiond [--config FILE] [--db FILE] [--captures DIR]
                             [--tun NAME | --interface IF | --read FILE]
                             [--client-interface IF] [--client-network CIDR]... [--uplink IF]
                             [--snaplen N] [--rotate-bytes N] [--keep-days N] [--keep-bytes N]
                             [--inspection on|off] [--mtu N] [--queue-packets N] [--flush-to-storage yes|no]
                             [--offload on|off] [--resolver ADDRESS]...
                             [--when-recorder-behind wait|forward] [--recorder-wait-ms N]
                             [--relay-port N] [--inspected-ports N,...] [--quic-drop on|off]
                             [--ca-key FILE] [--ca-certificate FILE] [--upstream-trust system|FILE]
                             [--relay-hold-timeout S] [--relay-handshake-timeout S] [--relay-idle-timeout S]
                             [--relay-connections-per-phone N] [--descriptor-reserve N]
               tunnelvisiond --regenerate-ca [--config FILE] [--ca-key FILE] [--ca-certificate FILE]
               tunnelvisiond --print-gateway [--config FILE]
        """

    /// The command line, with the file it names (or the default one, if present) read first.
    /// `readFile` gives a file's bytes, nil when there is no such file, or throws why it cannot.
    public static func parse(arguments: [String], readFile: (String) throws(ConfigurationError) -> [UInt8]? = ConfigurationFile.read)
        throws(ConfigurationError) -> DaemonConfiguration {
        let flags = try pairs(fromArguments: arguments)
        var configuration = DaemonConfiguration()
        let named = flags.last { $0.key == "config" }?.value
        let path = named ?? DaemonConfiguration.defaultPath
        // Only the default file may be absent; one that is there but cannot be read is an error
        // either way, never a silent start on the defaults.
        if let bytes = try readFile(path) {
            for entry in try pairs(fromFile: bytes, path: path) {
                try apply(entry.key, entry.value, to: &configuration, location: (path, entry.line))
            }
        } else if named != nil {
            throw .unreadableFile(path: path, reason: "No such file or directory")
        }
        // Networks given on the command line replace the file's list rather than adding to it.
        if flags.contains(where: { $0.key == "client_network" }) { configuration.clientNetworks = [] }
        if flags.contains(where: { $0.key == "resolver" }) { configuration.resolvers = [] }
        var inputs = 0
        for (key, value) in flags where key != "config" {
            if ["tun", "interface", "read"].contains(key) { inputs += 1 }
            try apply(key, value, to: &configuration, location: nil)
        }
        guard inputs <= 1 else { throw .conflictingInputs }
        return configuration
    }

    static func pairs(fromArguments arguments: [String]) throws(ConfigurationError) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--"), argument.count > 2 else { throw .unknownFlag(argument) }
            var name = String(argument.dropFirst(2))
            var value: String
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            } else {
                guard index + 1 < arguments.count else { throw .missingValue(flag: argument) }
                index += 1
                value = arguments[index]
            }
            let key = name.replacingOccurrences(of: "-", with: "_")
            guard key == "config" || keys.contains(key) else { throw .unknownFlag(argument) }
            value = value.trimmingCharacters(in: .whitespaces)
            result.append((key, value))
            index += 1
        }
        return result
    }

    /// `key = value` lines ending in LF or CRLF, read byte-wise so that a CR is never part of a
    /// line (Swift's String takes "\r\n" as one Character, which a split on "\n" misses).
    static func pairs(fromFile bytes: [UInt8], path: String) throws(ConfigurationError) -> [(key: String, value: String, line: Int)] {
        var result: [(key: String, value: String, line: Int)] = []
        for (number, raw) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let lineBytes = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw
            guard let text = String(validating: lineBytes, as: UTF8.self) else { throw .invalidEncoding(path: path, line: number + 1) }
            let line = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw .malformedLine(path: path, line: number + 1) }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            guard keys.contains(key) else { throw .unknownKey(key, path: path, line: number + 1) }
            result.append((key, parts[1].trimmingCharacters(in: .whitespaces), number + 1))
        }
        return result
    }

    /// For scripts/gateway, which asks for them with `--print-gateway`; the daemon has no other use for them.
    static let gatewayKeys: Set<String> = ["tun_address", "tun_address6", "tun_user"]
    /// Read by `tvctl export` from the same file (the TSA a bundle's manifest is stamped by).
    static let exportKeys: Set<String> = ["timestamp_url"]

    static let keys: Set<String> = gatewayKeys.union(exportKeys).union([
        "db", "captures", "tun", "interface", "read", "client_interface", "client_network", "uplink",
        "snaplen", "rotate_bytes", "keep_days", "keep_bytes", "inspection", "mtu", "queue_packets", "flush_to_storage", "offload",
        "relay_port", "inspected_ports", "quic_drop", "ca_key", "ca_certificate", "upstream_trust",
        "upstream_mirror",
        "resolver", "when_recorder_behind", "recorder_wait_ms",
        "relay_hold_timeout", "relay_handshake_timeout", "relay_idle_timeout", "relay_connections_per_phone", "descriptor_reserve",
    ])

    private static func apply(_ key: String, _ value: String, to configuration: inout DaemonConfiguration,
                              location: (path: String, line: Int)?) throws(ConfigurationError) {
        let invalid = ConfigurationError.invalidValue(key: key, value: value)
        guard !value.isEmpty else { throw invalid }
        switch key {
        case "tun_address":
            guard let network = IPNetwork(value), network.address.family == .v4 else { throw invalid }
            configuration.gateway.tunAddress = network
        case "tun_address6":
            guard let network = IPNetwork(value), network.address.family == .v6 else { throw invalid }
            configuration.gateway.tunAddress6 = network
        case "tun_user": configuration.gateway.tunUser = try userName(value, or: invalid)
        // Checked here too, so that a mistyped TSA stops the start as any other value does.
        case "timestamp_url":
            guard value == "off" || value.hasPrefix("https://") || value.hasPrefix("http://") else { throw invalid }
        case "db": configuration.database = value
        case "captures": configuration.captureDirectory = value
        case "tun": configuration.input = .tun(name: try interfaceName(value, or: invalid))
        case "interface": configuration.input = .interface(name: try interfaceName(value, or: invalid))
        case "read": configuration.input = .file(path: value)
        case "client_interface": configuration.clientInterface = try interfaceName(value, or: invalid)
        case "uplink": configuration.uplink = try interfaceName(value, or: invalid)
        case "client_network": configuration.clientNetworks += try list(value, of: IPNetwork.self, or: invalid)
        case "resolver":
            let addresses = try list(value, of: IPAddress.self, or: invalid)
            guard !addresses.isEmpty else { throw invalid }
            configuration.resolvers += addresses
        case "snaplen": configuration.snapshotLength = try number(key, value, in: NumberRanges.snapshotLength)
        case "rotate_bytes": configuration.rotationBytes = try number(key, value, in: NumberRanges.rotationBytes)
        case "keep_days": configuration.retention.keepDays = try number(key, value, in: NumberRanges.keepDays)
        case "keep_bytes": configuration.retention.maximumBytes = try number(key, value, in: NumberRanges.keepBytes)
        case "inspection": configuration.inspection = try flag(value, or: invalid)
        case "flush_to_storage": configuration.flushReachesStorage = try flag(value, or: invalid)
        case "offload": configuration.segmentationOffload = try flag(value, or: invalid)
        case "relay_port": configuration.relayPort = try number(key, value, in: NumberRanges.port)
        case "inspected_ports":
            let ports = value.split(separator: ",").map { UInt16($0.trimmingCharacters(in: .whitespaces)) }
            guard !ports.isEmpty, ports.count <= 64, ports.allSatisfy({ ($0 ?? 0) > 0 }) else { throw invalid }
            let unique = ports.compactMap { $0 }
            guard Set(unique).count == unique.count else { throw invalid }
            configuration.inspectedPorts = unique
        case "quic_drop": configuration.quicDrop = try flag(value, or: invalid)
        case "ca_key": configuration.caKeyPath = try absolutePath(value, or: invalid)
        case "ca_certificate": configuration.caCertificatePath = try absolutePath(value, or: invalid)
        case "upstream_trust":
            switch UpstreamTrust(written: value) {
            case .system: configuration.upstreamTrust = .system
            case .bundle(let path): configuration.upstreamTrust = .bundle(path: try absolutePath(path, or: invalid))
            }
        case "upstream_mirror": configuration.upstreamMirror = try flag(value, or: invalid)
        case "mtu": configuration.mtu = try number(key, value, in: NumberRanges.mtu)
        case "queue_packets": configuration.queuePackets = try number(key, value, in: NumberRanges.queuePackets)
        case "when_recorder_behind":
            guard let backlog = RecorderBacklog(rawValue: value.lowercased()) else { throw invalid }
            configuration.recorderBacklog = backlog
        case "recorder_wait_ms": configuration.recorderWaitMilliseconds = try number(key, value, in: NumberRanges.recorderWaitMilliseconds)
        case "relay_hold_timeout": configuration.relayLimits.holdSeconds = Double(try number(key, value, in: NumberRanges.relayHoldSeconds))
        case "relay_handshake_timeout":
            configuration.relayLimits.handshakeSeconds = Double(try number(key, value, in: NumberRanges.relayHandshakeSeconds))
        case "relay_idle_timeout": configuration.relayLimits.idleSeconds = Double(try number(key, value, in: NumberRanges.relayIdleSeconds))
        case "relay_connections_per_phone":
            configuration.relayLimits.connectionsPerPhone = try number(key, value, in: NumberRanges.relayConnectionsPerPhone)
        case "descriptor_reserve": configuration.relayLimits.descriptorReserve = try number(key, value, in: NumberRanges.descriptorReserve)
        default:
            throw location.map { .unknownKey(key, path: $0.path, line: $0.line) } ?? .unknownFlag("--" + key)
        }
    }

    /// Every number setting goes through here: decimal digits only, inside the setting's range,
    /// so that nothing the daemon accepts can overflow later (a keep_days of 1e308 once did).
    static func number<Number: FixedWidthInteger>(_ key: String, _ value: String, in range: ClosedRange<Number>)
        throws(ConfigurationError) -> Number {
        guard !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let number = Number(value, radix: 10), range.contains(number) else {
            throw .outOfRange(key: key, value: value, lowest: String(range.lowerBound), highest: String(range.upperBound))
        }
        return number
    }

    /// Comma-separated items, each read by its type's own parser; one bad item refuses the value
    /// (a value of commas alone is no item, as it always was for `client_network`).
    private static func list<Item: LosslessStringConvertible>(_ value: String, of: Item.Type, or error: ConfigurationError)
        throws(ConfigurationError) -> [Item] {
        let items = value.split(separator: ",").map { Item($0.trimmingCharacters(in: .whitespaces)) }
        guard !items.contains(where: { $0 == nil }) else { throw error }
        return items.compactMap { $0 }
    }

    private static func flag(_ value: String, or error: ConfigurationError) throws(ConfigurationError) -> Bool {
        switch value.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw error
        }
    }

    private static func absolutePath(_ value: String, or error: ConfigurationError) throws(ConfigurationError) -> String {
        guard value.hasPrefix("/"), !value.hasSuffix("/") else { throw error }
        return value
    }

    /// A user name as useradd takes one: letters, digits, `_`, `-` and `.`, not starting with `-`.
    private static func userName(_ value: String, or error: ConfigurationError) throws(ConfigurationError) -> String {
        guard value.utf8.count <= 32, value.first != "-",
              value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }) else { throw error }
        return value
    }

    /// Linux interface names: 1–15 bytes, no slash, no whitespace.
    private static func interfaceName(_ value: String, or error: ConfigurationError) throws(ConfigurationError) -> String {
        guard value.utf8.count <= 15, !value.contains("/"), !value.contains(where: \.isWhitespace) else { throw error }
        return value
    }
}
