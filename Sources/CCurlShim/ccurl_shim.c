#include "ccurl_shim.h"
#include "ccurl_abi.h"
#include "ccurl_private.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#endif

// libcurl's entry points, as function-pointer types of our own (no curl headers).
typedef int (*global_init_fn)(long flags);
typedef cc_version_info *(*version_info_fn)(int age);
typedef void *(*easy_init_fn)(void);
typedef void (*easy_cleanup_fn)(void *easy);
typedef void (*easy_reset_fn)(void *easy);
typedef int (*easy_setopt_fn)(void *easy, int option, ...);
typedef int (*easy_getinfo_fn)(void *easy, int info, ...);
typedef const char *(*easy_strerror_fn)(int code);
typedef void *(*slist_append_fn)(void *list, const char *line);
typedef void (*slist_free_all_fn)(void *list);
typedef void *(*multi_init_fn)(void);
typedef int (*multi_cleanup_fn)(void *multi);
typedef int (*multi_setopt_fn)(void *multi, int option, ...);
typedef int (*multi_add_handle_fn)(void *multi, void *easy);
typedef int (*multi_remove_handle_fn)(void *multi, void *easy);
typedef int (*multi_perform_fn)(void *multi, int *running);
typedef int (*multi_poll_fn)(void *multi, void *extra_fds, unsigned extra_count, int timeout_ms, int *numfds);
typedef int (*multi_wakeup_fn)(void *multi);
typedef cc_msg *(*multi_info_read_fn)(void *multi, int *queued);
typedef int (*easy_pause_fn)(void *easy, int bitmask);
typedef int (*multi_socket_action_fn)(void *multi, int socket, int events, int *running);

