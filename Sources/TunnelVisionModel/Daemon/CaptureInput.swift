/// Where the daemon's packets come from, as the configuration chooses it and the daemon
/// publishes it; its label ("tun:tv0") is the one written form, read back by `init?(label:)`.
public enum CaptureInput: Sendable, Hashable {
    /// The inline tap: the daemon owns the TUN device and forwards every packet it records.
    case tun(name: String)
    /// A passive tap of an existing interface through libpcap; nothing is forwarded.
    case interface(name: String)
    /// A pcap or pcapng file ingested as if it had crossed the tap.
    case file(path: String)

    public var kind: CaptureInputKind {
        switch self {
        case .tun: .tun
        case .interface: .interface
        case .file: .file
        }
    }

    /// The device or the file.
    public var name: String {
        switch self {
        case .tun(let name), .interface(let name): name
        case .file(let path): path
        }
    }

    /// How the capture session names its input ("tun:tv0").
    public var label: String { kind.label(name) }

    /// The input a label names; nil for a label no daemon writes (no kind, or nothing after it).
    public init?(label: String) {
        guard let kind = CaptureInputKind(label: label), let colon = label.firstIndex(of: ":") else { return nil }
        let name = String(label[label.index(after: colon)...])
        guard !name.isEmpty else { return nil }
        switch kind {
        case .tun: self = .tun(name: name)
        case .interface: self = .interface(name: name)
        case .file: self = .file(path: name)
        }
    }
}

extension CaptureInput: LosslessStringConvertible {
    public init?(_ description: String) { self.init(label: description) }
    public var description: String { label }
}

/// The kinds of input a capture session reads, as the first word of its label ("tun:tv0").
public enum CaptureInputKind: String, Sendable, Hashable, CaseIterable {
    /// The inline tap: the daemon owns the TUN device and forwards every packet it records.
    case tun
    /// A passive tap of an existing interface through libpcap; nothing is forwarded.
    case interface
    /// A pcap or pcapng file ingested as if it had crossed the tap.
    case file

    /// The label a capture session writes: the kind, a colon, the device or path.
    public func label(_ name: String) -> String { "\(rawValue):\(name)" }

    public init?(label: String) {
        guard let colon = label.firstIndex(of: ":") else { return nil }
        self.init(rawValue: String(label[..<colon]))
    }
}
