import COpenSSL
import TunnelVisionModel

/// The two OpenSSL contexts of a run: our server towards the phone, our client towards the
/// server. OpenSSL defaults otherwise; the version range of both legs mirrors the phone's offer,
/// so that the relay neither refuses a version the app would have used nor offers one it would not.
final class RelayTLS {
    let server: OpaquePointer
    let client: OpaquePointer

    init(upstreamTrust: UpstreamTrust) throws(RelayError) {
        guard let server = SSL_CTX_new(TLS_server_method()) else { throw OpenSSLSupport.failure("make the server context") }
        guard let client = SSL_CTX_new(TLS_client_method()) else {
            SSL_CTX_free(server)
            throw OpenSSLSupport.failure("make the client context")
        }
        self.server = server
        self.client = client
        _ = SSL_CTX_set_options(server, tv_SSL_OP_NO_RENEGOTIATION())
        _ = SSL_CTX_set_options(client, tv_SSL_OP_NO_RENEGOTIATION())
        // The phone leg's cipher is ours to choose and no evidence: AES-128-GCM first, the
        // cheapest to re-encrypt. The server leg keeps OpenSSL's defaults (its reading counts).
        _ = SSL_CTX_set_options(server, tv_SSL_OP_CIPHER_SERVER_PREFERENCE())
        _ = SSL_CTX_set_ciphersuites(server, "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256")
        _ = SSL_CTX_set_cipher_list(server, "ECDHE+AESGCM:ECDHE+CHACHA20:DEFAULT")
        // Resumption works through stateless tickets; a server-side cache would grow with every phone connection.
        _ = tv_SSL_CTX_set_session_cache_mode(server, tv_SSL_SESS_CACHE_OFF())
        SSL_CTX_set_keylog_callback(server) { ssl, line in
            guard let ssl, let line, let session = TLSSession.owner(of: ssl) else { return }
            session.delegate?.tlsSession(session, keyLogLine: String(cString: line))
        }
        SSL_CTX_set_alpn_select_cb(server, { ssl, chosen, chosenLength, offered, offeredLength, _ in
            guard let ssl, let chosen, let chosenLength, let offered, let session = TLSSession.owner(of: ssl),
                  let wanted = session.delegate?.tlsSessionSelectProtocol(session)
            else { return SSL_TLSEXT_ERR_NOACK }
            // Point into the phone's own list, as OpenSSL requires.
            var index = 0
            let wantedBytes = Array(wanted.utf8)
            while index < Int(offeredLength) {
                let length = Int(offered[index])
                let start = index + 1
                guard start + length <= Int(offeredLength) else { break }
                if length == wantedBytes.count, (0..<length).allSatisfy({ offered[start + $0] == wantedBytes[$0] }) {
                    chosen.pointee = offered + start
                    chosenLength.pointee = UInt8(length)
                    return SSL_TLSEXT_ERR_OK
                }
                index = start + length
            }
            return SSL_TLSEXT_ERR_NOACK
        }, nil)
        // One ticket is all a phone resumes with; each costs a ticket encryption per connection.
        _ = SSL_CTX_set_num_tickets(server, 1)
        _ = tv_SSL_CTX_set_session_cache_mode(client, tv_SSL_SESS_CACHE_CLIENT_EXTERNAL())
        SSL_CTX_sess_set_new_cb(client) { ssl, ticket in
            guard let ssl, let ticket, let session = TLSSession.owner(of: ssl),
                  session.delegate?.tlsSession(session, receivedResumable: ticket) == true
            else { return 0 }
            return 1
        }
        SSL_CTX_set_verify(client, SSL_VERIFY_NONE, nil)
        switch upstreamTrust {
        case .system:
            guard SSL_CTX_set_default_verify_paths(client) == 1 else { throw OpenSSLSupport.failure("load the system trust store") }
        case .bundle(let path):
            guard SSL_CTX_load_verify_locations(client, path, nil) == 1 else {
                _ = OpenSSLSupport.lastError()
                throw .upstreamTrustUnreadable(path: path)
            }
        }
    }

    deinit {
        SSL_CTX_free(server)
        SSL_CTX_free(client)
    }

    static func apply(_ range: RelayVersionRange?, to ssl: OpaquePointer) {
        guard let range else { return }
        _ = tv_SSL_set_min_proto_version(ssl, Int32(range.minimum.wireValue))
        _ = tv_SSL_set_max_proto_version(ssl, Int32(range.maximum.wireValue))
        if range.needsSecurityLevelZero { SSL_set_security_level(ssl, 0) }
    }

    /// ALPN names in wire form (length-prefixed), as SSL_set_alpn_protos takes them.
    static func wireProtocols(_ names: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for name in names {
            let utf8 = Array(name.utf8)
            guard !utf8.isEmpty, utf8.count <= 255 else { continue }
            bytes.append(UInt8(utf8.count))
            bytes += utf8
        }
        return bytes
    }
}
