import Foundation
import TunnelVisionBuildStamp
import TunnelVisionCapture
import TunnelVisionModel
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

let configuration: DaemonConfiguration
do {
    configuration = try ConfigurationParser.parse(arguments: arguments)
} catch {
    fail(error.message + "\n" + ConfigurationParser.usage, status: 2)
}

let store: FlowStore
do {
    store = try FlowStore(path: configuration.database)
} catch {
    fail(DaemonStartError.history("\(configuration.database): \(error)").message, status: 1)
}

let daemon = CaptureDaemon(configuration: configuration, history: store,
                           engine: RecordingFlowEngine(configuration: configuration.flowEngine), toolVersion: BuildStamp.version)
do {
    try daemon.run()
} catch {
    fail(error.message, status: 1)
}
