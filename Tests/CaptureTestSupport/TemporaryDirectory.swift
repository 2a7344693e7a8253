import Foundation

/// A directory under /tmp that the test removes when it is done with it.
public final class TemporaryDirectory {
    public let path: String

    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/tv-capture-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw POSIXError(.EIO)
        }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { path + "/" + name }

    public func create(_ name: String, bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: file(name), contents: Data(bytes))
    }

    public var names: [String] { names(in: nil) }

    public func names(in subdirectory: String?) -> [String] {
        let listed = subdirectory.map(file) ?? path
        return ((try? FileManager.default.contentsOfDirectory(atPath: listed)) ?? []).sorted()
    }
}

/// Runs a tool that is not ours (tshark, capinfos) and returns what it printed.
public func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
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
public func tsharkFields(_ path: String, _ fields: [String]) throws -> [[String]] {
    let result = try run("tshark", ["-n", "-r", path, "-T", "fields"] + fields.flatMap { ["-e", $0] })
    return result.output.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
}
