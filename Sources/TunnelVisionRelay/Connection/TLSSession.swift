import COpenSSL

/// What a TLS session asks for after a step.
enum TLSProgress: Equatable {
    case done
    case wantsMore
    case closed
    case failed(String)
}

/// Hooks OpenSSL calls back into, found through the SSL's ex data slot 0 (single-threaded loop).
protocol TLSSessionDelegate: AnyObject {
    func tlsSession(_ session: TLSSession, receivedAlert code: UInt8)
    /// An alert of our own, about to go to the peer.
    func tlsSession(_ session: TLSSession, sentAlert code: UInt8)
    func tlsSession(_ session: TLSSession, keyLogLine line: String)
    /// The server side picks the phone's protocol: the one the real server chose.
    func tlsSessionSelectProtocol(_ session: TLSSession) -> String?
    /// Our client got a session it could resume; answers whether the reference was taken.
    func tlsSession(_ session: TLSSession, receivedResumable ticket: OpaquePointer) -> Bool
}

/// One TLS endpoint over a BIO of ours (`TLSWire`): the loop decides when a socket is read and
/// when the output is written, so that every buffer stays under the connection's bounds and
/// nothing blocks.
final class TLSSession {
    let ssl: OpaquePointer
    let wire: TLSWire
    // Unowned, not weak: a weak reference gives the connection a side table, and every retain of it a slow path.
    unowned var delegate: TLSSessionDelegate?

    /// OpenSSL's read buffer with read-ahead: one `recv` fills it with several records.
    static let readBufferBytes = 64 * 1024

    init?(context: OpaquePointer) {
        guard let ssl = SSL_new(context) else { return nil }
        let wire = TLSWire()
        guard let bio = TLSWire.bio(for: wire) else {
            SSL_free(ssl)
            return nil
        }
        // One BIO both ways: the SSL takes the one reference.
        SSL_set_bio(ssl, bio, bio)
        self.ssl = ssl
        self.wire = wire
        SSL_set_read_ahead(ssl, 1)
        SSL_set_default_read_buffer_len(ssl, Self.readBufferBytes)
        _ = tv_SSL_set_mode(ssl, tv_SSL_MODE_relay())
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        SSL_set_info_callback(ssl) { ssl, situation, value in
            guard let ssl, let direction = AlertDirection(situation: situation), let session = TLSSession.owner(of: ssl) else { return }
            // The alert's description is the low byte of `value` (its level the high one).
            let code = UInt8(truncatingIfNeeded: value)
            switch direction {
            case .read: session.delegate?.tlsSession(session, receivedAlert: code)
            case .written: session.delegate?.tlsSession(session, sentAlert: code)
            }
        }
    }

    /// Which way an alert of the info callback went. SSL_CB_READ_ALERT (0x4004) and
    /// SSL_CB_WRITE_ALERT (0x4008) share the alert bit 0x4000: only all the bits of one tell them apart.
    enum AlertDirection: Equatable {
        case read
        case written

        init?(situation: Int32) {
            if situation & tv_SSL_CB_READ_ALERT() == tv_SSL_CB_READ_ALERT() { self = .read }
            else if situation & tv_SSL_CB_WRITE_ALERT() == tv_SSL_CB_WRITE_ALERT() { self = .written }
            else { return nil }
        }
    }

    deinit { SSL_free(ssl) }

    static func owner(of ssl: OpaquePointer) -> TLSSession? {
        guard let pointer = SSL_get_ex_data(ssl, 0) else { return nil }
        return Unmanaged<TLSSession>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Encrypted bytes from the peer, read before OpenSSL reads the socket itself.
    func feed(_ bytes: UnsafeRawBufferPointer) {
        wire.given.append(bytes)
    }

    var pendingInput: Int { wire.given.count }
    var pendingOutput: Int { wire.output.count }

    func handshake() -> TLSProgress {
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .done }
        return progress(after: result)
    }

    var isHandshakeDone: Bool { SSL_is_init_finished(ssl) == 1 }

    /// Decrypts into `buffer`: `.done` with the count, or what stopped it. With `socket`, OpenSSL
    /// reads it straight into its own buffer once what was fed is used up (`wire.end` then says
    /// whether the socket ended).
    func read(into buffer: UnsafeMutableRawBufferPointer, from socket: Int32 = -1) -> (Int, TLSProgress) {
        wire.socket = socket
        defer { wire.socket = -1 }
        var count = 0
        let result = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count)
        if result == 1 { return (count, .done) }
        return (0, progress(after: result))
    }

    /// Encrypts all of `bytes` into the wire's output (which never refuses a write).
    func write(_ bytes: UnsafeRawBufferPointer) -> TLSProgress {
        var written = 0
        while written < bytes.count {
            var count = 0
            let result = SSL_write_ex(ssl, bytes.baseAddress! + written, bytes.count - written, &count)
            guard result == 1 else { return progress(after: result) }
            written += count
        }
        return .done
    }

    /// Queues close_notify.
    func shutdown() {
        if isHandshakeDone { _ = SSL_shutdown(ssl) }
        ERR_clear_error()
    }

    private func progress(after result: Int32) -> TLSProgress {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .wantsMore
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        default:
            return .failed(OpenSSLSupport.lastError())
        }
    }

    // MARK: Readings

    var negotiatedVersion: UInt16 { UInt16(truncatingIfNeeded: SSL_version(ssl)) }
    var cipherSuite: UInt16 {
        guard let cipher = SSL_get_current_cipher(ssl) else { return 0 }
        return SSL_CIPHER_get_protocol_id(cipher)
    }
    var selectedProtocol: String? {
        var pointer: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &pointer, &length)
        guard let pointer, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: Int(length)), as: UTF8.self)
    }
    var verifyResult: (verified: Bool, text: String) {
        let code = SSL_get_verify_result(ssl)
        let text = X509_verify_cert_error_string(code).map { String(cString: $0) } ?? "unknown"
        return (code == X509_V_OK && SSL_get0_peer_certificate(ssl) != nil, text)
    }
}
