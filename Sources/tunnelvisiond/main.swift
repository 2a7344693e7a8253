import Foundation
import TunnelVisionBuildStamp
import TunnelVisionConfiguration
import TunnelVisionDaemon
import TunnelVisionDaemonLog
import TunnelVisionModel
import TunnelVisionRecorder
import TunnelVisionRelay
import TunnelVisionStore

// tunnelvisiond: exit 0 after a clean stop, 1 when it could not start, 2 on a usage error.

func fail(_ message: String, status: Int32) -> Never {
    DaemonLog().fail(message)
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(ConfigurationParser.usage)
    exit(0)
}
if arguments.contains("--version") {
    print("tunnelvisiond \(BuildStamp.version)")
    exit(0)
}

let regenerating = arguments.contains("--regenerate-ca")
let printingGateway = arguments.contains("--print-gateway")
let configuration: DaemonConfiguration
do {
    configuration = try ConfigurationParser.parse(arguments: arguments.filter { $0 != "--regenerate-ca" && $0 != "--print-gateway" })
} catch {
    fail(error.message + "\n" + ConfigurationParser.usage, status: 2)
}

// scripts/gateway reads the configuration through this parser rather than a second one.
if printingGateway {
    guard let printout = configuration.gatewayPrintout else {
        fail("the configuration captures from \(configuration.input.label), not a TUN device: the gateway has no routing to set up", status: 1)
    }
    print(printout, terminator: "")
    exit(0)
}

if regenerating {
    do {
        let authority = try CertificateAuthorityRegeneration.run(configuration)
        print("a new inspection CA was written to \(configuration.caCertificatePath), SHA-256 \(authority.fingerprint);")
        print("restart tunnelvisiond so the relay signs with it (its memory of refusing hosts starts empty), and install it on the phone again.")
        exit(0)
    } catch {
        fail(error.description, status: 1)
    }
}

// The daemon's files are the group's (history 0660, capture folders 2770), whatever umask
// started it: a umask of 022 would lock tvctl out, one of 000 would open them to everyone.
umask(0o007)

let store: History
do {
    store = try History(path: configuration.database)
} catch {
    fail(DaemonStartError.historyUnopened(error).message, status: 1)
}

// The relay reads the open recording's inspection mode through a connection of its own.
var recordings: RecordingLookup?
if configuration.inspection {
    do {
        recordings = try RecordingLookup(databasePath: configuration.database)
    } catch {
        fail(DaemonStartError.history("\(configuration.database): \(error)").message, status: 1)
    }
}
let relayInbox = RelayInbox(recordings: recordings)
let daemon = CaptureDaemon(configuration: configuration, history: store,
                           engine: RecorderFlowEngine(configuration: configuration.flowEngine, relay: relayInbox),
                           toolVersion: BuildStamp.version, relayInbox: relayInbox)
do {
    try daemon.run()
} catch {
    fail(error.message, status: 1)
}
