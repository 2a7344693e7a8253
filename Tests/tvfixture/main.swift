import Foundation
import ControlFixture
import TunnelVisionBuildStamp
import TunnelVisionControl

// A seeded history for demos, tests and the lab's checks, through tvctl's own machinery; the
// arguments are read as tvctl reads them (UTF-8 only).
let invocation = Invocation(
    console: .standard, environment: ProcessInfo.processInfo.environment, startedAt: Date(), toolVersion: BuildStamp.version)
switch ArgumentText.processArguments() {
case .success(let arguments): exit(TVFixture.run(arguments, invocation: invocation))
case .failure(let error): exit(TVCtl.refuse(error, invocation: invocation))
}
