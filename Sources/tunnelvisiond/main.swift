import Foundation
import TunnelVisionCapture
import TunnelVisionModel
import TunnelVisionStore

let arguments = Array(CommandLine.arguments.dropFirst())

func fail(_ sentence: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("tunnelvisiond: \(sentence)\n".utf8))
    exit(status)
}

if arguments.contains("--help") || arguments.contains("-h") {
    print(ConfigurationParser.usage)
    print("       tunnelvisiond \(OfflineImportRequest.usage.dropFirst("tunnelvisiond ".count))")
    exit(0)
}
if arguments == ["--version"] {
    print("tunnelvisiond \(TunnelVisionBuild.version)")
    exit(0)
}

// An offline import: a capture file read as if it had crossed the tap.
if OfflineImportRequest.isRequested(by: arguments) {
    do {
        let request = try OfflineImportRequest(arguments: arguments)
        let summary = try OfflineImport.run(request, toolVersion: TunnelVisionBuild.version)
        print("imported \(summary.packets) packets into \(summary.flows) flows (capture session \(summary.captureSession), \(summary.captureFiles) capture files)")
        exit(0)
    } catch let error as OfflineImportRequest.UsageError {
        fail("\(error)\nusage: \(OfflineImportRequest.usage)", status: 2)
    } catch {
        fail("\(error)", status: 1)
    }
}

// Capture: the inline TUN tap or a passive interface tap, until SIGTERM or SIGINT.
let configuration: DaemonConfiguration
do {
    configuration = try ConfigurationParser.parse(arguments: arguments)
} catch {
    fail("\(error.message)\n\(ConfigurationParser.usage)", status: 2)
}
// The history is shared with tvctl through the group: whatever the daemon creates stays group-writable.
umask(0o007)
let store: FlowStore
do {
    store = try FlowStore(path: configuration.database)
} catch {
    fail("the history at \(configuration.database) did not open (\(error)); check the path and that this user may write its folder.", status: 1)
}
let daemon = CaptureDaemon(
    configuration: configuration, history: store, engine: LiveFlowEngine(for: configuration),
    toolVersion: TunnelVisionBuild.version)
do {
    try daemon.run()
} catch {
    fail(error.message, status: 1)
}
