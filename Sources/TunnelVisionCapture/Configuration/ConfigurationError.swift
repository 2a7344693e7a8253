/// A configuration the daemon refuses to start with; each case names what to change.
public enum ConfigurationError: Error, Sendable, Hashable {
    case unreadableFile(path: String)
    case malformedLine(path: String, line: Int)
    case unknownKey(String, path: String, line: Int)
    case invalidValue(key: String, value: String)
    case unknownFlag(String)
    case missingValue(flag: String)
    case conflictingInputs

    /// The one sentence shown to whoever started the daemon.
    public var message: String {
        switch self {
        case .unreadableFile(let path): "cannot read the configuration \(path); check that it exists and is readable."
        case .malformedLine(let path, let line): "\(path):\(line) is not a `key = value` line."
        case .unknownKey(let key, let path, let line): "\(path):\(line): unknown setting `\(key)`; see tunnelvisiond --help."
        case .invalidValue(let key, let value): "`\(value)` is not a valid value for \(key)."
        case .unknownFlag(let flag): "unknown option \(flag); see tunnelvisiond --help."
        case .missingValue(let flag): "\(flag) needs a value."
        case .conflictingInputs: "choose one input: --tun, --interface or --read."
        }
    }
}
