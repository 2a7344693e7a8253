import TunnelVisionModel

/// Reads the phone's QUIC Initial packets of one flow: decrypts each (coalesced packets too),
/// reassembles the CRYPTO stream by offset across packets, and reads the ClientHello from it.
public struct ClientInitialReader: Sendable {
    /// Destination Connection IDs whose keys may protect the client's Initials: the one the
    /// client first chose, and any a Retry gave it.
    private var connectionIDs: [[UInt8]] = []
    private var derived: [(connectionID: [UInt8], keys: InitialKeys)] = []
    private var crypto = StreamReassembler(limit: ClientHandshakeReader.clientHelloLimit + 4)
    public private(set) var reading: ClientHelloReading?
    public private(set) var isSettled = false

    private static let maximumConnectionIDs = 4

    public init() {}

    /// Reads one client datagram.
    public mutating func read(datagram: UnsafeRawBufferPointer) {
        var rest = datagram
        while !isSettled, let header = QUICLongHeader(rest), header.version.hasKnownPacketProtection {
            guard let (length, _) = InitialPacket.lengthAndPacketNumberOffset(header) else { return }
            if header.isInitial { readInitial(header) }
            guard let next = rest.slice(from: length), !next.isEmpty else { return }
            rest = next
        }
    }

    /// A server's Retry names the connection ID whose keys the client's next Initials use.
    public mutating func noteRetry(sourceConnectionID: UnsafeRawBufferPointer) {
        remember(Array(sourceConnectionID))
    }

    private mutating func readInitial(_ header: QUICLongHeader) {
        let ownID = Array(header.destinationConnectionID)
        if connectionIDs.isEmpty { remember(ownID) }
        // A capture that starts late has not seen the first DCID: the packet's own is next best.
        var candidates = connectionIDs
        if !candidates.contains(ownID) { candidates.append(ownID) }
        for connectionID in candidates {
            guard let keys = keys(for: connectionID, version: header.version),
                  let decrypted = InitialPacket.decrypt(header, keys: keys) else { continue }
            absorb(decrypted.frames)
            return
        }
    }

    private mutating func absorb(_ frames: [UInt8]) {
        var grew = false
        frames.withUnsafeBytes { plaintext in
            CryptoFrames.forEach(in: plaintext) { offset, data in
                guard offset <= UInt64(crypto.limit) else { return }
                if crypto.insert(data, at: Int(offset)) { grew = true }
            }
        }
        guard grew else { return }
        let (found, settled) = crypto.contiguous.withUnsafeBytes { ClientHandshakeReader.readCryptoStream($0) }
        if settled {
            reading = found
            isSettled = true
            crypto = StreamReassembler(limit: 0)
        }
    }

    private mutating func remember(_ connectionID: [UInt8]) {
        guard !connectionIDs.contains(connectionID), connectionIDs.count < Self.maximumConnectionIDs else { return }
        connectionIDs.append(connectionID)
    }

    private mutating func keys(for connectionID: [UInt8], version: QUICVersion) -> InitialKeys? {
        if let cached = derived.first(where: { $0.connectionID == connectionID }) { return cached.keys }
        guard let keys = connectionID.withUnsafeBytes({ InitialKeys(clientOf: version, destinationConnectionID: $0) })
        else { return nil }
        if derived.count >= Self.maximumConnectionIDs + 1 { derived.removeFirst() }
        derived.append((connectionID, keys))
        return keys
    }
}
