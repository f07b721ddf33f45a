// TLS settings for one transfer of ConnectionKit's libcurl transport, and what the loaded libcurl
// offers (its version, HTTP/2, its default CA bundle), read at run time.
#ifndef CCURL_TLS_H
#define CCURL_TLS_H

#include <stddef.h>

/// A transfer's TLS settings. Strings and bytes are copied by libcurl when they are applied.
typedef struct {
    /// 1: verify the server's certificate and host name (always, but for tests); 0: verify neither.
    int verify;
    /// 0: keep libcurl's CA defaults; 1: use exactly `ca_file`, `ca_path` and `ca_blob` (NULL = none).
    int set_ca;
    const char *_Nullable ca_file;
    const char *_Nullable ca_path;
    const void *_Nullable ca_blob;
    size_t ca_blob_length;
    /// `sha256//<base64>;sha256//<base64>`, or NULL.
    const char *_Nullable pinned_keys;
    const char *_Nullable cert_file;
    const void *_Nullable cert_blob;
    size_t cert_blob_length;
    const char *_Nullable key_file;
    const void *_Nullable key_blob;
    size_t key_blob_length;
    const char *_Nullable key_password;
    /// 12 for TLS 1.2, 13 for TLS 1.3.
    int minimum_version;
} ccurl_tls;

/// Applies `tls` to a transfer made by `ccurl_xfer_new`. Returns 0, or the CURLcode of the first
/// option libcurl refused, with the option's name in `refused`.
int ccurl_xfer_set_tls(void *_Nonnull xfer, const ccurl_tls *_Nonnull tls, const char *_Nullable *_Nonnull refused);

/// The TLS library's verdict on the server's certificate (OpenSSL's X509_V_* code; 0 when it passed
/// or is unknown). Valid after the transfer ended, before it is freed.
long ccurl_xfer_verify_result(void *_Nonnull xfer);

/// How a CURLcode reads as a TLS failure.
typedef enum {
    ccurl_tls_not_tls = 0,
    /// CURLE_SSL_PINNEDPUBKEYNOTMATCH.
    ccurl_tls_pin_mismatch,
    /// CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_ISSUER_ERROR: the certificate or its name.
    ccurl_tls_verification,
    /// CURLE_SSL_CACERT_BADFILE.
    ccurl_tls_ca_unreadable,
    /// CURLE_SSL_CERTPROBLEM: the local client certificate or key.
    ccurl_tls_client_certificate,
    /// CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER.
    ccurl_tls_handshake,
    /// CURLE_RECV_ERROR: a TLS alert after the handshake reads as one (TLS 1.3 refusing a client certificate).
    ccurl_tls_receive,
} ccurl_tls_failure;

ccurl_tls_failure ccurl_tls_classify(int result);

/// 1 when a refused option's CURLcode means this libcurl lacks the option (unknown, or not built in).
int ccurl_tls_option_missing(int result);

/// The CA bundle file and folder the loaded libcurl uses by default (libcurl 7.84 or later), or NULL.
const char *_Nullable ccurl_default_ca_file(void);
const char *_Nullable ccurl_default_ca_path(void);

/// The loaded libcurl's version as 0xXXYYZZ (0 when not loaded).
unsigned int ccurl_version_number(void);
/// 1 when the loaded libcurl speaks HTTP/2 (nghttp2).
int ccurl_has_http2(void);
/// The TLS library libcurl was built with, e.g. "OpenSSL/3.0.19"; NULL when none or not loaded.
const char *_Nullable ccurl_tls_backend(void);

#endif
