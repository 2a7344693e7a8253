import COpenSSL
import TunnelVisionModel
import TunnelVisionWire

/// A client Initial protected as RFC 9001 § 5 says, with the keys the reader derives for its
/// version: what a T051 client sends (its TLS ClientHello in Google QUIC's CRYPTO frame), built
/// here because no client that speaks it is packaged for a lab.
extension PacketBuilder {
    /// The Initial packet of `version` to `destinationConnectionID`, its frames padded with zeros
    /// so that the datagram is `size` bytes; nil when the version's Initials cannot be protected.
    /// A server's Initial takes its keys from the client's first destination ID (`keyedBy`).
    public static func protectedInitial(
        version: QUICVersion, from sender: InitialSender = .client, destinationConnectionID: [UInt8],
        sourceConnectionID: [UInt8] = [], keyedBy keyID: [UInt8]? = nil,
        packetNumber: UInt32 = 0, frames: [UInt8], size: Int = 1250
    ) -> [UInt8]? {
        guard let keys = (keyID ?? destinationConnectionID).withUnsafeBytes({ InitialKeys(sender, of: version, destinationConnectionID: $0) })
        else { return nil }
        let packetNumberLength = 4
        var header: [UInt8] = [0xC0 | UInt8(packetNumberLength - 1)]
        header.appendBigEndian(version.rawValue)
        header += [UInt8(destinationConnectionID.count)] + destinationConnectionID
        header += [UInt8(sourceConnectionID.count)] + sourceConnectionID
        header.append(0)  // no token
        // The Length field in its 2-byte form: packet number, payload and the 16-byte tag.
        let payloadLength = max(frames.count, size - header.count - 2 - packetNumberLength - 16)
        header.appendBigEndian(UInt16(0x4000 | (packetNumberLength + payloadLength + 16)))
        let packetNumberOffset = header.count
        header.appendBigEndian(packetNumber)
        let plaintext = frames + [UInt8](repeating: 0, count: payloadLength - frames.count)
        var nonce = keys.iv
        for index in 0..<4 { nonce[nonce.count - 1 - index] ^= UInt8(truncatingIfNeeded: packetNumber >> (8 * UInt32(index))) }
        guard let sealed = sealGCM(key: keys.key, nonce: nonce, additionalData: header, plaintext: plaintext),
              let mask = encryptBlock(key: keys.headerProtection, block: Array(sealed[(4 - packetNumberLength)..<(20 - packetNumberLength)]))
        else { return nil }
        header[0] ^= mask[0] & 0x0F
        for index in 0..<packetNumberLength { header[packetNumberOffset + index] ^= mask[1 + index] }
        return header + sealed
    }

    /// A TLS handshake message as a CRYPTO stream carries it: no record header.
    public static func handshakeMessage(type: UInt8, body: [UInt8]) -> [UInt8] {
        var message: [UInt8] = [type]
        message.appendBigEndian24(body.count)
        return message + body
    }

    /// AES-128-GCM: ciphertext, then the 16-byte tag.
    static func sealGCM(key: [UInt8], nonce: [UInt8], additionalData: [UInt8], plaintext: [UInt8]) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written: Int32 = 0, finalWritten: Int32 = 0, ignored: Int32 = 0
        var tag = [UInt8](repeating: 0, count: 16), final = [UInt8](repeating: 0, count: 16)
        guard EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, nil, nil) == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1,
              EVP_EncryptInit_ex(context, nil, nil, key, nonce) == 1,
              EVP_EncryptUpdate(context, nil, &ignored, additionalData, Int32(additionalData.count)) == 1,
              EVP_EncryptUpdate(context, &output, &written, plaintext, Int32(plaintext.count)) == 1,
              // GCM is a stream mode: nothing is held back for the final call.
              EVP_EncryptFinal_ex(context, &final, &finalWritten) == 1, finalWritten == 0,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1
        else { return nil }
        return Array(output.prefix(Int(written))) + tag
    }

    static func encryptBlock(key: [UInt8], block: [UInt8]) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, key, nil) == 1,
              EVP_CIPHER_CTX_set_padding(context, 0) == 1,
              EVP_EncryptUpdate(context, &output, &written, block, 16) == 1, written == 16
        else { return nil }
        return Array(output.prefix(16))
    }
}
