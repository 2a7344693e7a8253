import Foundation

/// `tunnelvision-<sequence, at least 6 digits>-<yyyyMMdd-HHmmss UTC>.pcap`.
public enum CaptureFileName {
    static let prefix = "tunnelvision-"
    static let suffix = ".pcap"

    public static func name(sequence: UInt32, createdAt: Date) -> String {
        let digits = String(sequence)
        let padded = String(repeating: "0", count: max(0, 6 - digits.count)) + digits
        return prefix + padded + "-" + stamp(createdAt) + suffix
    }

    /// The sequence a file name carries, or nil when the name is not one of ours.
    public static func sequence(in name: String) -> UInt32? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        let parts = middle.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count >= 6, parts[1].count == 8, parts[2].count == 6,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let sequence = UInt32(parts[0]), sequence > 0 else { return nil }
        return sequence
    }

    /// The name a `capture_files` row may touch: its path must be a file of the capture-file form
    /// directly inside `folder`, nothing else. The history is the group's to write, so a row can
    /// name any file; retention deletes and a restart cuts what the rows name, as the daemon.
    public static func ownName(ofPath path: String, inFolder folder: String) -> String? {
        var base = folder
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        guard !base.isEmpty, path.hasPrefix(base == "/" ? "/" : base + "/") else { return nil }
        // The writer joins folder and name with "/", so a folder written with a trailing slash
        // gives "//": one or more slashes between them.
        let name = String(path.dropFirst(base == "/" ? 1 : base.count + 1).drop { $0 == "/" })
        guard !name.contains("/"), sequence(in: name) != nil else { return nil }
        return name
    }

    /// The second a file name says its file was made in (UTC), or nil when the name is not one of ours.
    public static func createdAt(in name: String) -> Date? {
        guard sequence(in: name) != nil else { return nil }
        let parts = name.dropFirst(prefix.count).dropLast(suffix.count).split(separator: "-")
        let day = Array(parts[1].utf8).map { Int32($0) - 48 }, time = Array(parts[2].utf8).map { Int32($0) - 48 }
        var fields = tm()
        fields.tm_year = day[0] * 1000 + day[1] * 100 + day[2] * 10 + day[3] - 1900
        fields.tm_mon = day[4] * 10 + day[5] - 1
        fields.tm_mday = day[6] * 10 + day[7]
        fields.tm_hour = time[0] * 10 + time[1]
        fields.tm_min = time[2] * 10 + time[3]
        fields.tm_sec = time[4] * 10 + time[5]
        guard (0...11).contains(fields.tm_mon), (1...31).contains(fields.tm_mday), (0...23).contains(fields.tm_hour),
              (0...59).contains(fields.tm_min), (0...60).contains(fields.tm_sec) else { return nil }
        return Date(timeIntervalSince1970: Double(timegm(&fields)))
    }

    /// The files of a directory named in our form, with their sequences.
    public static func files(inDirectory directory: String) -> [(name: String, sequence: UInt32)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in sequence(in: name).map { (name, $0) } }
    }

    /// The highest sequence among the files of a directory (0 when there are none).
    public static func highestSequence(inDirectory directory: String) -> UInt32 {
        files(inDirectory: directory).map(\.sequence).max() ?? 0
    }

    private static func stamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))-"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
    }
}
