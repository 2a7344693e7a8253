import COpenSSL
import Glibc

/// The ciphertext side of one TLS session: a BIO of our own that OpenSSL reads from and writes to.
///
/// Reading: bytes handed over (`given`: the held ClientHello, what the handshakes read) come
/// first; then, only while a read names its socket, OpenSSL's read buffer is filled by `recv`
/// straight from the socket, so no copy of ours stands between the kernel and the cipher.
/// Writing: every record OpenSSL writes is gathered in `output` until the connection flushes it,
/// so that a pump's records leave in one large send (one per record cost more in the kernel than
/// the copy saves). Both buffers keep their capacity between uses.
final class TLSWire {
    /// What a read straight from the socket found at the socket's end.
    enum End: Equatable {
        case finished
        case reset
    }

    var given = ByteQueue()
    var output = ByteQueue()
    /// The socket a read may take bytes from now; -1 outside `TLSSession.read(into:from:)`.
    var socket: Int32 = -1
    /// Set once a read straight from the socket met its end; taken by the connection.
    var end: End?

    /// One BIO reading and writing through `wire`; the SSL that takes it frees it.
    static func bio(for wire: TLSWire) -> OpaquePointer? {
        guard let method = method, let bio = BIO_new(method) else { return nil }
        BIO_set_data(bio, Unmanaged.passUnretained(wire).toOpaque())
        BIO_set_init(bio, 1)
        return bio
    }

    /// Runs `body` with the wire behind `bio`, without a retain and release per call (the
    /// session holds the wire for as long as its SSL, and so the BIO, lives).
    private static func with<T>(_ bio: OpaquePointer, _ body: (TLSWire) -> T) -> T? {
        guard let data = BIO_get_data(bio) else { return nil }
        return Unmanaged<TLSWire>.fromOpaque(data)._withUnsafeGuaranteedRef(body)
    }

    // Made once for the process; OpenSSL only reads it afterwards.
    nonisolated(unsafe) private static let method: OpaquePointer? = {
        guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tunnelvision relay wire") else { return nil }
        _ = BIO_meth_set_read_ex(method) { bio, data, length, read in
            guard let bio, let data, let read else { return 0 }
            tv_BIO_clear_retry_flags(bio)
            let buffer = UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(data), count: length)
            let count = TLSWire.with(bio) { $0.read(into: buffer) } ?? 0
            guard count > 0 else {
                // Nothing now (the socket's end included, which the connection notes): as a drained
                // memory BIO answers, so that OpenSSL never takes a FIN for a truncation of its own.
                tv_BIO_set_retry_read(bio)
                read.pointee = 0
                return 0
            }
            read.pointee = count
            return 1
        }
        _ = BIO_meth_set_write_ex(method) { bio, data, length, written in
            guard let bio, let data, let written else { return 0 }
            tv_BIO_clear_retry_flags(bio)
            let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(data), count: length)
            guard TLSWire.with(bio, { $0.output.append(bytes) }) != nil else { return 0 }
            written.pointee = length
            return 1
        }
        _ = BIO_meth_set_ctrl(method) { bio, command, _, _ in
            guard let bio else { return 0 }
            return TLSWire.with(bio) { wire in
                switch command {
                case BIO_CTRL_PENDING: wire.given.count
                case BIO_CTRL_WPENDING: wire.output.count
                case BIO_CTRL_FLUSH: 1
                default: 0
                }
            } ?? 0
        }
        return method
    }()

    /// Fills `buffer` from what was given, else from the socket a read named: the count, or 0.
    private func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !buffer.isEmpty else { return 0 }
        if !given.isEmpty { return given.take(into: buffer) }
        guard socket >= 0, end == nil else { return 0 }
        switch Descriptors.read(socket, into: buffer) {
        case .bytes(let count): return count
        case .wouldBlock: return 0
        case .endOfFile: end = .finished
        case .reset: end = .reset
        }
        return 0
    }
}