static struct {
    global_init_fn global_init;
    version_info_fn version_info;
    easy_init_fn easy_init;
    easy_cleanup_fn easy_cleanup;
    easy_reset_fn easy_reset;
    easy_setopt_fn easy_setopt;
    easy_getinfo_fn easy_getinfo;
    easy_strerror_fn easy_strerror;
    slist_append_fn slist_append;
    slist_free_all_fn slist_free_all;
    multi_init_fn multi_init;
    multi_cleanup_fn multi_cleanup;
    multi_setopt_fn multi_setopt;
    multi_add_handle_fn multi_add_handle;
    multi_remove_handle_fn multi_remove_handle;
    multi_perform_fn multi_perform;
    multi_poll_fn multi_poll;
    multi_wakeup_fn multi_wakeup;
    multi_info_read_fn multi_info_read;
    easy_pause_fn easy_pause;
    multi_socket_action_fn multi_socket_action;
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_error = "libcurl was not loaded";
static char load_error_text[512];
static const char *loaded_version = NULL;
/// curl_version_info's answer, read once: it formats every bundled library's version (OpenSSL, zstd,
/// nghttp2, libidn2...) into static buffers on each call, which each new transfer paid for.
static cc_version_info *loaded_info = NULL;

// The sonames of libcurl 7/8 across distributions: OpenSSL flavour first (what
// FoundationNetworking links on Debian and Ubuntu), then the others.
static const char *const library_names[] = {
    "libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4", "libcurl-nss.so.4", "libcurl.4.dylib",
};

static void *resolve(void *library, const char *name, int *missing) {
    void *symbol = dlsym(library, name);
    if (symbol == NULL && *missing == 0) {
        *missing = 1;
        snprintf(load_error_text, sizeof load_error_text,
                 "libcurl has no %s: ConnectionKit's libcurl transport needs libcurl 7.68 or later", name);
    }
    return symbol;
}

static void load(void) {
    void *library = NULL;
    for (size_t i = 0; i < sizeof library_names / sizeof library_names[0] && library == NULL; i++) {
        library = dlopen(library_names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error_text, sizeof load_error_text,
                 "libcurl could not be loaded (libcurl.so.4 not found: %s); install libcurl4 (Debian, Ubuntu) "
                 "or libcurl (Fedora, Alpine)",
                 reason ? reason : "no reason given");
        load_error = load_error_text;
        return;
    }
    int missing = 0;
    api.global_init = (global_init_fn)resolve(library, "curl_global_init", &missing);
    api.version_info = (version_info_fn)resolve(library, "curl_version_info", &missing);
    api.easy_init = (easy_init_fn)resolve(library, "curl_easy_init", &missing);
    api.easy_cleanup = (easy_cleanup_fn)resolve(library, "curl_easy_cleanup", &missing);
    api.easy_reset = (easy_reset_fn)resolve(library, "curl_easy_reset", &missing);
    api.easy_setopt = (easy_setopt_fn)resolve(library, "curl_easy_setopt", &missing);
    api.easy_getinfo = (easy_getinfo_fn)resolve(library, "curl_easy_getinfo", &missing);
    api.easy_strerror = (easy_strerror_fn)resolve(library, "curl_easy_strerror", &missing);
    api.slist_append = (slist_append_fn)resolve(library, "curl_slist_append", &missing);
    api.slist_free_all = (slist_free_all_fn)resolve(library, "curl_slist_free_all", &missing);
    api.multi_init = (multi_init_fn)resolve(library, "curl_multi_init", &missing);
    api.multi_cleanup = (multi_cleanup_fn)resolve(library, "curl_multi_cleanup", &missing);
    api.multi_setopt = (multi_setopt_fn)resolve(library, "curl_multi_setopt", &missing);
    api.multi_add_handle = (multi_add_handle_fn)resolve(library, "curl_multi_add_handle", &missing);
    api.multi_remove_handle = (multi_remove_handle_fn)resolve(library, "curl_multi_remove_handle", &missing);
    api.multi_perform = (multi_perform_fn)resolve(library, "curl_multi_perform", &missing);
    api.multi_poll = (multi_poll_fn)resolve(library, "curl_multi_poll", &missing);
    api.multi_wakeup = (multi_wakeup_fn)resolve(library, "curl_multi_wakeup", &missing);
    api.multi_info_read = (multi_info_read_fn)resolve(library, "curl_multi_info_read", &missing);
    api.easy_pause = (easy_pause_fn)resolve(library, "curl_easy_pause", &missing);
    api.multi_socket_action = (multi_socket_action_fn)resolve(library, "curl_multi_socket_action", &missing);
    if (missing) {
        load_error = load_error_text;
        return;
    }
    // Symbols can exist in a build that predates the behaviour we rely on; the version decides.
    cc_version_info *info = api.version_info(CC_VERSION_FIRST);
    if (info == NULL || info->version_num < CC_MINIMUM_VERSION) {
        snprintf(load_error_text, sizeof load_error_text,
                 "libcurl %s is too old: ConnectionKit's libcurl transport needs 7.68 or later "
                 "(curl_multi_poll 7.66, curl_multi_wakeup 7.68)",
                 info && info->version ? info->version : "(unknown version)");
        load_error = load_error_text;
        return;
    }
    // Reference-counted, so it coexists with FoundationNetworking's own initialisation.
    int status = api.global_init(CC_GLOBAL_ALL);
    if (status != CC_E_OK) {
        snprintf(load_error_text, sizeof load_error_text, "curl_global_init failed: %s", api.easy_strerror(status));
        load_error = load_error_text;
        return;
    }
    loaded_version = info->version;
    loaded_info = info;
    load_error = NULL;
}

const char *ccurl_load(void) {
    pthread_once(&load_once, load);
    return load_error;
}

const char *ccurl_version(void) { return ccurl_load() == NULL ? loaded_version : NULL; }

size_t ccurl_read_abort(void) { return CC_READFUNC_ABORT; }

size_t ccurl_write_pause(void) { return CC_WRITEFUNC_PAUSE; }

size_t ccurl_read_pause(void) { return CC_READFUNC_PAUSE; }

// MARK: - Multi

// On Linux the loop drives libcurl through its socket interface: epoll says which sockets are ready
// and curl_multi_socket_action runs only the transfers on them. curl_multi_perform instead visits
// every transfer in the multi handle at each call, and each one in the middle of a response polls its
// own socket (a poll(2) per transfer per call, Curl_readwrite): with 64 transfers in flight, 64 system
// calls for every wake-up of the loop. Elsewhere, curl_multi_perform and curl_multi_poll.
typedef struct {
    void *multi;
#ifdef __linux__
    int epoll_fd;
    /// An eventfd in the epoll set: `ccurl_multi_wakeup` writes to it.
    int wake_fd;
    /// When libcurl's timer is due (CLOCK_MONOTONIC, ns), or -1 when it is not set.
    int64_t timer_due;
    /// What the epoll set holds for each socket, by descriptor (SOCKET_* bits); loop thread only.
    uint8_t *sockets;
    int socket_capacity;
#endif
} loop;

#ifdef __linux__
// A kept-alive connection leaves libcurl's watch after every response (CURL_POLL_REMOVE) and comes back
// with the next request: taking it out of the epoll set and putting it back costs two or three
// epoll_ctl calls per request (the MOD that finds it gone, the ADD, the DEL). So a socket the shim
// opened stays in the set while it idles (SOCKET_IDLE) and libcurl's next interest in the same events
// costs nothing. That is safe because libcurl closes those sockets through the shim (close_socket in
// ccurl_reuse.c), which clears their entry: a number the kernel hands out again never inherits it. An
// idle socket that turns ready (the server closed, or sent what nobody asked for) leaves the set then,
// and libcurl's own checks deal with the connection when it is next wanted. Sockets libcurl opens
// itself (its resolver's) leave the set as soon as libcurl stops watching them, as before.
enum {
    SOCKET_IN = 1,
    SOCKET_OUT = 2,
    /// In the epoll set, with the IN and OUT bits as its events.
    SOCKET_PRESENT = 4,
    /// In the set, though libcurl no longer watches it.
    SOCKET_IDLE = 8,
    /// Opened by the shim (open_socket), so closed through it.
    SOCKET_OWNED = 16,
};

/// The entry of `fd`, grown into when `grow`; NULL when there is none (or no memory for it).
static uint8_t *socket_entry(loop *l, int fd, int grow) {
    if (fd < 0) return NULL;
    if (fd >= l->socket_capacity) {
        if (!grow) return NULL;
        int capacity = l->socket_capacity == 0 ? 256 : l->socket_capacity;
        while (capacity <= fd) capacity *= 2;
        uint8_t *grown = realloc(l->sockets, (size_t)capacity);
        if (grown == NULL) return NULL;
        memset(grown + l->socket_capacity, 0, (size_t)(capacity - l->socket_capacity));
        l->sockets = grown;
        l->socket_capacity = capacity;
    }
    return &l->sockets[fd];
}

/// CURLOPT_OPENSOCKETFUNCTION: a socket as libcurl would open it (close-on-exec added), marked as the shim's.
static int open_socket(void *clientp, int purpose, cc_sockaddr *address) {
    (void)purpose;
    int fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (fd < 0) return CC_SOCKET_BAD;
    uint8_t *entry = socket_entry(clientp, fd, 1);
    if (entry != NULL) *entry = SOCKET_OWNED;
    return fd;
}
#endif

void ccurl_private_socket_closing(void *pointer, int fd) {
#ifdef __linux__
    // The kernel drops a closed socket from the epoll set by itself.
    uint8_t *entry = socket_entry(pointer, fd, 0);
    if (entry != NULL) *entry = 0;
#else
    (void)pointer;
    (void)fd;
#endif
}

#ifdef __linux__
static int64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// CURLMOPT_TIMERFUNCTION: libcurl wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT) after `timeout_ms`
/// (-1: never).
static int on_timer(void *multi, long timeout_ms, void *userp) {
    (void)multi;
    loop *l = userp;
    l->timer_due = timeout_ms < 0 ? -1 : monotonic_ns() + (int64_t)timeout_ms * 1000000;
    return 0;
}

/// CURLMOPT_SOCKETFUNCTION: what libcurl waits for on socket `s` (in, out, both, or nothing more).
static int on_socket(void *easy, int s, int what, void *userp, void *socketp) {
    (void)easy;
    (void)socketp;
    loop *l = userp;
    uint8_t *entry = socket_entry(l, s, 1);
    if (what == CC_POLL_REMOVE) {
        if (entry != NULL && (*entry & (SOCKET_OWNED | SOCKET_PRESENT)) == (SOCKET_OWNED | SOCKET_PRESENT)) {
            *entry |= SOCKET_IDLE;
            return 0;
        }
        epoll_ctl(l->epoll_fd, EPOLL_CTL_DEL, s, NULL);
        if (entry != NULL) *entry &= SOCKET_OWNED;
        return 0;
    }
    uint8_t wanted = ((what & CC_POLL_IN) ? SOCKET_IN : 0) | ((what & CC_POLL_OUT) ? SOCKET_OUT : 0);
    if (entry != NULL && (*entry & SOCKET_PRESENT) && (*entry & (SOCKET_IN | SOCKET_OUT)) == wanted) {
        *entry &= (uint8_t)~SOCKET_IDLE;
        return 0;
    }
    struct epoll_event event = {0};
    event.events = ((wanted & SOCKET_IN) ? EPOLLIN : 0) | ((wanted & SOCKET_OUT) ? EPOLLOUT : 0);
    event.data.fd = s;
    // The table may not know the socket (no memory for its entry): then MOD, and ADD when it is not there.
    int present = entry != NULL ? (*entry & SOCKET_PRESENT) != 0 : 1;
    int result = epoll_ctl(l->epoll_fd, present ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &event);
    if (result != 0 && errno == ENOENT) result = epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, s, &event);
    if (result != 0 && errno == EEXIST) result = epoll_ctl(l->epoll_fd, EPOLL_CTL_MOD, s, &event);
    if (entry != NULL) *entry = (uint8_t)((*entry & SOCKET_OWNED) | (result == 0 ? SOCKET_PRESENT | wanted : 0));
    return 0;
}

