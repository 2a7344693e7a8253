import COpenSSL
import Glibc

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
    func tlsSession(_ session: TLSSession, keyLogLine line: String)
    /// The server side picks the phone's protocol: the one the real server chose.
    func tlsSessionSelectProtocol(_ session: TLSSession) -> String?
    /// Our client got a session it could resume; answers whether the reference was taken.
    func tlsSession(_ session: TLSSession, receivedResumable ticket: OpaquePointer) -> Bool
}

/// One TLS endpoint, over memory BIOs while its handshake runs: the loop moves bytes between them
/// and the sockets, so that it sees every byte (the phone's alert, our first byte to it) and
/// every buffer stays under the connection's bounds. Once the handshake is done and both BIOs
/// are drained the session is attached to its socket: OpenSSL then reads and writes it itself,
/// and a byte is no longer copied through memory twice on its way.
final class TLSSession {
    let ssl: OpaquePointer
    /// Owned by `ssl`; nil once attached to the socket.
    private var input: OpaquePointer?
    private var output: OpaquePointer?
    /// The socket the session reads and writes itself, once attached.
    private(set) var socket: Int32?
    /// Plaintext SSL_write did not take yet (the socket was full), retried first. Bounded by the
    /// connection: it stops reading the other side while this is over its limit.
    private var unwritten = ByteQueue()
    /// Attached: the socket's end, seen by a read (FIN without close_notify, or a reset).
    private(set) var socketEnded = false
    private(set) var socketWasReset = false
    /// The peer's close_notify was read (as against a bare FIN, which reads as a close once attached).
    private var receivedCloseNotify = false
    // Unowned, not weak: a weak reference gives the connection a side table, and every retain of it a slow path.
    unowned var delegate: TLSSessionDelegate?

    init?(context: OpaquePointer) {
        guard let ssl = SSL_new(context) else { return nil }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            return nil
        }
        // A drained memory BIO answers "retry", not end of file.
        BIO_ctrl(input, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        BIO_ctrl(output, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        SSL_set_bio(ssl, input, output)
        self.ssl = ssl
        self.input = input
        self.output = output
        _ = tv_SSL_set_mode(ssl, tv_SSL_MODE_relay())
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        SSL_set_info_callback(ssl) { ssl, situation, value in
            guard let ssl, situation & tv_SSL_CB_READ_ALERT() != 0, let session = TLSSession.owner(of: ssl) else { return }
            let code = UInt8(truncatingIfNeeded: value)
            if code == 0 { session.receivedCloseNotify = true }
            session.delegate?.tlsSession(session, receivedAlert: code)
        }
    }

    deinit { SSL_free(ssl) }

    static func owner(of ssl: OpaquePointer) -> TLSSession? {
        guard let pointer = SSL_get_ex_data(ssl, 0) else { return nil }
        return Unmanaged<TLSSession>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Encrypted bytes from the peer.
    func feed(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, let input else { return }
        _ = BIO_write(input, bytes.baseAddress, Int32(bytes.count))
    }

    /// Ciphertext fed and not yet read by OpenSSL (0 once attached: the socket holds it).
    var pendingInput: Int { input.map { Int(BIO_ctrl_pending($0)) } ?? 0 }
    /// Bytes on their way to the peer: ciphertext in the memory BIO, or, once attached, plaintext not yet taken.
    var pendingOutput: Int { output.map { Int(BIO_ctrl_pending($0)) } ?? unwritten.count + (closeNotifyWaits ? 1 : 0) }
    var isAttached: Bool { socket != nil }

    /// Moves up to `limit` encrypted bytes for the peer into `buffer`.
    func takeOutput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !buffer.isEmpty, let output else { return 0 }
        return max(Int(BIO_read(output, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))), 0)
    }

