import TunnelVisionModel

/// The client's hello of QUIC-crypto (Google QUIC's own handshake, before TLS): a tag/value
/// message whose tag is "CHLO". Only the server's name ("SNI") and the version the client
/// speaks ("VER") are read.
public struct GoogleClientHello: Sendable, Hashable {
    public let hello: ClientHelloReading
    public let version: QUICVersion?

    /// The message's tag, the number of entries (little-endian), two bytes of padding; then per
    /// entry its tag and the end offset (little-endian) of its value among the values that follow.
    static let messageTag: UInt32 = 0x4348_4C4F  // "CHLO"
    static let serverNameTag: UInt32 = 0x534E_4900  // "SNI\0"
    static let versionTag: UInt32 = 0x5645_5200  // "VER\0"
    static let headerLength = 8
    static let entryLength = 8
    /// What Chromium takes at most in one handshake message.
    static let maximumEntries = 128
    /// A client hello is padded to fill a packet; this leaves room for a few.
    public static let limit = 8 * 1024

    public enum Progress: Sendable, Hashable {
        /// The stream ends before the message does.
        case needsMore
        /// The stream holds no CHLO.
        case notAHello
        case read(GoogleClientHello)
    }

    /// Reads the message at the start of the crypto stream.
    public static func read(_ stream: UnsafeRawBufferPointer) -> Progress {
        var reader = ByteReader(stream)
        guard let tag = reader.u32() else { return .needsMore }
        guard tag == messageTag else { return .notAHello }
        guard let count = reader.u16LittleEndian(), reader.skip(2) else { return .needsMore }
        guard Int(count) <= maximumEntries else { return .notAHello }
        guard let index = reader.take(Int(count) * entryLength) else { return .needsMore }
        var entries = ByteReader(index)
        var previousEnd = 0
        var previousTag: UInt32?
        var found: (name: UnsafeRawBufferPointer?, version: UnsafeRawBufferPointer?) = (nil, nil)
        var ranges: [(tag: UInt32, start: Int, end: Int)] = []
        while let entryTag = entries.u32(), let end = entries.u32LittleEndian() {
            // Tags ascend (as little-endian numbers) and values are laid end to end.
            let ordered = entryTag.byteSwapped
            guard Int(end) >= previousEnd, previousTag.map({ ordered > $0 }) ?? true else { return .notAHello }
            ranges.append((entryTag, previousEnd, Int(end)))
            previousEnd = Int(end)
            previousTag = ordered
        }
        guard previousEnd <= limit else { return .notAHello }
        guard let values = reader.take(previousEnd) else { return .needsMore }
        for range in ranges {
            let value = values.slice(from: range.start, count: range.end - range.start)
            switch range.tag {
            case serverNameTag: found.name = value
            case versionTag: found.version = value
            default: break
            }
        }
        var version: QUICVersion?
        if let bytes = found.version {
            guard bytes.count == 4 else { return .notAHello }
            version = QUICVersion(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        }
        var hello = ClientHelloReading()
        if let name = found.name {
            if name.count > 1, name.last == UInt8(ascii: "."), let bare = HostName.validated(UnsafeRawBufferPointer(rebasing: name.dropLast())) {
                hello.serverName = bare
                hello.serverNameAsSent = bare + "."
            } else {
                hello.serverName = HostName.validated(name)
            }
        }
        return .read(GoogleClientHello(hello: hello, version: version))
    }
}

extension ByteReader {
    mutating func u16LittleEndian() -> UInt16? {
        u16().map { $0.byteSwapped }
    }

    mutating func u32LittleEndian() -> UInt32? {
        u32().map { $0.byteSwapped }
    }
}

/// Reads the phone's side of a Google QUIC connection whose handshake is unencrypted (Q043,
/// Q046): a CHLO on the crypto stream, joined from the packets' pieces by offset. The hello need
/// not start at offset 0: a capture that begins late sees the client's next hello (the one after
/// the server's REJ) at its own offset, so the lowest offset where a piece begins with "CHLO" is
/// where the message is read from.
public struct GoogleQUICHandshakeReader: Sendable {
    private var pieces: [(offset: Int, data: [UInt8])] = []
    private var heldBytes = 0
    private var unreadDatagrams = 0

    public private(set) var clientHello: GoogleClientHello?
    /// The version of the packets that carried the hello.
    public private(set) var version: QUICVersion?
    public private(set) var isSettled = false

    /// Client datagrams that are no such packet, or add nothing, before the reading ends.
    static let unreadDatagramLimit = 4
    /// Pieces held at most (their bytes together at most `GoogleClientHello.limit`).
    static let maximumPieces = 8

    public init() {}

    /// Reads one datagram the phone sent.
    public mutating func read(clientDatagram: UnsafeRawBufferPointer) {
        guard !isSettled else { return }
        guard let packet = GoogleQUICPacket(clientDatagram: clientDatagram) else { return countUnread() }
        var added = false, full = false
        GoogleQUICFrames.forEach(in: packet.frames) { offset, data in
            guard !data.isEmpty, offset <= UInt64(GoogleClientHello.limit) else { return }
            guard pieces.count < Self.maximumPieces, heldBytes + data.count <= GoogleClientHello.limit else {
                full = true
                return
            }
            pieces.append((Int(offset), Array(data)))
            heldBytes += data.count
            added = true
        }
        guard added else { return full ? settle() : countUnread() }
        switch assembled().withUnsafeBytes({ GoogleClientHello.read($0) }) {
        case .needsMore:
            if full { settle() }
        case .notAHello:
            settle()
        case .read(let hello):
            clientHello = hello
            version = packet.version
            settle()
        }
    }

    /// The stream from the lowest offset where a piece begins with the hello's tag, as far as the
    /// pieces reach without a gap; empty while no piece begins one.
    private func assembled() -> [UInt8] {
        let tag: [UInt8] = [0x43, 0x48, 0x4C, 0x4F]
        guard let start = pieces.filter({ $0.data.starts(with: tag) }).map(\.offset).min() else { return [] }
        var stream: [UInt8] = []
        var end = start
        var grew = true
        while grew {
            grew = false
            for piece in pieces where piece.offset <= end && piece.offset + piece.data.count > end {
                stream += piece.data[(end - piece.offset)...]
                end = piece.offset + piece.data.count
                grew = true
            }
        }
        return stream
    }

    private mutating func countUnread() {
        unreadDatagrams += 1
        if unreadDatagrams >= Self.unreadDatagramLimit { settle() }
    }

    private mutating func settle() {
        isSettled = true
        pieces = []
        heldBytes = 0
    }
}