/// Runs libcurl's timer when it is due.
static void run_due_timer(loop *l) {
    if (l->timer_due < 0 || monotonic_ns() < l->timer_due) return;
    l->timer_due = -1;
    int running = 0;
    api.multi_socket_action(l->multi, CC_SOCKET_TIMEOUT, 0, &running);
}
#endif

void *ccurl_multi_new(long max_host_connections, long max_connections) {
    if (ccurl_load() != NULL) return NULL;
    loop *l = calloc(1, sizeof(loop));
    if (l == NULL) return NULL;
    l->multi = api.multi_init();
    if (l->multi == NULL) {
        free(l);
        return NULL;
    }
    api.multi_setopt(l->multi, CC_MOPT_MAX_HOST_CONNECTIONS, max_host_connections);
    api.multi_setopt(l->multi, CC_MOPT_MAXCONNECTS, max_connections);
#ifdef __linux__
    l->timer_due = -1;
    l->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    l->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event wake = {.events = EPOLLIN, .data.fd = l->wake_fd};
    if (l->epoll_fd < 0 || l->wake_fd < 0 || epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, l->wake_fd, &wake) != 0) {
        if (l->epoll_fd >= 0) close(l->epoll_fd);
        if (l->wake_fd >= 0) close(l->wake_fd);
        api.multi_cleanup(l->multi);
        free(l);
        return NULL;
    }
    api.multi_setopt(l->multi, CC_MOPT_SOCKETFUNCTION, on_socket);
    api.multi_setopt(l->multi, CC_MOPT_SOCKETDATA, (void *)l);
    api.multi_setopt(l->multi, CC_MOPT_TIMERFUNCTION, on_timer);
    api.multi_setopt(l->multi, CC_MOPT_TIMERDATA, (void *)l);
