import TunnelVisionModel

/// `tunnelvisiond --read FILE --db PATH --captures DIR [--client-network CIDR]…`: what an offline
/// import was asked to do.
public struct OfflineImportRequest: Sendable, Hashable {
    public var capturePath: String
    public var databasePath: String
    public var captureDirectory: String
    /// The phone's networks; none: each flow's initiator is the phone.
    public var clientNetworks: [IPNetwork]

    public enum UsageError: Error, Hashable, CustomStringConvertible {
        case missingValue(option: String)
        case missingOption(String)
        case unknownOption(String)
        case invalidNetwork(String)

        public var description: String {
            switch self {
            case .missingValue(let option): "\(option) needs a value"
            case .missingOption(let option): "an import needs \(option)"
            case .unknownOption(let option): "unknown option \(option) (an import takes --read, --db, --captures, --client-network)"
            case .invalidNetwork(let text): "--client-network \(text) is not a network in CIDR form, such as 10.6.0.0/24"
            }
        }
    }

    public static let usage = "tunnelvisiond --read FILE --db PATH --captures DIR [--client-network CIDR]..."

    /// Whether the daemon's arguments ask for an import rather than a capture.
    public static func isRequested(by arguments: [String]) -> Bool {
        arguments.contains("--read")
    }

    /// Reads the arguments after the program name.
    public init(arguments: [String]) throws(UsageError) {
        var values: [String: String] = [:]
        var networks: [IPNetwork] = []
        var index = 0
        while index < arguments.count {
            let option = arguments[index]
            guard ["--read", "--db", "--captures", "--client-network"].contains(option) else { throw .unknownOption(option) }
            guard index + 1 < arguments.count else { throw .missingValue(option: option) }
            let value = arguments[index + 1]
            if option == "--client-network" {
                guard let network = IPNetwork(value) else { throw .invalidNetwork(value) }
                networks.append(network)
            } else {
                values[option] = value
            }
            index += 2
        }
        guard let capture = values["--read"] else { throw .missingOption("--read FILE") }
        guard let database = values["--db"] else { throw .missingOption("--db PATH") }
        guard let directory = values["--captures"] else { throw .missingOption("--captures DIR") }
        capturePath = capture
        databasePath = database
        captureDirectory = directory
        clientNetworks = networks
    }
}
