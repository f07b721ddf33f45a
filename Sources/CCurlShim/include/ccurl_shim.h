// A small, fixed-arity C surface over libcurl's easy and multi interfaces, for ConnectionKit's
// libcurl transport. libcurl is found at run time (dlopen), so building needs no curl headers
// and no -lcurl; every variadic libcurl call is made here, in C, with the exact argument types.
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <stddef.h>
#include <stdint.h>

/// Loads libcurl once per process and initialises it. Returns NULL on success, or a sentence
/// saying why it cannot be used (not found, a missing entry point, too old). Thread-safe.
const char *_Nullable ccurl_load(void);

/// libcurl's version string ("7.88.1"), or NULL when it is not loaded.
const char *_Nullable ccurl_version(void);

typedef size_t (*_Nonnull ccurl_data_callback)(
    char *_Nonnull bytes, size_t size, size_t count, void *_Nullable userdata);
typedef int (*_Nonnull ccurl_progress_callback)(
    void *_Nullable userdata, int64_t download_total, int64_t downloaded, int64_t upload_total, int64_t uploaded);

/// What a read callback returns to fail the transfer (the body could not be read).
size_t ccurl_read_abort(void);

/// What a read callback returns to pause sending (CURL_READFUNC_PAUSE): libcurl asks again after
/// `ccurl_xfer_unpause`.
size_t ccurl_read_pause(void);

/// What a write callback returns to pause receiving (CURL_WRITEFUNC_PAUSE): libcurl keeps the chunk,
/// stops reading the socket and hands the same chunk over again after `ccurl_xfer_unpause`.
size_t ccurl_write_pause(void);

// MARK: - Multi

/// A multi handle; NULL when libcurl is not loaded or out of memory.
void *_Nullable ccurl_multi_new(long max_host_connections, long max_connections);
void ccurl_multi_free(void *_Nonnull multi);
/// Returns a CURLMcode (0 = OK).
int ccurl_multi_perform(void *_Nonnull multi);
/// Waits for activity, curl's own timers or a wakeup, at most `timeout_ms`.
int ccurl_multi_poll(void *_Nonnull multi, int timeout_ms);
/// The one call that is safe from any thread.
int ccurl_multi_wakeup(void *_Nonnull multi);
/// Removes the next finished transfer from the multi handle: returns its `userdata` and stores
/// its CURLcode in `result`; NULL when none is finished.
void *_Nullable ccurl_multi_next_done(void *_Nonnull multi, int *_Nonnull result);

// MARK: - Transfers

/// How to send one request. Strings are copied by libcurl when the transfer is set up.
typedef struct {
    const char *_Nonnull url;
    const char *_Nonnull method;
    /// `Name: value` lines; an empty value is sent as `Name;`.
    const char *_Nonnull const *_Nullable headers;
    int header_count;
    /// 0 no body; 1 `body`/`body_length` copied into the transfer; 2 read with `read` (`body_length` bytes, or
    /// -1 when unknown: sent chunked over HTTP/1.1).
    int body_mode;
    const void *_Nullable body;
    int64_t body_length;
    ccurl_data_callback write;
    ccurl_data_callback header;
    ccurl_data_callback read;
    ccurl_progress_callback progress;
    void *_Nullable userdata;
    /// The proxy for this transfer (`scheme://user:password@host:port`), which then applies to
    /// every host (`no_proxy` is not consulted); NULL leaves libcurl's own choice: `http_proxy`,
    /// `https_proxy`, `all_proxy` and `no_proxy` from the environment.
    const char *_Nullable proxy;
    /// libcurl's receive buffer for this transfer, in bytes (`CURLOPT_BUFFERSIZE`); 0 keeps libcurl's default.
    /// A transfer with a buffer of its own gets an easy handle of its own (not one from the pool).
    long receive_buffer;
} ccurl_request;

