import TunnelVisionModel

/// A client packet of Google QUIC whose handshake travels unencrypted: Q039 to Q043 with the
/// public header (big-endian numbers, which Q039 brought), Q046 with its IETF-style long header.
/// Only what leads to the frames is read; the packet's integrity (a 12-byte FNV-1a hash) is taken
/// as sent, the CHLO's own structure being what proves the bytes are a handshake. Q044 and Q045
/// (short-lived, with other long-header type codes) and Q047 on are not read here.
public struct GoogleQUICPacket {
    public let version: QUICVersion
    /// The frames after the message authentication hash.
    public let frames: UnsafeRawBufferPointer

    /// Public flags: the packet names its version, carries an 8-byte connection ID, is a reset;
    /// the top bit is unused (and marks a long header from Q044 on).
    static let versionFlag: UInt8 = 0x01
    static let resetFlag: UInt8 = 0x02
    static let connectionIDFlag: UInt8 = 0x08
    static let unusedFlag: UInt8 = 0x80
    static let connectionIDLength = 8
    /// Packet number lengths by the public flags' bits 4–5.
    static let packetNumberLengths = [1, 2, 4, 6]
    /// FNV-1a 128 truncated to 96 bits, before the frames of an unencrypted packet.
    static let authenticationHashLength = 12
    /// The public header's versions read: numbers big-endian from Q039, the long header from Q044.
    static let publicHeaderVersions = 39...43
    /// The long header's versions read: Q046's layout.
    static let longHeaderVersions = 46...46

    /// Reads a datagram the phone sent; nil when it is no unencrypted gQUIC packet naming a
    /// version this layout belongs to.
    public init?(clientDatagram datagram: UnsafeRawBufferPointer) {
        guard let first = datagram.first else { return nil }
        if first & Self.unusedFlag == 0 {
            guard let read = Self.publicHeader(datagram, flags: first) else { return nil }
            (version, frames) = read
        } else {
            guard let read = Self.longHeader(datagram, first: first) else { return nil }
            (version, frames) = read
        }
    }

    /// Q043's public header, as a client sends it: flags, connection ID, version, packet number.
    private static func publicHeader(_ datagram: UnsafeRawBufferPointer, flags: UInt8) -> (QUICVersion, UnsafeRawBufferPointer)? {
        var reader = ByteReader(datagram)
        guard flags & versionFlag != 0, flags & resetFlag == 0, flags & connectionIDFlag != 0,
              reader.skip(1 + connectionIDLength), let raw = reader.u32(),
              let number = googleVersionNumber(raw), publicHeaderVersions.contains(number),
              reader.skip(packetNumberLengths[Int(flags >> 4) & 0x03]),
              reader.skip(authenticationHashLength)
        else { return nil }
        return (QUICVersion(raw), reader.rest)
    }

    /// Q046's long header: form and fixed bits, type (Initial is 0), packet number length in
    /// the low bits, version, one byte holding both connection ID lengths (each 0, or 3 more
    /// than its nibble), the IDs, the packet number. No length field: the packet is the datagram.
    private static func longHeader(_ datagram: UnsafeRawBufferPointer, first: UInt8) -> (QUICVersion, UnsafeRawBufferPointer)? {
        var reader = ByteReader(datagram)
        guard first & 0x40 != 0, (first >> 4) & 0x03 == 0, reader.skip(1), let raw = reader.u32(),
              let number = googleVersionNumber(raw), longHeaderVersions.contains(number),
              let lengths = reader.u8(),
              reader.skip(connectionIDLength(lengths >> 4) + connectionIDLength(lengths & 0x0F)),
              reader.skip(Int(first & 0x03) + 1),
              reader.skip(authenticationHashLength)
        else { return nil }
        return (QUICVersion(raw), reader.rest)
    }

    /// The version of a Q046 long header from either end, whatever its type: RFC 8999's reading
    /// of the byte that packs both connection ID lengths would misplace the rest.
    public static func longHeaderVersion(_ datagram: UnsafeRawBufferPointer) -> QUICVersion? {
        var reader = ByteReader(datagram)
        guard let first = reader.u8(), first & 0xC0 == 0xC0, let raw = reader.u32(),
              let number = googleVersionNumber(raw), longHeaderVersions.contains(number) else { return nil }
        return QUICVersion(raw)
    }

    private static func connectionIDLength(_ nibble: UInt8) -> Int {
        nibble == 0 ? 0 : Int(nibble) + 3
    }

