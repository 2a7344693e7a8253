import TunnelVisionModel
import TunnelVisionWire

/// TLS: the input is one direction's first bytes, fed to both handshake readers in two pieces
/// (the first byte says where to cut), read directly as a ClientHello and a certificate list, and
/// as a cleartext prelude (both ends, SOCKS included), the records after a ClientHello that may be
/// early data, and an HTTP request head.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTLS(_ start: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let cut = min(Int(input[0]) * 8, count)
    var client = ClientHandshakeReader()
    var server = ServerHandshakeReader()
    var cache = CertificateSummaryCache()
    var opening = StreamOpeningDetector()
    for end in [cut, count] {
        let prefix = UnsafeRawBufferPointer(rebasing: input[0..<end])
        client.advance(over: prefix)
        server.advance(over: prefix, certificates: &cache)
    }
    opening.feed(input)
    _ = ClientHelloReading(body: input)
    _ = ServerHelloReading(body: input)
    _ = CertificateChain.read(body: input, statedLength: count, cache: &cache)
    _ = ClientHandshakeReader.readCryptoStream(input)
    for opening in StreamOpening.allCases {
        var upgrade = CleartextUpgrade()
        for end in [cut, count] { upgrade.advanceClient(over: UnsafeRawBufferPointer(rebasing: input[0..<end]), opening: opening) }
    }
    for prelude in [CleartextUpgrade.Prelude.startTLSCommand, .postgresSSLRequest, .mysqlSSLRequest, .httpConnect, .socks5, .socks4] {
        _ = CleartextUpgrade.serverOffset(for: prelude, in: input)
    }
    _ = SOCKSPrelude.readClient(input)
    _ = EarlyDataRecords.followHello(in: input)
    _ = HTTPRequestHost.read(input)
    return 0
}
