import Foundation
import TunnelVisionCapture

let arguments = Array(CommandLine.arguments.dropFirst())

// An offline import: a capture file read as if it had crossed the tap.
if OfflineImportRequest.isRequested(by: arguments) {
    do {
        let request = try OfflineImportRequest(arguments: arguments)
        let summary = try OfflineImport.run(request, toolVersion: "tunnelvisiond")
        print("imported \(summary.packets) packets into \(summary.flows) flows (capture session \(summary.captureSession), \(summary.captureFiles) capture files)")
        exit(0)
    } catch let error as OfflineImportRequest.UsageError {
        FileHandle.standardError.write(Data("tunnelvisiond: \(error)\nusage: \(OfflineImportRequest.usage)\n".utf8))
        exit(2)
    } catch {
        FileHandle.standardError.write(Data("tunnelvisiond: \(error)\n".utf8))
        exit(1)
    }
}

print("tunnelvisiond: not built yet")
