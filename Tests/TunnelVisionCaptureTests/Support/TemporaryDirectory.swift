import Foundation

/// A directory under /tmp that the test removes when it is done with it.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/tv-capture-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw POSIXError(.EIO)
        }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    func create(_ name: String, bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: file(name), contents: Data(bytes))
    }

    var names: [String] { names(in: nil) }

    func names(in subdirectory: String?) -> [String] {
        let listed = subdirectory.map(file) ?? path
        return ((try? FileManager.default.contentsOfDirectory(atPath: listed)) ?? []).sorted()
    }
}

/// Runs a tool that is not ours (tshark, capinfos) and returns what it printed.
func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// tshark's reading of each frame: one line per packet, the fields tab-separated.
func tsharkFields(_ path: String, _ fields: [String]) throws -> [[String]] {
    let result = try run("tshark", ["-n", "-r", path, "-T", "fields"] + fields.flatMap { ["-e", $0] })
    return result.output.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
}

/// Real captures from other projects, an extra: TV_EXTERNAL_CAPTURES, else shared/ beside the repository.
let externalCaptures: String = ProcessInfo.processInfo.environment["TV_EXTERNAL_CAPTURES"]
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../../shared/captures/external").standardized.path
let externalCapturesArePresent = FileManager.default.fileExists(atPath: externalCaptures)
