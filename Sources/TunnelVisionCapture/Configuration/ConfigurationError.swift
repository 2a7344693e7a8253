/// A configuration the daemon refuses to start with; each case names what to change.
public enum ConfigurationError: Error, Sendable, Hashable {
    case unreadableFile(path: String)
    case malformedLine(path: String, line: Int)
    case unknownKey(String, path: String, line: Int)
    case invalidValue(key: String, value: String)
    case unknownFlag(String)
    case missingValue(flag: String)
    case conflictingInputs
}
