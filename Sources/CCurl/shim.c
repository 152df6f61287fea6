#include "CCurl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

// The SONAME of every libcurl since 7.16, 8.x included.
#define CCURL_LIBRARY "libcurl.so.4"

// X(name): every libcurl function called, bound by name from the loaded library.
#define CCURL_FUNCTIONS(X)                                                                                            \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_reset) X(curl_easy_pause)                  \
    X(curl_easy_strerror) X(curl_easy_setopt) X(curl_easy_getinfo) X(curl_slist_append) X(curl_slist_free_all)        \
    X(curl_multi_init) X(curl_multi_setopt) X(curl_multi_add_handle) X(curl_multi_remove_handle)                      \
    X(curl_multi_perform) X(curl_multi_poll) X(curl_multi_wakeup) X(curl_multi_info_read) X(curl_multi_cleanup)       \
    X(curl_share_init) X(curl_share_setopt)

#define CCURL_FIELD(name) __typeof__(&name) name;
static struct {
    CCURL_FUNCTIONS(CCURL_FIELD)
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    void *library = dlopen(CCURL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "cannot load %s: %s", CCURL_LIBRARY, dlerror());
        return;
    }
#define CCURL_BIND(name)                                                                                              \
    if ((api.name = (__typeof__(&name))dlsym(library, #name)) == NULL) {                                             \
        snprintf(failure, sizeof failure, "%s lacks %s: too old a libcurl", CCURL_LIBRARY, #name);                    \
        return;                                                                                                       \
    }
    CCURL_FUNCTIONS(CCURL_BIND)
    CURLcode code = api.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) snprintf(failure, sizeof failure, "libcurl's global init failed (code %d)", (int)code);
}

const char *ccurl_load_error(void) {
    pthread_once(&once, load);
    return failure[0] ? failure : NULL;
}

// Every call goes through here: the main program checks `ccurl_load_error` first, so a failure met here is a bug.
static inline __typeof__(api) *ready(void) {
    pthread_once(&once, load);
    if (failure[0]) {
        fprintf(stderr, "uploader-tui: %s\n", failure);
        abort();
    }
    return &api;
}

CURL *ccurl_easy_init(void) { return ready()->curl_easy_init(); }
void ccurl_easy_cleanup(CURL *h) { ready()->curl_easy_cleanup(h); }
void ccurl_easy_reset(CURL *h) { ready()->curl_easy_reset(h); }
CURLcode ccurl_easy_pause(CURL *h, int bitmask) { return ready()->curl_easy_pause(h, bitmask); }
const char *ccurl_easy_strerror(CURLcode code) { return ready()->curl_easy_strerror(code); }

CURLcode ccurl_easy_setopt_long(CURL *h, CURLoption o, long v) { return ready()->curl_easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return ready()->curl_easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return ready()->curl_easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return ready()->curl_easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return ready()->curl_easy_setopt(h, o, v);
}
CURLcode ccurl_easy_setopt_xferinfo(CURL *h, curl_xferinfo_callback cb) {
    return ready()->curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}
CURLcode ccurl_easy_setopt_write(CURL *h, CURLoption o, curl_write_callback cb) {
    return ready()->curl_easy_setopt(h, o, cb);
}
CURLcode ccurl_easy_setopt_read(CURL *h, curl_read_callback cb) {
    return ready()->curl_easy_setopt(h, CURLOPT_READFUNCTION, cb);
}
CURLcode ccurl_easy_setopt_seek(CURL *h, curl_seek_callback cb) {
    return ready()->curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, cb);
}
CURLcode ccurl_easy_setopt_prereq(CURL *h, curl_prereq_callback cb) {
    return ready()->curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, cb);
}

CURLcode ccurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return ready()->curl_easy_getinfo(h, i, v); }
CURLcode ccurl_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return ready()->curl_easy_getinfo(h, i, v); }
CURLcode ccurl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return ready()->curl_easy_getinfo(h, i, v); }

// The sockets libcurl opened through `open_socket` and has not closed: a transfer's is found by its ports, since
// libcurl names the socket of a transfer in progress to nobody (CURLINFO_ACTIVESOCKET only once it has ended).
#define CCURL_TRACKED_MAX 4096
static int tracked[CCURL_TRACKED_MAX];
static int tracked_count;
static pthread_mutex_t tracked_lock = PTHREAD_MUTEX_INITIALIZER;

