import TunnelVisionArchive

/// `tvctl --archive recordings|findings|diff|export …`: the reading commands of `tvctl archive`
/// reached with a flag before the command, as one reads the local history without it. Rewritten
/// before parsing into `tvctl archive …`, so both spellings run the same code. An archive.conf
/// with `reading = archive` makes the flag the default; `--local` then reads this gateway's history.
enum ArchiveReading {
    static let flag = "--archive"
    static let localFlag = "--local"
    static let commands: Set<String> = ["recordings", "findings", "diff", "export"]

    /// The command line with `--archive` (or the configured default) turned into the `archive`
    /// group, and `--local` taken away; any other command line as it is (the parser then refuses
    /// either flag where it means nothing). `readsArchiveByDefault` is asked only for a reading
    /// command that has neither flag.
    static func routed(_ arguments: [String], readsArchiveByDefault: () -> Bool = { false }) -> [String] {
        let options = arguments.prefix(while: { $0 != "--" })
        let flagAt = options.firstIndex(of: flag)
        let localAt = options.firstIndex(of: localFlag)
        guard flagAt == nil || localAt == nil else { return arguments }
        var rest = arguments
        if let at = flagAt ?? localAt { rest.remove(at: at) }
        guard let index = commandIndex(rest), commands.contains(rest[index]) else { return arguments }
        if localAt != nil { return rest }
        guard flagAt != nil || readsArchiveByDefault() else { return arguments }
        rest.insert("archive", at: index)
        return rest
    }

    /// The command is the first word that is neither an option nor the value of --db.
    static func commandIndex(_ arguments: [String]) -> Int? {
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--db" { index += 2; continue }
            if word.hasPrefix("-") { index += 1; continue }
            return index
        }
        return nil
    }

    /// The default archive.conf names: the one `--archive-config` gives, else the environment's,
    /// else the system's.
    static func configuredDefault(_ arguments: [String], environment: [String: String]) -> Bool {
        let options = Array(arguments.prefix(while: { $0 != "--" }))
        let given = options.firstIndex(of: "--\(ArchiveCommands.configuration.name)").flatMap {
            $0 + 1 < options.count ? options[$0 + 1] : nil
        }
        let path = given ?? environment[ArchiveConfiguration.environmentKey] ?? ArchiveConfiguration.defaultPath
        return ArchiveConfiguration.readsArchiveByDefault(path: path)
    }
}
