import COpenSSL
import TunnelVisionModel

/// A client Initial packet with its protection removed: the frames in plaintext.
public struct DecryptedInitial {
    public let frames: [UInt8]
    /// Bytes of the datagram this packet took; the next coalesced packet starts after them.
    public let packetLength: Int
}

public enum InitialPacket {
    /// The length of the coalesced packet at the start of `header.packet`, from its Length field;
    /// nil when the header cannot be walked that far.
    public static func lengthAndPacketNumberOffset(_ header: QUICLongHeader) -> (length: Int, packetNumberOffset: Int)? {
        var reader = ByteReader(header.packet)
        guard reader.skip(header.afterConnectionIDs) else { return nil }
        if header.isInitial {
            guard let tokenLength = reader.varint(), tokenLength <= UInt64(reader.remaining),
                  reader.skip(Int(tokenLength)) else { return nil }
        }
        guard let length = reader.varint(), length <= UInt64(reader.remaining) else { return nil }
        return (reader.position + Int(length), reader.position)
    }

    /// Removes header protection and decrypts; nil when the tag does not verify or the packet is
    /// too short to hold a sample.
    public static func decrypt(_ header: QUICLongHeader, keys: InitialKeys) -> DecryptedInitial? {
        guard let (end, pnOffset) = lengthAndPacketNumberOffset(header),
              let sample = header.packet.slice(from: pnOffset + 4, count: 16),
              end <= header.packet.count,
              let mask = AES.encryptBlock(key: keys.headerProtection, block: sample)
        else { return nil }
        let first = header.packet[0] ^ (mask[0] & 0x0F)
        let pnLength = Int(first & 0x03) + 1
        guard end >= pnOffset + pnLength + 16 else { return nil }
        var headerBytes = Array(header.packet[0..<(pnOffset + pnLength)])
        headerBytes[0] = first
        var packetNumber: UInt64 = 0
        for index in 0..<pnLength {
            headerBytes[pnOffset + index] ^= mask[1 + index]
            packetNumber = packetNumber << 8 | UInt64(headerBytes[pnOffset + index])
        }
        var nonce = keys.iv
        for index in 0..<8 {
            nonce[nonce.count - 1 - index] ^= UInt8(truncatingIfNeeded: packetNumber >> (8 * UInt64(index)))
        }
        guard let ciphertext = header.packet.slice(from: pnOffset + pnLength, count: end - pnOffset - pnLength - 16),
              let tag = header.packet.slice(from: end - 16, count: 16),
              let plaintext = AES.openGCM(key: keys.key, nonce: nonce, additionalData: headerBytes,
                                          ciphertext: ciphertext, tag: tag)
        else { return nil }
        return DecryptedInitial(frames: plaintext, packetLength: end)
    }
}

/// The two AES-128 operations QUIC Initial protection needs, through libcrypto's EVP interface.
enum AES {
    static func encryptBlock(key: [UInt8], block: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        let ok = key.withUnsafeBufferPointer { keyBytes in
            output.withUnsafeMutableBufferPointer { out in
                EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, keyBytes.baseAddress, nil) == 1
                    && EVP_CIPHER_CTX_set_padding(context, 0) == 1
                    && EVP_EncryptUpdate(context, out.baseAddress, &written,
                                         block.baseAddress?.assumingMemoryBound(to: UInt8.self), 16) == 1
            }
        }
        guard ok, written == 16 else { return nil }
        return Array(output.prefix(16))
    }

    static func openGCM(
        key: [UInt8], nonce: [UInt8], additionalData: [UInt8],
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer
    ) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0, finalWritten: Int32 = 0
        var tagCopy = Array(tag)
        let ok = key.withUnsafeBufferPointer { keyBytes in
            nonce.withUnsafeBufferPointer { nonceBytes in
                additionalData.withUnsafeBufferPointer { aad in
                    plaintext.withUnsafeMutableBufferPointer { out -> Bool in
                        var ignored: Int32 = 0
                        guard EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, nil, nil) == 1,
                              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceBytes.count), nil) == 1,
                              EVP_DecryptInit_ex(context, nil, nil, keyBytes.baseAddress, nonceBytes.baseAddress) == 1,
                              EVP_DecryptUpdate(context, nil, &ignored, aad.baseAddress, Int32(aad.count)) == 1,
                              EVP_DecryptUpdate(context, out.baseAddress, &written,
                                                ciphertext.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                Int32(ciphertext.count)) == 1,
                              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &tagCopy) == 1
                        else { return false }
                        return EVP_DecryptFinal_ex(context, out.baseAddress.map { $0 + Int(written) }, &finalWritten) == 1
                    }
                }
            }
        }
        guard ok else { return nil }
        return Array(plaintext.prefix(Int(written + finalWritten)))
    }
}
