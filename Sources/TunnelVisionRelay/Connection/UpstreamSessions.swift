import COpenSSL

/// The last TLS session each server gave our client, so that the next connection to it resumes
/// (a ticket) instead of repeating the full handshake: no certificate chain to parse and verify,
/// no signature to check. A key holds everything the handshake depends on: the original
/// destination, the SNI, the phone's ALPN list and version range. Bounded; touched only on the
/// loop's thread.
///
/// A resumed handshake inherits the verification of the full handshake that issued the ticket
/// (OpenSSL keeps the verify result and the peer certificate in the session): the server proved
/// it holds the ticket's key, which only that verified server could have given.
final class UpstreamSessions {
    struct Key: Hashable {
        let destination: String
        let serverName: String
        let applicationProtocols: [UInt8]
        let versions: RelayVersionRange?
    }

    /// An SSL_SESSION reference, freed when the entry is replaced or evicted.
    final class Held {
        let session: OpaquePointer
        init(_ session: OpaquePointer) { self.session = session }
        deinit { SSL_SESSION_free(session) }
    }

    private var sessions: BoundedRecency<Key, Held>

    init(capacity: Int) {
        sessions = BoundedRecency(capacity: capacity)
    }

    /// Offers the session kept for `key` to a client before its handshake.
    func offer(_ key: Key, to ssl: OpaquePointer) {
        guard let held = sessions.value(for: key) else { return }
        _ = SSL_set_session(ssl, held.session)
    }

    /// Takes over the reference OpenSSL's new-session callback hands out when the session can be
    /// resumed; answers whether it did (else OpenSSL keeps its reference).
    func keep(_ session: OpaquePointer, for key: Key) -> Bool {
        guard SSL_SESSION_is_resumable(session) == 1 else { return false }
        sessions.insert(Held(session), for: key)
        return true
    }
}