    /// The number of a version "Q0dd" (ASCII), nil for anything else.
    static func googleVersionNumber(_ raw: UInt32) -> Int? {
        let tens = UInt8(truncatingIfNeeded: raw >> 8), units = UInt8(truncatingIfNeeded: raw)
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard raw >> 16 == 0x5130, digits.contains(tens), digits.contains(units) else { return nil }
        return Int(tens - UInt8(ascii: "0")) * 10 + Int(units - UInt8(ascii: "0"))
    }
}

/// Walks Google QUIC frames (the layout before the IETF's, kept by Q0xx and by T050/T051 inside
/// their Initials) and hands over the handshake's bytes by offset: STREAM frames of stream 1,
/// where QUIC-crypto runs up to Q049, and CRYPTO frames, which carry it from Q048 on. PADDING,
/// PING and ACK (a server's Initial opens with one) are walked past; anything else ends the walk.
public enum GoogleQUICFrames {
    static let padding: UInt8 = 0x00, ping: UInt8 = 0x07, crypto: UInt8 = 0x08
    /// An ACK frame's type: 0b01 then whether ack blocks follow, the largest acked's length and
    /// the blocks' lengths (2 bits each: 1, 2, 4 or 6 bytes).
    static let ackTypes: ClosedRange<UInt8> = 0x40...0x7F
    static let ackBlocksBit: UInt8 = 0x20
    /// A STREAM frame's type: top bit set, then FIN, a 2-byte data length present, the offset's
    /// length (0, or 1 more than the 3-bit value) and the stream ID's length (1 more than 2 bits).
    static let streamBit: UInt8 = 0x80, dataLengthBit: UInt8 = 0x20
    /// The crypto stream of QUIC-crypto.
    static let cryptoStreamID: UInt64 = 1

    public static func forEach(
        in frames: UnsafeRawBufferPointer, _ body: (_ offset: UInt64, _ data: UnsafeRawBufferPointer) -> Void
    ) {
        var reader = ByteReader(frames)
        while let type = reader.u8() {
            switch type {
            case padding, ping:
                continue
            case ackTypes:
                guard skipAck(&reader, type: type) else { return }
            case crypto:
                guard let offset = reader.varint(), let length = reader.varint(),
                      length <= UInt64(reader.remaining), let data = reader.take(Int(length)) else { return }
                body(offset, data)
            case streamBit...:
                let offsetBits = Int(type >> 2) & 0x07
                guard let streamID = reader.bigEndian(bytes: Int(type & 0x03) + 1),
                      let offset = reader.bigEndian(bytes: offsetBits == 0 ? 0 : offsetBits + 1)
                else { return }
                let length: Int
                if type & dataLengthBit != 0 {
                    guard let stated = reader.u16() else { return }
                    length = Int(stated)
                } else {
                    length = reader.remaining
                }
                guard let data = reader.take(length) else { return }
                if streamID == cryptoStreamID { body(offset, data) }
            default:
                return
            }
        }
    }
}

extension GoogleQUICFrames {
    /// Largest acked, the ack delay (a 16-bit float), the number of further blocks when the type
    /// says so, the first block's length, each further block's gap (1 byte) and length, then the
    /// timestamps: their count (1 byte), the first as a 1-byte delta and 4-byte time, each other
    /// as a 1-byte delta and a 16-bit float.
    static func skipAck(_ reader: inout ByteReader, type: UInt8) -> Bool {
        let lengths = [1, 2, 4, 6]
        let largestLength = lengths[Int(type >> 2) & 0x03], blockLength = lengths[Int(type) & 0x03]
        guard reader.skip(largestLength + 2) else { return false }
        var blocks = 0
        if type & ackBlocksBit != 0 {
            guard let count = reader.u8() else { return false }
            blocks = Int(count)
        }
        guard reader.skip(blockLength + blocks * (1 + blockLength)), let timestamps = reader.u8() else { return false }
        return timestamps == 0 || reader.skip(5 + (Int(timestamps) - 1) * 3)
    }
}

extension ByteReader {
    /// An unsigned big-endian integer of 0 to 8 bytes.
    mutating func bigEndian(bytes count: Int) -> UInt64? {
        guard (0...8).contains(count), let field = take(count) else { return nil }
        return field.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

extension QUICVersion {
    /// Google's versions whose Initials open with a published salt yet whose frames are Google
    /// QUIC's: Q050 (QUIC-crypto in CRYPTO frames), T050 and T051 (TLS in them).
    public var hasGoogleFrames: Bool { carriesQUICCrypto || rawValue == 0x5430_3530 || rawValue == 0x5430_3531 }
    /// Q050: its Initials carry QUIC-crypto's CHLO, not a TLS ClientHello.
    public var carriesQUICCrypto: Bool { rawValue == 0x5130_3530 }
}
