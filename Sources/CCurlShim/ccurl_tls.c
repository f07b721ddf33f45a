#include "ccurl_tls.h"
#include "ccurl_abi.h"
#include "ccurl_private.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int set_blob(void *easy, int option, const void *bytes, size_t length) {
    // CURL_BLOB_COPY: libcurl keeps its own copy, so `bytes` may go away after the call.
    cc_blob blob = {(void *)bytes, length, CC_BLOB_COPY};
    return ccurl_private_set_pointer(easy, option, &blob);
}

int ccurl_xfer_set_tls(void *xfer, const ccurl_tls *tls, const char **refused) {
    void *easy = ccurl_private_easy(xfer);
    int status;
#define APPLY(call, name)                                                                                              \
    if ((status = (call)) != CC_E_OK) {                                                                                \
        *refused = name;                                                                                               \
        return status;                                                                                                 \
    }
    APPLY(ccurl_private_set_long(easy, CC_OPT_SSL_VERIFYPEER, tls->verify ? 1L : 0L), "CURLOPT_SSL_VERIFYPEER");
    APPLY(ccurl_private_set_long(easy, CC_OPT_SSL_VERIFYHOST, tls->verify ? 2L : 0L), "CURLOPT_SSL_VERIFYHOST");
    long version = tls->minimum_version >= 13 ? CC_SSLVERSION_TLSv1_3 : CC_SSLVERSION_TLSv1_2;
    APPLY(ccurl_private_set_long(easy, CC_OPT_SSLVERSION, version), "CURLOPT_SSLVERSION");
    if (tls->set_ca) {
        // NULL clears libcurl's built-in default, so a replacement bundle is the only trust.
        APPLY(ccurl_private_set_pointer(easy, CC_OPT_CAINFO, tls->ca_file), "CURLOPT_CAINFO");
        APPLY(ccurl_private_set_pointer(easy, CC_OPT_CAPATH, tls->ca_path), "CURLOPT_CAPATH");
        if (tls->ca_blob != NULL) {
            APPLY(set_blob(easy, CC_OPT_CAINFO_BLOB, tls->ca_blob, tls->ca_blob_length), "CURLOPT_CAINFO_BLOB");
        }
    }
    if (tls->pinned_keys != NULL) {
        APPLY(ccurl_private_set_pointer(easy, CC_OPT_PINNEDPUBLICKEY, tls->pinned_keys), "CURLOPT_PINNEDPUBLICKEY");
    }
    if (tls->cert_file != NULL) {
        APPLY(ccurl_private_set_pointer(easy, CC_OPT_SSLCERT, tls->cert_file), "CURLOPT_SSLCERT");
    } else if (tls->cert_blob != NULL) {
        APPLY(set_blob(easy, CC_OPT_SSLCERT_BLOB, tls->cert_blob, tls->cert_blob_length), "CURLOPT_SSLCERT_BLOB");
    }
    if (tls->key_file != NULL) {
        APPLY(ccurl_private_set_pointer(easy, CC_OPT_SSLKEY, tls->key_file), "CURLOPT_SSLKEY");
    } else if (tls->key_blob != NULL) {
        APPLY(set_blob(easy, CC_OPT_SSLKEY_BLOB, tls->key_blob, tls->key_blob_length), "CURLOPT_SSLKEY_BLOB");
    }
    if (tls->key_password != NULL) {
        APPLY(ccurl_private_set_pointer(easy, CC_OPT_KEYPASSWD, tls->key_password), "CURLOPT_KEYPASSWD");
    }
#undef APPLY
    return CC_E_OK;
}

long ccurl_xfer_verify_result(void *xfer) {
    long result = 0;
    if (ccurl_private_get_long(ccurl_private_easy(xfer), CC_INFO_SSL_VERIFYRESULT, &result) != CC_E_OK) return 0;
    return result;
}

static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;
static char *default_ca_file = NULL;
static char *default_ca_path = NULL;

static void read_defaults(void) {
    cc_version_info *info = ccurl_private_version_info();
    if (info == NULL || info->version_num < CC_VERSION_INFO_CAINFO) return;
    void *easy = ccurl_private_easy_new();
    if (easy == NULL) return;
    const char *value = NULL;
    if (ccurl_private_get_string(easy, CC_INFO_CAINFO, &value) == CC_E_OK && value != NULL) {
        default_ca_file = strdup(value);
    }
    value = NULL;
    if (ccurl_private_get_string(easy, CC_INFO_CAPATH, &value) == CC_E_OK && value != NULL) {
        default_ca_path = strdup(value);
    }
    ccurl_private_easy_free(easy);
}

const char *ccurl_default_ca_file(void) {
    pthread_once(&defaults_once, read_defaults);
    return default_ca_file;
}

const char *ccurl_default_ca_path(void) {
    pthread_once(&defaults_once, read_defaults);
    return default_ca_path;
}

unsigned int ccurl_version_number(void) {
    cc_version_info *info = ccurl_private_version_info();
    return info ? info->version_num : 0;
}

int ccurl_has_http2(void) {
    cc_version_info *info = ccurl_private_version_info();
    return info != NULL && (info->features & CC_VERSION_HTTP2) != 0;
}

const char *ccurl_tls_backend(void) {
    cc_version_info *info = ccurl_private_version_info();
    return info != NULL && (info->features & CC_VERSION_SSL) != 0 ? info->ssl_version : NULL;
}

ccurl_tls_failure ccurl_tls_classify(int result) {
    switch (result) {
    case CC_E_SSL_PINNEDPUBKEYNOTMATCH: return ccurl_tls_pin_mismatch;
    case CC_E_PEER_FAILED_VERIFICATION:
    case CC_E_SSL_ISSUER_ERROR: return ccurl_tls_verification;
    case CC_E_SSL_CACERT_BADFILE: return ccurl_tls_ca_unreadable;
    case CC_E_SSL_CERTPROBLEM: return ccurl_tls_client_certificate;
    case CC_E_SSL_CONNECT_ERROR:
    case CC_E_SSL_CIPHER: return ccurl_tls_handshake;
    case CC_E_RECV_ERROR: return ccurl_tls_receive;
    default: return ccurl_tls_not_tls;
    }
}

int ccurl_tls_option_missing(int result) { return result == CC_E_UNKNOWN_OPTION || result == CC_E_NOT_BUILT_IN; }
