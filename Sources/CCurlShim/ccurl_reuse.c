// Connection reuse without stale bytes. libcurl before 8.0 reuses a pooled HTTP/1 connection even
// when the server sent bytes on it after a complete response (after a Content-Length body, a 204, a
// HEAD); the next transfer on it would read them as its answer, and every later one would stay one
// answer behind. So the shim remembers each HTTP/1 connection a transfer leaves in the pool, and
// just before a request is sent on a reused one (CURLOPT_PREREQFUNCTION, libcurl 7.80) it peeks at
// the socket: unread bytes (or the server's close) abort that attempt, which makes libcurl close the
// connection, and the transfer starts again once on a new connection. Nothing was sent before the
// check, so the new attempt is the request's first on the wire. Without CURLOPT_PREREQFUNCTION
// (libcurl 7.68 to 7.79) no connection is reused at all.
//
// The ends of a connection are the ones libcurl itself reports (CURLINFO_LOCAL_PORT, _PRIMARY_PORT,
// _PRIMARY_IP, the same values the pre-request callback is given), and libcurl closes every socket
// through the shim (CURLOPT_CLOSESOCKETFUNCTION), which forgets it: the table never names a closed
// socket, so a reused connection costs one recv(2), not the four getsockname/getpeername calls that
// asking the kernel for the ends would take.
#include "ccurl_private.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/// One HTTP/1 connection left in a pool: its socket, both ends' ports and the server's address, which
/// the pre-request callback is given and which tell a reused connection from a new one that got the
/// same socket.
typedef struct {
    int fd;
    int local_port;
    int peer_port;
    char peer_address[INET6_ADDRSTRLEN];
} pooled_connection;

// Both transports' loop threads record and look up, hence the lock; the table is keyed by socket,
// so it never holds more entries than the process has had sockets open at once.
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pooled_connection *pooled = NULL;
static size_t pooled_count = 0;
static size_t pooled_capacity = 0;

/// Removes the entry of `fd`, if any. Under `pool_lock`.
static void forget_locked(int fd) {
    for (size_t i = 0; i < pooled_count; i++) {
        if (pooled[i].fd == fd) {
            pooled[i] = pooled[--pooled_count];
            return;
        }
    }
}

static void remember(int fd, int local_port, int peer_port, const char *peer_address) {
    pthread_mutex_lock(&pool_lock);
    forget_locked(fd);
    if (pooled_count == pooled_capacity) {
        size_t capacity = pooled_capacity == 0 ? 64 : pooled_capacity * 2;
        pooled_connection *grown = realloc(pooled, capacity * sizeof *pooled);
        if (grown == NULL) {
            // Unrecorded, the connection is reused unchecked: as good as libcurl alone, never worse.
            pthread_mutex_unlock(&pool_lock);
            return;
        }
        pooled = grown;
        pooled_capacity = capacity;
    }
    pooled_connection *entry = &pooled[pooled_count++];
    entry->fd = fd;
    entry->local_port = local_port;
    entry->peer_port = peer_port;
    snprintf(entry->peer_address, sizeof entry->peer_address, "%s", peer_address);
    pthread_mutex_unlock(&pool_lock);
}