#endif
    return l;
}

void ccurl_multi_free(void *pointer) {
    loop *l = pointer;
    // The cleanup tells the socket callback about the sockets it closes: the epoll set goes after it.
    api.multi_cleanup(l->multi);
#ifdef __linux__
    close(l->epoll_fd);
    close(l->wake_fd);
    free(l->sockets);
#endif
    free(l);
}

int ccurl_multi_perform(void *pointer) {
    loop *l = pointer;
#ifdef __linux__
    // Socket events were handed to libcurl as they came (ccurl_multi_poll); what is left is its timer,
    // set to now by every transfer just added or resumed.
    run_due_timer(l);
    return 0;
#else
    int running = 0;
    return api.multi_perform(l->multi, &running);
#endif
}

int ccurl_multi_poll(void *pointer, int timeout_ms) {
    loop *l = pointer;
#ifdef __linux__
    int wait = timeout_ms;
    if (l->timer_due >= 0) {
        int64_t left = l->timer_due - monotonic_ns();
        int64_t due_ms = left <= 0 ? 0 : (left + 999999) / 1000000;
        if (due_ms < wait) wait = (int)due_ms;
    }
    struct epoll_event events[64];
    int count = epoll_wait(l->epoll_fd, events, 64, wait);
    for (int i = 0; i < count; i++) {
        int fd = events[i].data.fd;
        uint32_t ready = events[i].events;
        if (fd == l->wake_fd) {
            // One read takes the whole count and resets it.
            uint64_t ignored;
            (void)!read(l->wake_fd, &ignored, sizeof ignored);
            continue;
        }
        uint8_t *entry = socket_entry(l, fd, 0);
        if (entry != NULL && (*entry & SOCKET_IDLE)) {
            // An idle connection turned ready: out of the set, or it would wake every wait from now on.
            epoll_ctl(l->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
            *entry &= SOCKET_OWNED;
            continue;
        }
        // As curl_multi_perform's own poll reads them (Curl_socket_check): an error or a hang-up is
        // readable, so that the read that follows reports it.
        int action = 0;
        if (ready & (EPOLLIN | EPOLLERR | EPOLLHUP)) action |= CC_CSELECT_IN;
        if (ready & EPOLLOUT) action |= CC_CSELECT_OUT;
        if (ready & (EPOLLERR | EPOLLHUP)) action |= CC_CSELECT_OUT;
        int running = 0;
        api.multi_socket_action(l->multi, fd, action, &running);
    }
    run_due_timer(l);
    return count < 0 && errno != EINTR ? -1 : 0;
#else
    int ready = 0;
    return api.multi_poll(l->multi, NULL, 0, timeout_ms, &ready);
#endif
}

int ccurl_multi_wakeup(void *pointer) {
    loop *l = pointer;
#ifdef __linux__
    uint64_t one = 1;
    // EAGAIN: the counter is full, so a wakeup is pending anyway.
    return write(l->wake_fd, &one, sizeof one) == sizeof one || errno == EAGAIN ? 0 : -1;
#else
    return api.multi_wakeup(l->multi);
#endif
}

// MARK: - Transfers

typedef struct {
    void *easy;
    void *headers;
    void *userdata;
    char error[CC_ERROR_SIZE];
    ccurl_reuse_state reuse;
    /// A plain-HTTP transfer with no proxy: its easy handle goes back to the pool (see `take_easy`).
    int poolable;
} xfer;

// Easy handles of finished plain-HTTP transfers, reset and kept for the next ones. A new handle costs
// libcurl's allocations (its 16 KiB receive buffer among them), and freeing it again made glibc give
// the top of the heap back and fault it in anew for the next transfer. Only handles that never spoke
// TLS come back: a handle keeps its TLS session cache through curl_easy_reset, and a session made with
// one client certificate must not be offered for a request made with another.
#define EASY_POOL_SIZE 64
static pthread_mutex_t easy_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static void *easy_pool[EASY_POOL_SIZE];
static int easy_pool_count = 0;

/// A reset easy handle from the pool, or a new one (NULL when libcurl cannot make one).
static void *take_easy(void) {
    void *easy = NULL;
    pthread_mutex_lock(&easy_pool_lock);
    if (easy_pool_count > 0) easy = easy_pool[--easy_pool_count];
    pthread_mutex_unlock(&easy_pool_lock);
    return easy != NULL ? easy : api.easy_init();
}

/// Resets `easy` (out of every multi handle) and keeps it, or frees it when the pool is full.
static void give_easy(void *easy) {
    api.easy_reset(easy);
    pthread_mutex_lock(&easy_pool_lock);
    int kept = easy_pool_count < EASY_POOL_SIZE;
    if (kept) easy_pool[easy_pool_count++] = easy;
    pthread_mutex_unlock(&easy_pool_lock);
    if (!kept) api.easy_cleanup(easy);
}

void *ccurl_multi_next_done(void *pointer, int *result) {
    void *multi = ((loop *)pointer)->multi;
    int queued = 0;
    cc_msg *message;
    while ((message = api.multi_info_read(multi, &queued)) != NULL) {
        if (message->msg != CC_MSG_DONE) continue;
        // The message is invalid once the handle is removed: copy what we need first.
        void *easy = message->easy_handle;
        int code = message->data.result;
        xfer *transfer = NULL;
        api.easy_getinfo(easy, CC_INFO_PRIVATE, (char **)&transfer);
        if (code == CC_E_OK) ccurl_private_reuse_note_done(easy);
        api.multi_remove_handle(multi, easy);
        if (transfer == NULL) continue;
        // A reused connection with unread bytes: the attempt sent nothing; it starts again on a new one.
        if (ccurl_private_reuse_should_restart(easy, &transfer->reuse, code)) {
            transfer->error[0] = 0;
            if (api.multi_add_handle(multi, easy) == CC_E_OK) continue;
        }
        *result = code;
        return transfer->userdata;
    }
    return NULL;
}

static int set_long(void *easy, int option, long value) { return api.easy_setopt(easy, option, value); }
static int set_pointer(void *easy, int option, const void *value) { return api.easy_setopt(easy, option, value); }
static int set_size(void *easy, int option, cc_off_t value) { return api.easy_setopt(easy, option, value); }
// Callbacks are passed as the function-pointer types libcurl reads them as (not through void *).
static int set_data_callback(void *easy, int option, ccurl_data_callback callback) {
    return api.easy_setopt(easy, option, callback);
}
static int set_progress_callback(void *easy, int option, ccurl_progress_callback callback) {
    return api.easy_setopt(easy, option, callback);
}

void *ccurl_xfer_new(const ccurl_request *request, char *error) {
    if (ccurl_load() != NULL) {
        snprintf(error, CC_ERROR_SIZE, "%s", load_error);
        return NULL;
    }
    xfer *transfer = calloc(1, sizeof(xfer));
    if (transfer == NULL) {
        snprintf(error, CC_ERROR_SIZE, "out of memory");
        return NULL;
    }
    // A pooled handle may hold a receive buffer of the default size already; one of another size is the
    // transfer's own, so that libcurl allocates it at that size.
    transfer->poolable =
        request->proxy == NULL && request->receive_buffer == 0 && strncmp(request->url, "http://", 7) == 0;
    transfer->easy = transfer->poolable ? take_easy() : api.easy_init();
    if (transfer->easy == NULL) {
        free(transfer);
        snprintf(error, CC_ERROR_SIZE, "curl_easy_init failed");
        return NULL;
    }
    transfer->userdata = request->userdata;
    for (int i = 0; i < request->header_count; i++) {
        void *list = api.slist_append(transfer->headers, request->headers[i]);
        if (list == NULL) {
            ccurl_xfer_free(transfer);
            snprintf(error, CC_ERROR_SIZE, "out of memory");
            return NULL;
        }
        transfer->headers = list;
    }
    void *easy = transfer->easy;
    int status = 0;
    status |= set_pointer(easy, CC_OPT_ERRORBUFFER, transfer->error);
    status |= set_pointer(easy, CC_OPT_PRIVATE, transfer);
    status |= set_pointer(easy, CC_OPT_URL, request->url);
    status |= set_pointer(easy, CC_OPT_HTTPHEADER, transfer->headers);
    status |= set_data_callback(easy, CC_OPT_WRITEFUNCTION, request->write);
    status |= set_pointer(easy, CC_OPT_WRITEDATA, request->userdata);
    status |= set_data_callback(easy, CC_OPT_HEADERFUNCTION, request->header);
    status |= set_pointer(easy, CC_OPT_HEADERDATA, request->userdata);
    // The request follows redirects and sets cookies itself (as over URLSession); curl's cookie
    // engine stays off because no cookie option is ever set.
    status |= set_long(easy, CC_OPT_FOLLOWLOCATION, 0L);
    status |= set_long(easy, CC_OPT_NOSIGNAL, 1L);
    status |= set_long(easy, CC_OPT_TCP_NODELAY, 1L);
    if (request->receive_buffer > 0) status |= set_long(easy, CC_OPT_BUFFERSIZE, request->receive_buffer);
    status |= set_long(easy, CC_OPT_SSL_VERIFYPEER, 1L);
    status |= set_long(easy, CC_OPT_SSL_VERIFYHOST, 2L);
    // "" = every encoding this libcurl decodes; the receiver gets decoded bytes, as from URLSession.
    status |= set_pointer(easy, CC_OPT_ACCEPT_ENCODING, "");
    status |= ccurl_private_reuse_setup(easy, &transfer->reuse);
    if (request->proxy != NULL) {
        status |= set_pointer(easy, CC_OPT_PROXY, request->proxy);
        // The class chose this proxy for its requests: no_proxy from the environment does not undo that.
        status |= set_pointer(easy, CC_OPT_NOPROXY, "");
    }
    if (strcmp(request->method, "HEAD") == 0) {
        status |= set_long(easy, CC_OPT_NOBODY, 1L);
    } else if (request->body_mode == 0 && strcmp(request->method, "GET") == 0) {
        status |= set_long(easy, CC_OPT_HTTPGET, 1L);
    } else {
        // POST mode, for every other method, sends the body (possibly empty) with its Content-Length:
        // `Content-Length: 0` without a body, as URLSession sends for any method but GET and HEAD. The
        // method is then renamed; the caller turns off the Content-Type POST mode adds.
        status |= set_long(easy, CC_OPT_POST, 1L);
        status |= set_size(easy, CC_OPT_POSTFIELDSIZE_LARGE, request->body_mode == 0 ? 0 : request->body_length);
        if (request->body_mode == 2) {
            status |= set_data_callback(easy, CC_OPT_READFUNCTION, request->read);
            status |= set_pointer(easy, CC_OPT_READDATA, request->userdata);
        } else {
            status |= set_pointer(easy, CC_OPT_COPYPOSTFIELDS, request->body_mode == 1 && request->body ? request->body : "");
        }
        status |= set_long(easy, CC_OPT_NOPROGRESS, 0L);
        status |= set_progress_callback(easy, CC_OPT_XFERINFOFUNCTION, request->progress);
        status |= set_pointer(easy, CC_OPT_XFERINFODATA, request->userdata);
        if (strcmp(request->method, "POST") != 0) {
            status |= set_pointer(easy, CC_OPT_CUSTOMREQUEST, request->method);
        }
    }
    if (status != 0) {
        snprintf(error, CC_ERROR_SIZE, "libcurl refused an option: %s", transfer->error);
        ccurl_xfer_free(transfer);
        return NULL;
    }
    return transfer;
}

void ccurl_xfer_free(void *pointer) {
    xfer *transfer = pointer;
    if (transfer->easy != NULL) {
        if (transfer->poolable) {
            give_easy(transfer->easy);
        } else {
            api.easy_cleanup(transfer->easy);
        }
    }
    if (transfer->headers != NULL) api.slist_free_all(transfer->headers);
    free(transfer);
}

int ccurl_xfer_add(void *multi, void *pointer) {
    xfer *transfer = pointer;
    transfer->error[0] = 0;
#ifdef __linux__
    // The connections this transfer opens are the loop's: their sockets are opened and closed through
    // it (see SOCKET_IDLE). Without the close callback (an old libcurl), libcurl opens them itself.
    if (ccurl_private_reuse_checked()) {
        int status = api.easy_setopt(transfer->easy, CC_OPT_OPENSOCKETFUNCTION, open_socket);
        status |= set_pointer(transfer->easy, CC_OPT_OPENSOCKETDATA, multi);
        status |= set_pointer(transfer->easy, CC_OPT_CLOSESOCKETDATA, multi);
        if (status != 0) return status;
    }
#endif
    return api.multi_add_handle(((loop *)multi)->multi, transfer->easy);
}

int ccurl_xfer_remove(void *multi, void *pointer) {
    return api.multi_remove_handle(((loop *)multi)->multi, ((xfer *)pointer)->easy);
}

const char *ccurl_xfer_error(void *pointer) { return ((xfer *)pointer)->error; }

int ccurl_xfer_unpause(void *pointer) { return api.easy_pause(((xfer *)pointer)->easy, CC_PAUSE_CONT); }

int ccurl_xfer_keep_body_coded(void *pointer) {
    return set_long(((xfer *)pointer)->easy, CC_OPT_HTTP_CONTENT_DECODING, 0L);
}

unsigned int ccurl_decoded_codings(void) {
    if (ccurl_load() != NULL || loaded_info == NULL) return 0;
    unsigned int codings = 0;
    if (loaded_info->features & CC_VERSION_LIBZ) codings |= ccurl_coding_zlib;
    if (loaded_info->features & CC_VERSION_BROTLI) codings |= ccurl_coding_brotli;
    if (loaded_info->features & CC_VERSION_ZSTD) codings |= ccurl_coding_zstd;
    return codings;
}

// curl_easy_getinfo with the exact out-parameter type each kind of info is written as.
static cc_off_t info_off(void *easy, int info) {
    cc_off_t value = 0;
    return api.easy_getinfo(easy, info, &value) == CC_E_OK ? value : 0;
}
static long info_long(void *easy, int info) {
    long value = 0;
    return api.easy_getinfo(easy, info, &value) == CC_E_OK ? value : 0;
}
static const char *info_string(void *easy, int info) {
    char *value = NULL;
    return api.easy_getinfo(easy, info, &value) == CC_E_OK && value != NULL ? value : "";
}

void ccurl_xfer_metrics(void *pointer, ccurl_metrics *metrics) {
    void *easy = ((xfer *)pointer)->easy;
    metrics->name_lookup_us = info_off(easy, CC_INFO_NAMELOOKUP_TIME_T);
    metrics->connect_us = info_off(easy, CC_INFO_CONNECT_TIME_T);
    metrics->app_connect_us = info_off(easy, CC_INFO_APPCONNECT_TIME_T);
    metrics->start_transfer_us = info_off(easy, CC_INFO_STARTTRANSFER_TIME_T);
    metrics->total_us = info_off(easy, CC_INFO_TOTAL_TIME_T);
    metrics->body_bytes_sent = info_off(easy, CC_INFO_SIZE_UPLOAD_T);
    metrics->body_bytes_received = info_off(easy, CC_INFO_SIZE_DOWNLOAD_T);
    metrics->new_connections = info_long(easy, CC_INFO_NUM_CONNECTS);
    switch (info_long(easy, CC_INFO_HTTP_VERSION)) {
    case CC_HTTP_VERSION_1_0: metrics->http_version = "http/1.0"; break;
    case CC_HTTP_VERSION_1_1: metrics->http_version = "http/1.1"; break;
    case CC_HTTP_VERSION_2_0: metrics->http_version = "h2"; break;
    case CC_HTTP_VERSION_3: metrics->http_version = "h3"; break;
    default: metrics->http_version = NULL; break;
    }
    metrics->remote_port = info_long(easy, CC_INFO_PRIMARY_PORT);
    metrics->remote_address = info_string(easy, CC_INFO_PRIMARY_IP);
}

ccurl_failure ccurl_classify(int result) {
    switch (result) {
    case CC_E_COULDNT_RESOLVE_HOST:
    case CC_E_COULDNT_RESOLVE_PROXY: return ccurl_failure_cannot_find_host;
    case CC_E_COULDNT_CONNECT:
    case CC_E_PROXY: return ccurl_failure_cannot_connect;
    case CC_E_OPERATION_TIMEDOUT: return ccurl_failure_timed_out;
    case CC_E_SEND_ERROR:
    case CC_E_RECV_ERROR:
    case CC_E_HTTP2:
    case CC_E_HTTP2_STREAM: return ccurl_failure_connection_lost;
    case CC_E_PARTIAL_FILE: return ccurl_failure_truncated_body;
    case CC_E_GOT_NOTHING: return ccurl_failure_empty_reply;
    case CC_E_WEIRD_SERVER_REPLY: return ccurl_failure_bad_server_response;
    case CC_E_UNSUPPORTED_PROTOCOL: return ccurl_failure_not_http;
    case CC_E_BAD_CONTENT_ENCODING: return ccurl_failure_bad_content_encoding;
    case CC_E_PEER_FAILED_VERIFICATION:
    case CC_E_SSL_CACERT_BADFILE:
    case CC_E_SSL_ISSUER_ERROR:
    case CC_E_SSL_PINNEDPUBKEYNOTMATCH: return ccurl_failure_untrusted_certificate;
    case CC_E_SSL_CONNECT_ERROR:
    case CC_E_SSL_CERTPROBLEM:
    case CC_E_SSL_CIPHER: return ccurl_failure_secure_connection;
    case CC_E_URL_MALFORMAT: return ccurl_failure_bad_url;
    case CC_E_READ_ERROR: return ccurl_failure_body_unreadable;
    case CC_E_WRITE_ERROR:
    case CC_E_ABORTED_BY_CALLBACK: return ccurl_failure_aborted;
    case CC_E_OUT_OF_MEMORY: return ccurl_failure_out_of_memory;
    default: return ccurl_failure_other;
    }
}

// MARK: - For the shim's other files (ccurl_private.h)

cc_version_info *ccurl_private_version_info(void) { return ccurl_load() == NULL ? loaded_info : NULL; }

void *ccurl_private_easy(void *pointer) { return ((xfer *)pointer)->easy; }

int ccurl_private_set_long(void *easy, int option, long value) { return set_long(easy, option, value); }

int ccurl_private_set_pointer(void *easy, int option, const void *value) { return set_pointer(easy, option, value); }

void *ccurl_private_easy_new(void) { return ccurl_load() == NULL ? api.easy_init() : NULL; }

void ccurl_private_easy_free(void *easy) { api.easy_cleanup(easy); }

int ccurl_private_get_long(void *easy, int info, long *value) { return api.easy_getinfo(easy, info, value); }

int ccurl_private_set_prereq(void *easy, int option, ccurl_prereq_callback callback) {
    return api.easy_setopt(easy, option, callback);
}

int ccurl_private_get_socket(void *easy, int info, int *value) { return api.easy_getinfo(easy, info, value); }

int ccurl_private_set_close_socket(void *easy, int option, ccurl_close_socket_callback callback) {
    return api.easy_setopt(easy, option, callback);
}

int ccurl_private_get_string(void *easy, int info, const char **value) {
    return api.easy_getinfo(easy, info, (char **)value);
}
