/// A configuration the daemon refuses to start with; each case names what to change.
public enum ConfigurationError: Error, Sendable, Hashable {
    case unreadableFile(path: String, reason: String)
    case notARegularFile(path: String)
    case invalidEncoding(path: String, line: Int)
    case malformedLine(path: String, line: Int)
    case unknownKey(String, path: String, line: Int)
    case invalidValue(key: String, value: String)
    /// A number setting given text that is not a whole number inside its range.
    case outOfRange(key: String, value: String, lowest: String, highest: String)
    case unknownFlag(String)
    case missingValue(flag: String)
    case conflictingInputs
}
