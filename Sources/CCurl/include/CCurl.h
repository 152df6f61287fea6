#ifndef CCURL_H
#define CCURL_H
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

// libcurl is loaded at run time (dlopen) instead of by the dynamic loader before `main`, so loading it and its
// libraries can overlap parsing and the scan on another thread (docs/engine.md). The program
// calls libcurl only through these functions; the first call loads it, and calls from other threads meanwhile wait.

/// Loads libcurl and runs its global init, unless done; NULL once it is ready, else why it cannot be used.
const char *ccurl_load_error(void);

CURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CURL *handle);
void ccurl_easy_reset(CURL *handle);
CURLcode ccurl_easy_pause(CURL *handle, int bitmask);
const char *ccurl_easy_strerror(CURLcode code);

// libcurl's setopt/getinfo are C variadics, which Swift cannot call: one typed wrapper per kind.
CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode ccurl_easy_setopt_xferinfo(CURL *handle, curl_xferinfo_callback callback);
CURLcode ccurl_easy_setopt_write(CURL *handle, CURLoption option, curl_write_callback callback);
CURLcode ccurl_easy_setopt_read(CURL *handle, curl_read_callback callback);
CURLcode ccurl_easy_setopt_seek(CURL *handle, curl_seek_callback callback);
/// CURLOPT_PREREQFUNCTION (libcurl 7.80 and later; CURLE_UNKNOWN_OPTION before).
CURLcode ccurl_easy_setopt_prereq(CURL *handle, curl_prereq_callback callback);

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);
CURLcode ccurl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);

struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *string);
void ccurl_slist_free_all(struct curl_slist *list);

CURLM *ccurl_multi_init(void);
CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode ccurl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode ccurl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode ccurl_multi_perform(CURLM *multi, int *running);
CURLMcode ccurl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned extra_count, int timeout_ms, int *numfds);
CURLMcode ccurl_multi_wakeup(CURLM *multi);
CURLMsg *ccurl_multi_info_read(CURLM *multi, int *msgs_in_queue);
CURLMcode ccurl_multi_cleanup(CURLM *multi);

/// The process's share of TLS sessions and DNS answers, with its locks, made on the first call: every easy handle
/// of every loop uses it, so a new connection resumes a TLS session instead of a full handshake. It lives as long
/// as the process (freeing it would need every handle gone first). NULL if libcurl cannot make one.
CURLSH *ccurl_shared_tls_and_dns(void);

/// The CURL_READFUNC_ABORT sentinel, which does not import as a size_t.
size_t ccurl_readfunc_abort(void);

// TLS files checked before anything is sent, with the OpenSSL libcurl itself uses (tls_check.c): libcurl only
// reads them when it connects, so a key that does not match its certificate would fail every file one by one.

/// What a TLS file check found.
typedef enum {
    CCURL_TLS_OK = 0,
    /// No OpenSSL to check with (a libcurl built on another TLS library): nothing was checked.
    CCURL_TLS_UNCHECKED,
    /// The CA file holds no certificate OpenSSL can read.
    CCURL_TLS_BAD_CA_FILE,
    /// The client certificate (PEM) cannot be read.
    CCURL_TLS_BAD_CERTIFICATE,
    /// The private key (PEM) cannot be read, or is encrypted.
    CCURL_TLS_BAD_KEY,
    /// The private key is not the certificate's.
    CCURL_TLS_KEY_MISMATCH,
} ccurl_tls_check;

/// Loads `path` as a PEM bundle of CA certificates; on a problem, OpenSSL's reason goes into `reason`.
ccurl_tls_check ccurl_tls_check_ca_file(const char *path, char *reason, size_t size);

/// Loads a PEM client certificate and its key (`key` NULL: the key is in `certificate`, as curl allows) and
/// checks that they belong together; on a problem, OpenSSL's reason goes into `reason`.
ccurl_tls_check ccurl_tls_check_identity(const char *certificate, const char *key, char *reason, size_t size);

/// Has libcurl open and close the handle's sockets here, so `ccurl_unacknowledged_bytes` can find them.
CURLcode ccurl_easy_track_sockets(CURL *handle);

/// Bytes written to the socket between `local_port` and `remote_port` that the peer has not acknowledged yet (the
/// kernel's send queue, SIOCOUTQ); -1 when no tracked socket has those ports or the kernel cannot say.
/// `socket_hint` is tried first, and set to the socket found (-1: none), for the next call.
long ccurl_unacknowledged_bytes(int local_port, int remote_port, int *socket_hint);

/// Whether the TLS connection `handle` is using agreed on HTTP/2 by ALPN: 1 yes, 0 no (another protocol, or none);
/// -1 when it cannot tell (no TLS, or libcurl on another TLS library). Valid from CURLOPT_PREREQFUNCTION on.
int ccurl_tls_alpn_is_h2(CURL *handle);
#endif