/// Takes out the pooled connection with these ends: its socket, or -1 (a new connection, or HTTP/2).
static int take(int local_port, int peer_port, const char *peer_address) {
    int fd = -1;
    pthread_mutex_lock(&pool_lock);
    for (size_t i = 0; i < pooled_count; i++) {
        if (pooled[i].local_port == local_port && pooled[i].peer_port == peer_port &&
            strcmp(pooled[i].peer_address, peer_address) == 0) {
            fd = pooled[i].fd;
            pooled[i] = pooled[--pooled_count];
            break;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return fd;
}

void ccurl_private_reuse_note_done(void *easy) {
    int fd = -1;
    // CURLINFO_ACTIVESOCKET writes a curl_socket_t (an int on POSIX); it names the connection the
    // transfer left in the pool, until the handle leaves the multi handle.
    if (ccurl_private_get_socket(easy, CC_INFO_ACTIVESOCKET, &fd) != CC_E_OK || fd < 0) return;
    long version = 0;
    ccurl_private_get_long(easy, CC_INFO_HTTP_VERSION, &version);
    if (version != CC_HTTP_VERSION_1_0 && version != CC_HTTP_VERSION_1_1) {
        // HTTP/2 frames every stream's bytes: nothing a server sends later can pass for an answer.
        pthread_mutex_lock(&pool_lock);
        forget_locked(fd);
        pthread_mutex_unlock(&pool_lock);
        return;
    }
    long local_port = 0, peer_port = 0;
    const char *peer_address = NULL;
    ccurl_private_get_long(easy, CC_INFO_LOCAL_PORT, &local_port);
    ccurl_private_get_long(easy, CC_INFO_PRIMARY_PORT, &peer_port);
    ccurl_private_get_string(easy, CC_INFO_PRIMARY_IP, &peer_address);
    if (local_port > 0 && peer_port > 0 && peer_address != NULL) {
        remember(fd, (int)local_port, (int)peer_port, peer_address);
    }
}

/// CURLOPT_CLOSESOCKETFUNCTION: every socket libcurl closes, pooled or not, leaves the table first.
/// `clientp` is the loop the connection was opened on (or NULL), whose epoll set forgets the socket too.
static int close_socket(void *clientp, int fd) {
    if (clientp != NULL) ccurl_private_socket_closing(clientp, fd);
    pthread_mutex_lock(&pool_lock);
    forget_locked(fd);
    pthread_mutex_unlock(&pool_lock);
    return close(fd);
}

/// CURLOPT_PREREQFUNCTION: the connection is ready and nothing is sent yet.
static int check_connection(void *clientp, char *primary_ip, char *local_ip, int primary_port, int local_port) {
    (void)local_ip;
    ccurl_reuse_state *state = clientp;
    int fd = take(local_port, primary_port, primary_ip != NULL ? primary_ip : "");
    if (fd < 0 || state->fresh) return CC_PREREQFUNC_OK;
    char byte;
    ssize_t count = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return CC_PREREQFUNC_OK;
    // Unread bytes, the server's close, or an error: this connection cannot carry the request.
    state->stale = 1;
    return CC_PREREQFUNC_ABORT;
}

int ccurl_private_reuse_checked(void) {
    cc_version_info *info = ccurl_private_version_info();
    return info != NULL && info->version_num >= CC_VERSION_PREREQ;
}

int ccurl_private_reuse_setup(void *easy, ccurl_reuse_state *state) {
    if (!ccurl_private_reuse_checked()) {
        return ccurl_private_set_long(easy, CC_OPT_FORBID_REUSE, 1L);
    }
    int status = ccurl_private_set_prereq(easy, CC_OPT_PREREQFUNCTION, check_connection);
    status |= ccurl_private_set_pointer(easy, CC_OPT_PREREQDATA, state);
    // A connection keeps the close callback of the transfer that opened it, and its data: so the data
    // is never the transfer; the loop sets it to itself when the transfer joins it (ccurl_xfer_add).
    status |= ccurl_private_set_close_socket(easy, CC_OPT_CLOSESOCKETFUNCTION, close_socket);
    status |= ccurl_private_set_pointer(easy, CC_OPT_CLOSESOCKETDATA, NULL);
    return status;
}

int ccurl_private_reuse_should_restart(void *easy, ccurl_reuse_state *state, int result) {
    if (result != CC_E_ABORTED_BY_CALLBACK || !state->stale || state->fresh) return 0;
    state->stale = 0;
    state->fresh = 1;
    return ccurl_private_set_long(easy, CC_OPT_FRESH_CONNECT, 1L) == CC_E_OK;
}
