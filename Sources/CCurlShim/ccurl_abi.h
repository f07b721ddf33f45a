// The few numbers of libcurl's stable ABI that the shim uses, written by hand so that the package
// builds without curl's headers. Every one is checked against the real headers by
// scripts/curl_abi_check.sh (in CI). Prefixed names, so that the check can include both.
#ifndef CCURL_ABI_H
#define CCURL_ABI_H

#include <stdint.h>
#include <stddef.h>

typedef int64_t cc_off_t;

// Easy options: LONG 0, OBJECTPOINT 10000, FUNCTIONPOINT 20000, OFF_T 30000.
#define CC_OPT_WRITEDATA 10001
#define CC_OPT_URL 10002
#define CC_OPT_READDATA 10009
#define CC_OPT_ERRORBUFFER 10010
#define CC_OPT_WRITEFUNCTION 20011
#define CC_OPT_READFUNCTION 20012
#define CC_OPT_HTTPHEADER 10023
#define CC_OPT_HEADERDATA 10029
#define CC_OPT_CUSTOMREQUEST 10036
#define CC_OPT_NOPROGRESS 43
#define CC_OPT_NOBODY 44
#define CC_OPT_POST 47
#define CC_OPT_FOLLOWLOCATION 52
#define CC_OPT_XFERINFODATA 10057
#define CC_OPT_SSL_VERIFYPEER 64
#define CC_OPT_HEADERFUNCTION 20079
#define CC_OPT_HTTPGET 80
#define CC_OPT_SSL_VERIFYHOST 81
#define CC_OPT_BUFFERSIZE 98
#define CC_OPT_NOSIGNAL 99
#define CC_OPT_ACCEPT_ENCODING 10102
#define CC_OPT_PRIVATE 10103
#define CC_OPT_POSTFIELDSIZE_LARGE 30120
#define CC_OPT_TCP_NODELAY 121
#define CC_OPT_COPYPOSTFIELDS 10165
#define CC_OPT_XFERINFOFUNCTION 20219
#define CC_OPT_PROXY 10004
#define CC_OPT_NOPROXY 10177
// Connection reuse: a transfer whose pooled connection holds unread bytes starts again on a new one.
#define CC_OPT_FRESH_CONNECT 74
#define CC_OPT_FORBID_REUSE 75
#define CC_OPT_PREREQFUNCTION 20312
#define CC_OPT_PREREQDATA 10313
#define CC_OPT_CLOSESOCKETFUNCTION 20208
#define CC_OPT_CLOSESOCKETDATA 10209
#define CC_OPT_OPENSOCKETFUNCTION 20163
#define CC_OPT_OPENSOCKETDATA 10164
#define CC_PREREQFUNC_OK 0
#define CC_PREREQFUNC_ABORT 1
// 7.80.0: CURLOPT_PREREQFUNCTION.
#define CC_VERSION_PREREQ 0x075000

// TLS options (the TLS transport settings; BLOB 40000).
#define CC_OPT_SSLCERT 10025
#define CC_OPT_KEYPASSWD 10026
#define CC_OPT_SSLVERSION 32
#define CC_OPT_CAINFO 10065
#define CC_OPT_SSLKEY 10087
#define CC_OPT_CAPATH 10097
#define CC_OPT_PINNEDPUBLICKEY 10230
#define CC_OPT_SSLCERT_BLOB 40291
#define CC_OPT_SSLKEY_BLOB 40292
#define CC_OPT_CAINFO_BLOB 40309
#define CC_OPT_HTTP_CONTENT_DECODING 158
#define CC_SSLVERSION_TLSv1_2 6
#define CC_SSLVERSION_TLSv1_3 7
#define CC_BLOB_COPY 1
// curl_version_info features.
#define CC_VERSION_SSL 4
#define CC_VERSION_HTTP2 0x10000
#define CC_VERSION_LIBZ 0x8
#define CC_VERSION_BROTLI 0x800000
#define CC_VERSION_ZSTD 0x4000000
// 7.77.0: CURLOPT_CAINFO_BLOB; 7.71.0: SSLCERT_BLOB and SSLKEY_BLOB; 7.84.0: CURLINFO_CAINFO.
#define CC_VERSION_CAINFO_BLOB 0x074D00
#define CC_VERSION_CERT_BLOB 0x074700
#define CC_VERSION_INFO_CAINFO 0x075400

