import TunnelVisionModel

/// Google QUIC as its clients sent it before TLS: a CHLO message on stream 1, in a packet with
/// Q043's public header or Q046's long header, after the null encryption's 12-byte hash.
extension PacketBuilder {
    /// A QUIC-crypto handshake message: tag, entry count and two bytes of padding, the entries'
    /// tags with their values' end offsets (little-endian, tags in ascending order), the values.
    public static func googleHandshakeMessage(tag: String = "CHLO", _ entries: [(tag: String, value: [UInt8])]) -> [UInt8] {
        func tagBytes(_ text: String) -> [UInt8] { Array((Array(text.utf8) + [0, 0, 0, 0]).prefix(4)) }
        func order(_ bytes: [UInt8]) -> UInt32 { bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        let sorted = entries.sorted { order(tagBytes($0.tag)) < order(tagBytes($1.tag)) }
        var message = tagBytes(tag)
        message += littleEndian(UInt16(sorted.count))
        message += [0, 0]
        var end: UInt32 = 0
        for entry in sorted {
            end += UInt32(entry.value.count)
            message += tagBytes(entry.tag)
            message += littleEndian(end)
        }
        for entry in sorted { message += entry.value }
        return message
    }

    /// A CHLO as Chrome's first one: the name, the version, the AEAD and key exchange it takes, and
    /// a PAD value that brings it to 1024 bytes.
    public static func googleClientHello(serverName: String?, version: String) -> [UInt8] {
        var entries: [(tag: String, value: [UInt8])] = [
            ("VER", Array(version.utf8)), ("AEAD", Array("AESG".utf8)), ("KEXS", Array("C255".utf8)),
            ("PDMD", Array("X509".utf8)), ("PAD", []),
        ]
        if let serverName { entries.append(("SNI", Array(serverName.utf8))) }
        let unpadded = googleHandshakeMessage(entries).count
        entries[4].value = [UInt8](repeating: UInt8(ascii: "-"), count: max(0, 1024 - unpadded))
        return googleHandshakeMessage(entries)
    }

    /// A STREAM frame on `streamID` with a 2-byte data length, a 1-byte stream ID and a 2-byte
    /// offset when it is not 0.
    public static func googleStreamFrame(streamID: UInt8 = 1, offset: UInt16 = 0, data: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0xA0 | (offset == 0 ? 0 : 0x04), streamID]
        if offset != 0 { frame.appendBigEndian(offset) }
        frame.appendBigEndian(UInt16(data.count))
        return frame + data
    }

    /// A client packet with Q043's public header (version and 8-byte connection ID present, 1-byte
    /// packet number), padded to `size` bytes with a PADDING frame.
    public static func googlePublicHeaderPacket(
        version: String = "Q043", connectionID: UInt64, packetNumber: UInt8 = 1, frames: [UInt8], size: Int = 1350
    ) -> [UInt8] {
        var header: [UInt8] = [0x09]
        header.appendBigEndian(connectionID)
        header += Array(version.utf8)
        header.append(packetNumber)
        return googleNullEncrypted(header: header, frames: frames, size: size)
    }

    /// A client Initial with Q046's long header: 0xC3 (long, fixed, Initial, 4-byte packet
    /// number), version, 0x50 (an 8-byte destination connection ID, no source).
    public static func googleLongHeaderPacket(
        version: String = "Q046", connectionID: UInt64, packetNumber: UInt32 = 1, frames: [UInt8], size: Int = 1350
    ) -> [UInt8] {
        var header: [UInt8] = [0xC3] + Array(version.utf8) + [0x50]
        header.appendBigEndian(connectionID)
        header.appendBigEndian(packetNumber)
        return googleNullEncrypted(header: header, frames: frames, size: size)
    }

    static func littleEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        (0..<Integer.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// Header, hash, frames and PADDING up to `size`. The hash is the null encryption's: FNV-1a
    /// 128 over the header, the frames and "Client", its low 96 bits little-endian.
    static func googleNullEncrypted(header: [UInt8], frames: [UInt8], size: Int) -> [UInt8] {
        let payload = frames + [UInt8](repeating: 0, count: max(0, size - header.count - 12 - frames.count))
        var hash: UInt128 = 144_066_263_297_769_815_596_495_629_667_062_367_629
        let prime: UInt128 = 309_485_009_821_345_068_724_781_371
        for byte in header + payload + Array("Client".utf8) {
            hash = (hash ^ UInt128(byte)) &* prime
        }
        var tag: [UInt8] = []
        for index in 0..<12 { tag.append(UInt8(truncatingIfNeeded: hash >> (8 * UInt128(index)))) }
        return header + tag + payload
    }
}
