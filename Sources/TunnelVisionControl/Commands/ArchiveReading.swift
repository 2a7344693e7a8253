/// `tvctl --archive recordings|findings|diff|export …`: the reading commands of `tvctl archive`
/// reached with a flag before the command, as one reads the local history without it. Rewritten
/// before parsing into `tvctl archive …`, so both spellings run the same code.
enum ArchiveReading {
    static let flag = "--archive"
    static let commands: Set<String> = ["recordings", "findings", "diff", "export"]

    /// The command line with `--archive` turned into the `archive` group; any other command
    /// line as it is (the parser then refuses `--archive` where it means nothing).
    static func routed(_ arguments: [String]) -> [String] {
        guard let flagAt = arguments.prefix(while: { $0 != "--" }).firstIndex(of: flag) else { return arguments }
        var rest = arguments
        rest.remove(at: flagAt)
        // The command is the first word that is neither an option nor the value of --db.
        var index = 0
        while index < rest.count {
            let word = rest[index]
            if word == "--db" { index += 2; continue }
            if word.hasPrefix("-") { index += 1; continue }
            break
        }
        guard index < rest.count, commands.contains(rest[index]) else { return arguments }
        rest.insert("archive", at: index)
        return rest
    }
}