    /// Hands the session its socket: only after the handshake, with nothing left in either
    /// memory BIO (a byte there would be lost or sent out of order). Answers whether it did.
    @discardableResult
    func attach(to descriptor: Int32) -> Bool {
        guard socket == nil, isHandshakeDone, pendingInput == 0, pendingOutput == 0,
              let bio = BIO_new_socket(descriptor, BIO_NOCLOSE)
        else { return false }
        // Frees both memory BIOs; the socket BIO serves as both ends.
        SSL_set_bio(ssl, bio, bio)
        input = nil
        output = nil
        socket = descriptor
        // Whole socket reads instead of a header, then a body.
        SSL_set_read_ahead(ssl, 1)
        // OpenSSL 3 answers a FIN without close_notify with a fatal decode_error alert and ends
        // the session, which would cut off the answer still owed to a phone that half-closed.
        // Ignored, the FIN reads as a close; the info callback tells a real close_notify apart.
        _ = SSL_set_options(ssl, tv_SSL_OP_IGNORE_UNEXPECTED_EOF())
        return true
    }

    func handshake() -> TLSProgress {
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .done }
        return progress(after: result)
    }

    var isHandshakeDone: Bool { SSL_is_init_finished(ssl) == 1 }

    /// Decrypts into `buffer`: `.done` with the count, or what stopped it. Attached, the end of
    /// the socket without close_notify is `.wantsMore` with `socketEnded` set, as a read of the
    /// socket by the connection would have noted it.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> (Int, TLSProgress) {
        var count = 0
        let result = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count)
        if result == 1 { return (count, .done) }
        if socket != nil, let reset = socketEnd(after: result, closeNotify: receivedCloseNotify) {
            socketEnded = true
            socketWasReset = socketWasReset || reset
            ERR_clear_error()
            return (0, .wantsMore)
        }
        return (0, progress(after: result))
    }

    /// Encrypts all of `bytes`. A memory BIO never refuses a write; a socket may, and what it did
    /// not take waits in `unwritten` for `flushUnwritten`.
    @discardableResult
    func write(_ bytes: UnsafeRawBufferPointer) -> TLSProgress {
        if !unwritten.isEmpty {
            unwritten.append(bytes)
            return flushUnwritten()
        }
        let (written, progress) = encrypt(bytes)
        if written < bytes.count, progress == .wantsMore {
            unwritten.append(UnsafeRawBufferPointer(rebasing: bytes[written...]))
        }
        return progress
    }

    /// Attached: retries the plaintext the socket did not take; `.done` once none is left.
    @discardableResult
    func flushUnwritten() -> TLSProgress {
        if closeNotifyWaits { shutdown() }
        guard !unwritten.isEmpty else { return closeNotifyWaits ? .wantsMore : .done }
        let (written, progress) = unwritten.withContiguousBytes { encrypt($0) }
        unwritten.drop(written)
        // A broken socket takes nothing more: the connection hears of it from epoll.
        if case .failed = progress { unwritten = ByteQueue() }
        guard unwritten.isEmpty else { return progress }
        if shutdownWaits {
            shutdownWaits = false
            shutdown()
        }
        return closeNotifyWaits ? .wantsMore : .done
    }

    private func encrypt(_ bytes: UnsafeRawBufferPointer) -> (Int, TLSProgress) {
        var written = 0
        while written < bytes.count {
            var count = 0
            let result = SSL_write_ex(ssl, bytes.baseAddress! + written, bytes.count - written, &count)
            guard result == 1 else {
                let progress = progress(after: result)
                if case .failed = progress, socket != nil { socketWasReset = true }
                return (written, progress)
            }
            written += count
        }
        return (written, .done)
    }

    /// Attached: whether a failed read met the socket's end: nil when it did not, else whether
    /// it was a reset (OpenSSL 3 calls a FIN without close_notify an unexpected EOF).
    private func socketEnd(after result: Int32, closeNotify: Bool) -> Bool? {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_ZERO_RETURN:
            return closeNotify ? nil : false
        case SSL_ERROR_SYSCALL:
            return errno != 0
        case SSL_ERROR_SSL:
            return ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING ? false : nil
        default:
            return nil
        }
    }

    /// Queues close_notify, behind any plaintext still waiting for the socket.
    func shutdown() {
        guard unwritten.isEmpty else {
            shutdownWaits = true
            return
        }
        if isHandshakeDone {
            let result = SSL_shutdown(ssl)
            // Attached to a full socket, the alert waits in OpenSSL's buffer: retried by flushUnwritten.
            closeNotifyWaits = socket != nil && result < 0 && SSL_get_error(ssl, result) == SSL_ERROR_WANT_WRITE
        }
        ERR_clear_error()
    }
    private var shutdownWaits = false
    private var closeNotifyWaits = false

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
