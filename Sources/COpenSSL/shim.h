#pragma once
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/rand.h>
#include <openssl/ts.h>

// Function-like macros of libssl that Swift cannot import, as functions (for the relay).
static inline long tv_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long tv_SSL_set_mode(SSL *ssl, long mode) { return SSL_set_mode(ssl, mode); }
static inline long tv_SSL_set_min_proto_version(SSL *ssl, int version) { return SSL_set_min_proto_version(ssl, version); }
static inline long tv_SSL_set_max_proto_version(SSL *ssl, int version) { return SSL_set_max_proto_version(ssl, version); }
static inline long tv_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline void tv_X509V3_set_ctx_nodb(X509V3_CTX *ctx) { X509V3_set_ctx_nodb(ctx); }
static inline int tv_SSL_CB_READ_ALERT(void) { return SSL_CB_READ_ALERT; }
static inline int tv_SSL_CB_WRITE_ALERT(void) { return SSL_CB_WRITE_ALERT; }
static inline long tv_SSL_MODE_relay(void) {
    return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS;
}
// The relay's own BIO (TLSWire) answers "retry" as a drained memory BIO does.
static inline void tv_BIO_set_retry_read(BIO *bio) { BIO_set_retry_read(bio); }
static inline void tv_BIO_clear_retry_flags(BIO *bio) { BIO_clear_retry_flags(bio); }
static inline uint64_t tv_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t tv_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
static inline long tv_SSL_SESS_CACHE_OFF(void) { return SSL_SESS_CACHE_OFF; }
// The relay's client keeps the sessions it resumes itself (UpstreamSessions), not in OpenSSL's cache.
static inline long tv_SSL_SESS_CACHE_CLIENT_EXTERNAL(void) { return SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE; }
