// What the shim's C files share beyond the public header: libcurl's entry points, reached through
// ccurl_shim.c (which owns the dlopen'd table), with the exact argument types libcurl reads.
#ifndef CCURL_PRIVATE_H
#define CCURL_PRIVATE_H

#include "ccurl_abi.h"

/// The loaded libcurl's version data; NULL when it is not loaded.
cc_version_info *ccurl_private_version_info(void);
/// The easy handle of a shim transfer.
void *ccurl_private_easy(void *xfer);
int ccurl_private_set_long(void *easy, int option, long value);
int ccurl_private_set_pointer(void *easy, int option, const void *value);
/// A bare easy handle (for reading libcurl's defaults); NULL when libcurl is not loaded.
void *ccurl_private_easy_new(void);
void ccurl_private_easy_free(void *easy);
int ccurl_private_get_long(void *easy, int info, long *value);
int ccurl_private_get_string(void *easy, int info, const char **value);


/// What the connection-reuse check (ccurl_reuse.c) keeps per transfer.
typedef struct {
    /// The pre-request check found unread bytes on the reused connection and aborted the attempt.
    int stale;
    /// The transfer started again on a new connection: it is not checked (nor restarted) again.
    int fresh;
} ccurl_reuse_state;

typedef int (*ccurl_prereq_callback)(void *clientp, char *primary_ip, char *local_ip, int primary_port,
                                     int local_port);
int ccurl_private_set_prereq(void *easy, int option, ccurl_prereq_callback callback);
int ccurl_private_get_socket(void *easy, int info, int *value);
typedef int (*ccurl_close_socket_callback)(void *clientp, int fd);
int ccurl_private_set_close_socket(void *easy, int option, ccurl_close_socket_callback callback);
/// Sets up the reuse check on a new easy handle (or forbids reuse on a libcurl without the hook).
int ccurl_private_reuse_setup(void *easy, ccurl_reuse_state *state);
/// Whether the reuse check is set up, and with it the close callback: then libcurl closes every socket
/// of a handle's connections through the shim, with the handle's CC_OPT_CLOSESOCKETDATA.
int ccurl_private_reuse_checked(void);
/// Tells the loop whose data a connection was opened with that libcurl is closing its socket `fd`.
void ccurl_private_socket_closing(void *loop, int fd);
/// Records the connection a finished transfer left in the pool; call before the handle leaves the multi handle.
void ccurl_private_reuse_note_done(void *easy);
/// Whether a transfer that ended with `result` should start again on a new connection (set up if so).
int ccurl_private_reuse_should_restart(void *easy, ccurl_reuse_state *state, int result);

#endif
