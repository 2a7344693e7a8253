import Foundation
import TunnelVisionCapture
import TunnelVisionModel
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
    print("tunnelvisiond \(TunnelVisionBuild.version)")
    exit(0)
}

let regenerating = arguments.contains("--regenerate-ca")
let configuration: DaemonConfiguration
do {
    configuration = try ConfigurationParser.parse(arguments: arguments.filter { $0 != "--regenerate-ca" })
} catch {
    fail(error.message + "\n" + ConfigurationParser.usage, status: 2)
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

let store: FlowStore
do {
    store = try FlowStore(path: configuration.database)
} catch {
    fail(DaemonStartError.history("\(configuration.database): \(error)").message, status: 1)
}

// The relay reads the open recording's inspection mode through a connection of its own (issue 13).
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
                           engine: RecordingFlowEngine(configuration: configuration.flowEngine, relay: relayInbox),
                           toolVersion: TunnelVisionBuild.version, relayInbox: relayInbox)
do {
    try daemon.run()
} catch {
    fail(error.message, status: 1)
}