/// An easy handle set up for `request` (with its header list and error buffer); NULL on failure,
/// with the reason in `error` (at least 256 bytes).
void *_Nullable ccurl_xfer_new(const ccurl_request *_Nonnull request, char *_Nonnull error);
void ccurl_xfer_free(void *_Nonnull xfer);
int ccurl_xfer_add(void *_Nonnull multi, void *_Nonnull xfer);
/// Removes a transfer that has not finished (a cancel). Finished ones are removed by `next_done`.
int ccurl_xfer_remove(void *_Nonnull multi, void *_Nonnull xfer);
/// libcurl's message for the transfer's last failure ("" when none).
const char *_Nonnull ccurl_xfer_error(void *_Nonnull xfer);
/// Resumes a transfer whose write callback paused it (curl_easy_pause with CURLPAUSE_CONT). Loop
/// thread only; libcurl may call the write callback again inside this call. Returns a CURLcode.
int ccurl_xfer_unpause(void *_Nonnull xfer);
/// Hands the rest of the transfer's body over as it arrives, without undoing its content coding
/// (`CURLOPT_HTTP_CONTENT_DECODING` 0). Loop thread only, from the header callback once the head is
/// complete. libcurl 7 reads the option at every body write; a libcurl that reads it with the head has
/// already chosen its decoders by then, and the call changes nothing. Returns a CURLcode.
int ccurl_xfer_keep_body_coded(void *_Nonnull xfer);

/// The codings the loaded libcurl decodes, as `ccurl_coding_*` bits; 0 when libcurl is not loaded.
unsigned int ccurl_decoded_codings(void);
/// gzip, x-gzip and deflate (zlib).
#define ccurl_coding_zlib 1u
/// br (brotli).
#define ccurl_coding_brotli 2u
/// zstd.
#define ccurl_coding_zstd 4u

/// What libcurl measured for a transfer. Times are microseconds from the start of the transfer
/// (libcurl's cumulative `*_TIME_T` values); 0 for a phase that did not happen.
typedef struct {
    int64_t name_lookup_us;
    int64_t connect_us;
    /// The end of the TLS handshake; 0 without TLS.
    int64_t app_connect_us;
    int64_t start_transfer_us;
    int64_t total_us;
    /// Request-body bytes sent, response-body bytes received (as they came over the wire).
    int64_t body_bytes_sent;
    int64_t body_bytes_received;
    /// New connections the transfer opened: 0 on a completed transfer means it reused one.
    long new_connections;
    /// The protocol as ALPN names it ("http/1.1", "h2", "h3"), as URLSessionTaskMetrics reports it;
    /// NULL when no response arrived.
    const char *_Nullable http_version;
    long remote_port;
    /// The server's IP address ("" when unknown); valid until the transfer is freed.
    const char *_Nullable remote_address;
} ccurl_metrics;

/// Reads the transfer's metrics (`curl_easy_getinfo`); call before the transfer is freed.
void ccurl_xfer_metrics(void *_Nonnull xfer, ccurl_metrics *_Nonnull metrics);

/// How a CURLcode reads for a caller.
typedef enum {
    ccurl_failure_other = 0,
    ccurl_failure_cannot_find_host,
    ccurl_failure_cannot_connect,
    ccurl_failure_timed_out,
    ccurl_failure_connection_lost,
    ccurl_failure_truncated_body,
    ccurl_failure_empty_reply,
    ccurl_failure_bad_server_response,
    ccurl_failure_not_http,
    ccurl_failure_bad_content_encoding,
    ccurl_failure_untrusted_certificate,
    ccurl_failure_secure_connection,
    ccurl_failure_bad_url,
    ccurl_failure_body_unreadable,
    ccurl_failure_aborted,
    /// Out of memory: how libcurl ends a response header line longer than it accepts.
    ccurl_failure_out_of_memory,
} ccurl_failure;

ccurl_failure ccurl_classify(int result);

// MARK: - Threads

/// Names the calling thread (Linux keeps the first 15 bytes), so that a client's loop threads can be
/// told apart in /proc/self/task/*/comm and `top -H`. Returns 0, or an errno value.
int ccurl_name_current_thread(const char *_Nonnull name);

/// The calling thread's kernel id (its entry in /proc/self/task).
int ccurl_current_thread_id(void);

#endif