// Multi options.
#define CC_MOPT_MAXCONNECTS 6
#define CC_MOPT_MAX_HOST_CONNECTIONS 7
// The socket interface (curl_multi_socket_action).
#define CC_MOPT_SOCKETFUNCTION 20001
#define CC_MOPT_SOCKETDATA 10002
#define CC_MOPT_TIMERFUNCTION 20004
#define CC_MOPT_TIMERDATA 10005
/// struct curl_sockaddr, what CURLOPT_OPENSOCKETFUNCTION is given.
typedef struct {
    int family;
    int socktype;
    int protocol;
    unsigned int addrlen;
    /* struct sockaddr addr follows; the shim does not read it. */
} cc_sockaddr;
/// CURL_SOCKET_BAD.
#define CC_SOCKET_BAD (-1)

#define CC_POLL_IN 1
#define CC_POLL_OUT 2
#define CC_POLL_REMOVE 4
#define CC_CSELECT_IN 1
#define CC_CSELECT_OUT 2
#define CC_SOCKET_TIMEOUT (-1)

// Info: STRING 0x100000, LONG 0x200000, OFF_T 0x600000.
#define CC_INFO_PRIVATE 0x100015
#define CC_INFO_PRIMARY_IP 0x100020
#define CC_INFO_ACTIVESOCKET 0x50002C
#define CC_INFO_NUM_CONNECTS 0x20001A
#define CC_INFO_PRIMARY_PORT 0x200028
#define CC_INFO_LOCAL_PORT 0x20002A
#define CC_INFO_HTTP_VERSION 0x20002E
#define CC_INFO_SIZE_UPLOAD_T 0x600007
#define CC_INFO_SIZE_DOWNLOAD_T 0x600008
#define CC_INFO_TOTAL_TIME_T 0x600032
#define CC_INFO_NAMELOOKUP_TIME_T 0x600033
#define CC_INFO_CONNECT_TIME_T 0x600034
#define CC_INFO_STARTTRANSFER_TIME_T 0x600036
#define CC_INFO_APPCONNECT_TIME_T 0x600038

// CURLINFO_HTTP_VERSION's values.
#define CC_HTTP_VERSION_1_0 1
#define CC_HTTP_VERSION_1_1 2
#define CC_HTTP_VERSION_2_0 3
#define CC_HTTP_VERSION_3 30
#define CC_INFO_SSL_VERIFYRESULT 0x20000D
#define CC_INFO_CAINFO 0x10003D
#define CC_INFO_CAPATH 0x10003E

#define CC_READFUNC_ABORT 0x10000000
#define CC_WRITEFUNC_PAUSE 0x10000001
#define CC_READFUNC_PAUSE 0x10000001
// 7.68.0, for curl_multi_wakeup (curl_multi_poll is 7.66), as version_num encodes it.
#define CC_MINIMUM_VERSION 0x074400

#define CC_MSG_DONE 1
#define CC_GLOBAL_ALL 3
#define CC_ERROR_SIZE 256
#define CC_PAUSE_CONT 0
#define CC_VERSION_FIRST 0

// Result codes the shim classifies.
#define CC_E_OK 0
#define CC_E_UNSUPPORTED_PROTOCOL 1
#define CC_E_URL_MALFORMAT 3
#define CC_E_COULDNT_RESOLVE_PROXY 5
#define CC_E_COULDNT_RESOLVE_HOST 6
#define CC_E_COULDNT_CONNECT 7
#define CC_E_WEIRD_SERVER_REPLY 8
#define CC_E_HTTP2 16
#define CC_E_PARTIAL_FILE 18
#define CC_E_WRITE_ERROR 23
#define CC_E_READ_ERROR 26
#define CC_E_OUT_OF_MEMORY 27
#define CC_E_OPERATION_TIMEDOUT 28
#define CC_E_NOT_BUILT_IN 4
#define CC_E_SSL_CONNECT_ERROR 35
#define CC_E_UNKNOWN_OPTION 48
#define CC_E_ABORTED_BY_CALLBACK 42
#define CC_E_GOT_NOTHING 52
#define CC_E_SEND_ERROR 55
#define CC_E_RECV_ERROR 56
#define CC_E_SSL_CERTPROBLEM 58
#define CC_E_SSL_CIPHER 59
#define CC_E_PEER_FAILED_VERIFICATION 60
#define CC_E_BAD_CONTENT_ENCODING 61
#define CC_E_SSL_CACERT_BADFILE 77
#define CC_E_SSL_ISSUER_ERROR 83
#define CC_E_SSL_PINNEDPUBKEYNOTMATCH 90
#define CC_E_HTTP2_STREAM 92
#define CC_E_PROXY 97

// `struct CURLMsg`: the message kind, the easy handle, then a union whose `result` is a CURLcode.
typedef struct {
    int msg;
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
} cc_msg;

// The start of `curl_version_info_data`, which every version since the first shares.
typedef struct {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
    const char *ssl_version;
} cc_version_info;

// `struct curl_blob`: bytes handed to a BLOB option.
typedef struct {
    void *data;
    size_t len;
    unsigned int flags;
} cc_blob;

#endif