static curl_socket_t open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)clientp;
    (void)purpose;
    int fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (fd < 0) return CURL_SOCKET_BAD;
    pthread_mutex_lock(&tracked_lock);
    if (tracked_count < CCURL_TRACKED_MAX) tracked[tracked_count++] = fd;
    pthread_mutex_unlock(&tracked_lock);
    return fd;
}

static int close_socket(void *clientp, curl_socket_t fd) {
    (void)clientp;
    pthread_mutex_lock(&tracked_lock);
    for (int i = 0; i < tracked_count; i++) {
        if (tracked[i] == fd) {
            tracked[i] = tracked[--tracked_count];
            break;
        }
    }
    pthread_mutex_unlock(&tracked_lock);
    return close(fd);
}

CURLcode ccurl_easy_track_sockets(CURL *h) {
    CURLcode code = ready()->curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    return code == CURLE_OK ? ready()->curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, close_socket) : code;
}

static int port_of(const struct sockaddr_storage *address) {
    if (address->ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)address)->sin_port);
    if (address->ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    return -1;
}

static int has_ports(int fd, int local_port, int remote_port) {
    struct sockaddr_storage local, remote;
    socklen_t local_size = sizeof local, remote_size = sizeof remote;
    return getsockname(fd, (struct sockaddr *)&local, &local_size) == 0 && port_of(&local) == local_port
        && getpeername(fd, (struct sockaddr *)&remote, &remote_size) == 0 && port_of(&remote) == remote_port;
}

long ccurl_unacknowledged_bytes(int local_port, int remote_port, int *socket_hint) {
    long queued = -1;
    pthread_mutex_lock(&tracked_lock);
    int found = -1;
    for (int i = 0; i < tracked_count && found < 0; i++) {
        if (tracked[i] == *socket_hint && has_ports(tracked[i], local_port, remote_port)) found = tracked[i];
    }
    for (int i = 0; i < tracked_count && found < 0; i++) {
        if (has_ports(tracked[i], local_port, remote_port)) found = tracked[i];
    }
    int bytes = 0;
    if (found >= 0 && ioctl(found, SIOCOUTQ, &bytes) == 0) queued = bytes;
    *socket_hint = found;
    pthread_mutex_unlock(&tracked_lock);
    return queued;
}

struct curl_slist *ccurl_slist_append(struct curl_slist *l, const char *s) { return ready()->curl_slist_append(l, s); }
void ccurl_slist_free_all(struct curl_slist *l) { ready()->curl_slist_free_all(l); }

CURLM *ccurl_multi_init(void) { return ready()->curl_multi_init(); }
CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return ready()->curl_multi_setopt(m, o, v); }
CURLMcode ccurl_multi_add_handle(CURLM *m, CURL *h) { return ready()->curl_multi_add_handle(m, h); }
CURLMcode ccurl_multi_remove_handle(CURLM *m, CURL *h) { return ready()->curl_multi_remove_handle(m, h); }
CURLMcode ccurl_multi_perform(CURLM *m, int *running) { return ready()->curl_multi_perform(m, running); }
CURLMcode ccurl_multi_poll(CURLM *m, struct curl_waitfd extra[], unsigned count, int timeout_ms, int *numfds) {
    return ready()->curl_multi_poll(m, extra, count, timeout_ms, numfds);
}
CURLMcode ccurl_multi_wakeup(CURLM *m) { return ready()->curl_multi_wakeup(m); }
CURLMsg *ccurl_multi_info_read(CURLM *m, int *left) { return ready()->curl_multi_info_read(m, left); }
CURLMcode ccurl_multi_cleanup(CURLM *m) { return ready()->curl_multi_cleanup(m); }

size_t ccurl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }

// The share's data is used from every loop's thread, so each kind gets a mutex of its own.
static pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *user) {
    (void)h, (void)access, (void)user;
    pthread_mutex_lock(&share_locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *user) {
    (void)h, (void)user;
    pthread_mutex_unlock(&share_locks[data]);
}

static pthread_once_t share_once = PTHREAD_ONCE_INIT;
static CURLSH *share;

static void make_share(void) {
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&share_locks[i], NULL);
    CURLSH *made = ready()->curl_share_init();
    if (made == NULL) return;
    if (ready()->curl_share_setopt(made, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK ||
        ready()->curl_share_setopt(made, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK ||
        ready()->curl_share_setopt(made, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK ||
        ready()->curl_share_setopt(made, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK)
        return;  // left unused rather than half set up
    share = made;
}

CURLSH *ccurl_shared_tls_and_dns(void) {
    pthread_once(&share_once, make_share);
    return share;
}
