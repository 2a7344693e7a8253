import Foundation

/// When each WireGuard peer last completed a handshake, as `wg show all latest-handshakes` says.
/// The kernel tells only a process with CAP_NET_ADMIN, so for a technician's tvctl the answer is
/// usually "could not look", said with its reason rather than guessed at.
public enum WireGuardHandshakes {
    public enum Reading: Sendable, Equatable {
        /// Seconds since the epoch of the latest handshake, per public key; 0 is "never".
        case read([String: Int64])
        case unreadable(reason: String)
    }

    /// A handshake older than this is not a live tunnel any more: WireGuard itself rejects a
    /// session key after 180 s without a new handshake.
    public static let liveForSeconds: Int64 = 180

    public static func read(wg: String = "wg") -> Reading {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [wg, "show", "all", "latest-handshakes"]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { return .unreadable(reason: "wg could not be run") }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let first = complaint.split(separator: "\n").first.map(String.init) ?? "wg show failed"
            return .unreadable(reason: first.isEmpty ? "wg show failed" : first)
        }
        return .read(parse(text))
    }

    /// Lines of INTERFACE, KEY and SECONDS separated by tabs; anything else is skipped.
    static func parse(_ text: String) -> [String: Int64] {
        var latest: [String: Int64] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            guard fields.count == 3, let seconds = Int64(fields[2]), seconds >= 0 else { continue }
            latest[String(fields[1])] = max(latest[String(fields[1])] ?? 0, seconds)
        }
        return latest
    }
}
