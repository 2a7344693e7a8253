import Foundation
import TunnelVisionControl

// The instant comes first: a marker is dated when the command was typed, not when the
// database answered.
let startedAt = Date()
let invocation = Invocation(
    console: .standard, environment: ProcessInfo.processInfo.environment, startedAt: startedAt)
// The bytes as given: CommandLine.arguments would have replaced what is not UTF-8 unseen.
let raw = (1..<Int(CommandLine.argc)).map { index in
    CommandLine.unsafeArgv[index].map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
}
switch ArgumentText.decode(raw) {
case .success(let arguments): exit(TVCtl.run(arguments, invocation: invocation))
case .failure(let error): exit(TVCtl.refuse(error, invocation: invocation))
}
