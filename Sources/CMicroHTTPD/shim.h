#ifndef SLEEPLEDGER_CMICROHTTPD_SHIM_H
#define SLEEPLEDGER_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* Swift cannot call C functions with variable arguments. These fixed-argument wrappers
   are the only calls of MHD_start_daemon and MHD_get_connection_info. */

/* Starts a daemon listening on `address` (its port inside), with `accept` asked before a
   connection is taken, `notify` told when one starts and closes, `handler` for requests,
   `completed` called when a request ends (all with `context`), and the remaining options
   as an MHD_OPTION_ARRAY (terminated by MHD_OPTION_END). */
static inline struct MHD_Daemon *CMicroHTTPD_start(
    unsigned int flags, const struct sockaddr *address, MHD_AcceptPolicyCallback accept,
    MHD_NotifyConnectionCallback notify, MHD_AccessHandlerCallback handler,
    MHD_RequestCompletedCallback completed, void *context, struct MHD_OptionItem *options) {
    return MHD_start_daemon(
        flags, 0, accept, context, handler, context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_NOTIFY_CONNECTION, notify, context,
        MHD_OPTION_ARRAY, options,
        MHD_OPTION_END);
}

/* The same, speaking TLS only (GnuTLS through libmicrohttpd): `certificate` is the PEM
   certificate (chain) and `key` the PEM private key, both NUL-terminated and kept alive
   by the caller while the daemon runs. Check MHD_is_feature_supported(MHD_FEATURE_TLS)
   first. */
static inline struct MHD_Daemon *CMicroHTTPD_startTLS(
    unsigned int flags, const struct sockaddr *address, MHD_AcceptPolicyCallback accept,
    MHD_NotifyConnectionCallback notify, MHD_AccessHandlerCallback handler,
    MHD_RequestCompletedCallback completed, void *context, const char *certificate, const char *key,
    struct MHD_OptionItem *options) {
    return MHD_start_daemon(
        flags | MHD_USE_TLS, 0, accept, context, handler, context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_NOTIFY_CONNECTION, notify, context,
        MHD_OPTION_HTTPS_MEM_CERT, certificate,
        MHD_OPTION_HTTPS_MEM_KEY, key,
        MHD_OPTION_ARRAY, options,
        MHD_OPTION_END);
}

/* The client's socket address of a connection; NULL when unknown. */
static inline const struct sockaddr *CMicroHTTPD_clientAddress(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/* The socket of a connection; -1 when unknown. */
static inline int CMicroHTTPD_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* What the application keeps with a connection (set when MHD_OPTION_NOTIFY_CONNECTION
   told of its start); NULL when none. */
static inline void *CMicroHTTPD_socketContext(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/* The port the daemon listens on (useful when it was started on port 0). */
static inline uint16_t CMicroHTTPD_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

#endif
