#pragma once
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon and MHD_get_connection_info are variadic, which Swift cannot call: the web
// console's options are fixed here, the values passed in.
struct tv_mhd_settings {
    const struct sockaddr *address;
    uint16_t port;
    int ipv6;
    // NULL for plain HTTP.
    const char *key_pem;
    const char *certificate_pem;
    unsigned int connection_limit;
    unsigned int per_address_limit;
    unsigned int idle_timeout_seconds;
    size_t connection_memory;
};

static inline struct MHD_Daemon *tv_mhd_start(
    const struct tv_mhd_settings *settings, MHD_AccessHandlerCallback handler, void *context,
    MHD_RequestCompletedCallback completed)
{
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
    if (settings->ipv6) flags |= MHD_USE_IPv6;
    if (settings->key_pem != NULL) flags |= MHD_USE_TLS;
    struct MHD_OptionItem options[] = {
        { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) completed, context },
        { MHD_OPTION_SOCK_ADDR, 0, (void *) settings->address },
        { MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit, NULL },
        { MHD_OPTION_PER_IP_CONNECTION_LIMIT, settings->per_address_limit, NULL },
        { MHD_OPTION_CONNECTION_TIMEOUT, settings->idle_timeout_seconds, NULL },
        { MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t) settings->connection_memory, NULL },
        // Refuses what a browser never sends (a header without a colon, a bare CR).
        { MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL },
        { settings->key_pem ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *) settings->key_pem },
        { MHD_OPTION_HTTPS_MEM_CERT, 0, (void *) settings->certificate_pem },
        { MHD_OPTION_END, 0, NULL },
    };
    return MHD_start_daemon(flags, settings->port, NULL, NULL, handler, context,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

static inline const struct sockaddr *tv_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

static inline ssize_t tv_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t tv_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
static inline uint64_t tv_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

// libmicrohttpd's enums as the values the console uses (their Swift import names vary by release).
static inline enum MHD_Result tv_mhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result tv_mhd_no(void) { return MHD_NO; }
static inline enum MHD_ValueKind tv_mhd_header_kind(void) { return MHD_HEADER_KIND; }
static inline enum MHD_ValueKind tv_mhd_argument_kind(void) { return MHD_GET_ARGUMENT_KIND; }
static inline enum MHD_ResponseMemoryMode tv_mhd_must_copy(void) { return MHD_RESPMEM_MUST_COPY; }
