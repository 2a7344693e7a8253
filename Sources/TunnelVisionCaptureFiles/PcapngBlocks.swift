import TunnelVisionModel

/// The three pcapng blocks the bundle's capture uses (draft-ietf-opsawg-pcapng), little-endian:
/// a section header, one interface, and an enhanced packet block per packet.
public enum PcapngBlocks {
    public static let sectionHeaderType: UInt32 = 0x0A0D_0D0A
    public static let interfaceType: UInt32 = 0x0000_0001
    public static let enhancedPacketType: UInt32 = 0x0000_0006
    public static let decryptionSecretsType: UInt32 = 0x0000_000A
    /// Secrets type "TLSK": NSS key log lines (SSLKEYLOGFILE).
    public static let tlsKeyLogSecrets: UInt32 = 0x544C_534B
    public static let byteOrderMagic: UInt32 = 0x1A2B_3C4D

    public static let optionEnd: UInt16 = 0
    public static let optionComment: UInt16 = 1
    public static let sectionUserApplication: UInt16 = 4
    public static let interfaceTimestampResolution: UInt16 = 9
    public static let packetFlags: UInt16 = 2

    public static func sectionHeader(application: String) -> [UInt8] {
        var body: [UInt8] = []
        body.appendLittleEndian(byteOrderMagic)
        body.appendLittleEndian(UInt16(1))
        body.appendLittleEndian(UInt16(0))
        // The section's length is not known while it is written.
        body.appendLittleEndian(UInt64.max)
        appendOption(sectionUserApplication, Array(application.utf8), to: &body)
        appendOption(optionEnd, [], to: &body)
        return block(sectionHeaderType, body)
    }

    public static func interface(linkType: UInt16, snaplen: UInt32) -> [UInt8] {
        var body: [UInt8] = []
        body.appendLittleEndian(linkType)
        body.appendLittleEndian(UInt16(0))
        body.appendLittleEndian(snaplen)
        // Microseconds, as the source files keep them.
        appendOption(interfaceTimestampResolution, [6], to: &body)
        appendOption(optionEnd, [], to: &body)
        return block(interfaceType, body)
    }

    /// A Decryption Secrets Block of TLS key log lines: placed before the packets it decrypts.
    /// Nil when the secrets do not fit one block's 32-bit length.
    public static func decryptionSecrets(tlsKeyLog: [UInt8]) -> [UInt8]? {
        guard tlsKeyLog.count <= Int(UInt32.max) - 64 else { return nil }
        var body: [UInt8] = []
        body.reserveCapacity(padded(tlsKeyLog.count) + 8)
        body.appendLittleEndian(tlsKeyLogSecrets)
        body.appendLittleEndian(UInt32(tlsKeyLog.count))
        body.append(contentsOf: tlsKeyLog)
        pad(&body, after: tlsKeyLog.count)
        return block(decryptionSecretsType, body)
    }

    /// Appends the block of one packet straight to `buffer`: a capture is hundreds of thousands
    /// of these, and building each in an array of its own would copy every packet twice more.
    /// `packet` is at most the source's snapshot length, which the reader has checked, so every
    /// length here fits in 32 bits.
    public static func appendEnhancedPacket(
        to buffer: inout [UInt8], microseconds: UInt64, packet: [UInt8], originalLength: UInt32,
        direction: Direction, comment: [UInt8]
    ) {
        packet.withUnsafeBytes { packet in
            appendEnhancedPacket(
                to: &buffer, microseconds: microseconds, packet: packet, originalLength: originalLength,
                direction: direction, comment: comment)
        }
    }

    /// The block of a packet whose bytes are lent (by `CaptureFileReader.withRecord`).
    public static func appendEnhancedPacket(
        to buffer: inout [UInt8], microseconds: UInt64, packet: UnsafeRawBufferPointer, originalLength: UInt32,
        direction: Direction, comment: [UInt8]
    ) {
        let comment = comment.prefix(maximumOptionLength)
        let total = 28 + padded(packet.count) + 4 + padded(comment.count) + 8 + 4 + 4
        let length = UInt32(truncatingIfNeeded: total)
        buffer.appendLittleEndian(enhancedPacketType)
        buffer.appendLittleEndian(length)
        buffer.appendLittleEndian(UInt32(0))
        buffer.appendLittleEndian(UInt32(truncatingIfNeeded: microseconds >> 32))
        buffer.appendLittleEndian(UInt32(truncatingIfNeeded: microseconds))
        buffer.appendLittleEndian(UInt32(truncatingIfNeeded: packet.count))
        buffer.appendLittleEndian(max(originalLength, UInt32(truncatingIfNeeded: packet.count)))
        // As typed bytes: appended with one copy.
        buffer.append(contentsOf: packet.assumingMemoryBound(to: UInt8.self))
        pad(&buffer, after: packet.count)
        buffer.appendLittleEndian(optionComment)
        buffer.appendLittleEndian(UInt16(comment.count))
        buffer.append(contentsOf: comment)
        pad(&buffer, after: comment.count)
        buffer.appendLittleEndian(packetFlags)
        buffer.appendLittleEndian(UInt16(4))
        buffer.appendLittleEndian(directionFlags(direction))
        buffer.appendLittleEndian(optionEnd)
        buffer.appendLittleEndian(UInt16(0))
        buffer.appendLittleEndian(length)
    }

    /// epb_flags bits 0–1: 01 inbound, 10 outbound.
    public static func directionFlags(_ direction: Direction) -> UInt32 {
        switch direction {
        case .inbound: 0b01
        case .outbound: 0b10
        }
    }

    private static func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
        let total = UInt32(truncatingIfNeeded: body.count + 12)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count + 12)
        bytes.appendLittleEndian(type)
        bytes.appendLittleEndian(total)
        bytes.append(contentsOf: body)
        bytes.appendLittleEndian(total)
        return bytes
    }

    /// An option's length is 16 bits; a longer value is cut rather than corrupt the block.
    public static let maximumOptionLength = Int(UInt16.max) - 3

    private static func appendOption(_ code: UInt16, _ value: [UInt8], to body: inout [UInt8]) {
        let value = value.prefix(maximumOptionLength)
        body.appendLittleEndian(code)
        body.appendLittleEndian(UInt16(value.count))
        body.append(contentsOf: value)
        pad(&body, after: value.count)
    }

    private static func padded(_ count: Int) -> Int { (count + 3) & ~3 }

    /// Zeros up to the next multiple of four after a field of `count` bytes.
    private static func pad(_ bytes: inout [UInt8], after count: Int) {
        let padding = padded(count) - count
        if padding > 0 { bytes.append(contentsOf: repeatElement(0, count: padding)) }
    }
}
