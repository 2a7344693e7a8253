/// What a PROXY protocol header in front of a stream announced (HAProxy's specification, version
/// 1 text or version 2 binary): the connection the relay that wrote it took in. The addresses
/// are the relay's claim, not something the capture shows; absent where the header named none
/// (v1 UNKNOWN, a v2 LOCAL command, an unspecified or UNIX family).
public struct ProxyProtocolAnnouncement: Sendable, Hashable {
    public let version: UInt8
    public let source: Endpoint?
    public let destination: Endpoint?

    public init(version: UInt8, source: Endpoint?, destination: Endpoint?) {
        self.version = version
        self.source = source
        self.destination = destination
    }

    /// One text for the store: the version, then each endpoint or `-` (e.g. `2 10.0.0.5:51000 192.0.2.1:443`).
    public var storedText: String {
        "\(version) \(source?.description ?? "-") \(destination?.description ?? "-")"
    }

    public init?(storedText: String) {
        let parts = storedText.split(separator: " ").map(String.init)
        guard parts.count == 3, let version = UInt8(parts[0]) else { return nil }
        func endpoint(_ text: String) -> Endpoint?? {
            if text == "-" { return .some(nil) }
            guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
            var host = text[..<colon]
            if host.first == "[", host.last == "]" { host = host.dropFirst().dropLast() }
            return IPAddress(String(host)).map { Endpoint(address: $0, port: port) }
        }
        guard let source = endpoint(parts[1]), let destination = endpoint(parts[2]) else { return nil }
        self.init(version: version, source: source, destination: destination)
    }
}
