import Foundation
import TunnelVisionBuildStamp
import TunnelVisionControl

// The instant comes first: a marker is dated when the command was typed, not when the
// database answered.
let startedAt = Date()
TVCtl.clearStaleExports(in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
let invocation = Invocation(
    console: .standard, environment: ProcessInfo.processInfo.environment, startedAt: startedAt,
    toolVersion: BuildStamp.version)
switch ArgumentText.processArguments() {
case .success(let arguments): exit(TVCtl.run(arguments, invocation: invocation))
case .failure(let error): exit(TVCtl.refuse(error, invocation: invocation))
}
