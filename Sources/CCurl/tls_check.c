#include "CCurl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// OpenSSL is reached through dlopen, like libcurl: nothing is linked, and no OpenSSL headers are needed to build.
// libcurl4 (OpenSSL flavour) depends on libssl, so it is present wherever libcurl is; if it is loaded already,
// this is the same copy. Only stable ABI is used: opaque pointers, ints and SSL_FILETYPE_PEM.
static const char *const libraries[] = {"libssl.so.3", "libssl.so.1.1"};
#define SSL_FILETYPE_PEM 1

typedef struct ssl_ctx SSL_CTX;
typedef struct x509_store X509_STORE;
typedef struct ssl_method SSL_METHOD;
typedef int (*password_callback)(char *buffer, int size, int rwflag, void *data);

static struct {
    const SSL_METHOD *(*TLS_method)(void);
    SSL_CTX *(*SSL_CTX_new)(const SSL_METHOD *);
    void (*SSL_CTX_free)(SSL_CTX *);
    void (*SSL_CTX_set_default_passwd_cb)(SSL_CTX *, password_callback);
    int (*SSL_CTX_use_certificate_chain_file)(SSL_CTX *, const char *);
    int (*SSL_CTX_use_PrivateKey_file)(SSL_CTX *, const char *, int);
    int (*SSL_CTX_check_private_key)(const SSL_CTX *);
    unsigned long (*ERR_peek_last_error)(void);
    const char *(*ERR_reason_error_string)(unsigned long);
    void (*ERR_clear_error)(void);
    X509_STORE *(*X509_STORE_new)(void);
    void (*X509_STORE_free)(X509_STORE *);
    int (*X509_STORE_load_locations)(X509_STORE *, const char *, const char *);
    void (*SSL_get0_alpn_selected)(const void *, const unsigned char **, unsigned int *);
} ssl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int available;

static void load(void) {
    void *library = NULL;
    for (size_t i = 0; library == NULL && i < sizeof libraries / sizeof *libraries; i++)
        library = dlopen(libraries[i], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    // dlsym on the handle also searches its dependencies, where libcrypto's ERR_ functions live.
#define BIND(name)                                                                                                    \
    if ((*(void **)&ssl.name = dlsym(library, #name)) == NULL) return;
    BIND(TLS_method) BIND(SSL_CTX_new) BIND(SSL_CTX_free) BIND(SSL_CTX_set_default_passwd_cb)
    BIND(SSL_CTX_use_certificate_chain_file) BIND(SSL_CTX_use_PrivateKey_file)
    BIND(SSL_CTX_check_private_key) BIND(ERR_peek_last_error) BIND(ERR_reason_error_string) BIND(ERR_clear_error)
    BIND(X509_STORE_new) BIND(X509_STORE_free) BIND(X509_STORE_load_locations) BIND(SSL_get0_alpn_selected)
#undef BIND
    available = 1;
}

// An encrypted key would otherwise make OpenSSL ask for its pass phrase on the terminal.
static int no_password(char *buffer, int size, int rwflag, void *data) {
    (void)buffer, (void)size, (void)rwflag, (void)data;
    return -1;
}

static ccurl_tls_check failed(ccurl_tls_check check, char *reason, size_t size) {
    unsigned long error = ssl.ERR_peek_last_error();
    const char *text = error ? ssl.ERR_reason_error_string(error) : NULL;
    snprintf(reason, size, "%s", text ? text : "unreadable");
    ssl.ERR_clear_error();
    return check;
}

static SSL_CTX *context(void) {
    pthread_once(&once, load);
    if (!available) return NULL;
    ssl.ERR_clear_error();
    SSL_CTX *ctx = ssl.SSL_CTX_new(ssl.TLS_method());
    if (ctx) ssl.SSL_CTX_set_default_passwd_cb(ctx, no_password);
    return ctx;
}

// A certificate store alone, as SSL_CTX_load_verify_locations fills a context's: the same parsing and errors, without
// the context, whose creation (fetching every cipher from OpenSSL's providers) cost more than the check itself.
ccurl_tls_check ccurl_tls_check_ca_file(const char *path, char *reason, size_t size) {
    pthread_once(&once, load);
    if (!available) return CCURL_TLS_UNCHECKED;
    ssl.ERR_clear_error();
    X509_STORE *store = ssl.X509_STORE_new();
    if (store == NULL) return CCURL_TLS_UNCHECKED;
    ccurl_tls_check result = CCURL_TLS_OK;
    if (ssl.X509_STORE_load_locations(store, path, NULL) != 1) result = failed(CCURL_TLS_BAD_CA_FILE, reason, size);
    ssl.X509_STORE_free(store);
    return result;
}

ccurl_tls_check ccurl_tls_check_identity(const char *certificate, const char *key, char *reason, size_t size) {
    SSL_CTX *ctx = context();
    if (ctx == NULL) return CCURL_TLS_UNCHECKED;
    ccurl_tls_check result = CCURL_TLS_OK;
    if (ssl.SSL_CTX_use_certificate_chain_file(ctx, certificate) != 1) {
        result = failed(CCURL_TLS_BAD_CERTIFICATE, reason, size);
    } else if (ssl.SSL_CTX_use_PrivateKey_file(ctx, key ? key : certificate, SSL_FILETYPE_PEM) != 1) {
        // OpenSSL 3 compares the key with the certificate while loading it.
        unsigned long error = ssl.ERR_peek_last_error();
        const char *text = error ? ssl.ERR_reason_error_string(error) : NULL;
        int mismatch = text && strstr(text, "mismatch");
        result = failed(mismatch ? CCURL_TLS_KEY_MISMATCH : CCURL_TLS_BAD_KEY, reason, size);
    } else if (ssl.SSL_CTX_check_private_key(ctx) != 1) {
        result = failed(CCURL_TLS_KEY_MISMATCH, reason, size);
    }
    ssl.SSL_CTX_free(ctx);
    return result;
}

int ccurl_tls_alpn_is_h2(CURL *handle) {
    struct curl_tlssessioninfo *info = NULL;
    if (ccurl_easy_getinfo_pointer(handle, CURLINFO_TLS_SSL_PTR, (void **)&info) != CURLE_OK || info == NULL) return -1;
    if (info->backend != CURLSSLBACKEND_OPENSSL || info->internals == NULL) return -1;
    pthread_once(&once, load);
    if (!available) return -1;
    const unsigned char *protocol = NULL;
    unsigned int length = 0;
    ssl.SSL_get0_alpn_selected(info->internals, &protocol, &length);
    return length == 2 && memcmp(protocol, "h2", 2) == 0;
}
