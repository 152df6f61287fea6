#ifndef CCURL_H
#define CCURL_H
#include <curl/curl.h>

// libcurl's setopt/getinfo are C variadics, which Swift cannot call: one typed wrapper per kind.
CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode ccurl_easy_setopt_mime(CURL *handle, curl_mime *mime);
CURLcode ccurl_easy_setopt_xferinfo(CURL *handle, curl_xferinfo_callback callback);
CURLcode ccurl_easy_setopt_write(CURL *handle, CURLoption option, curl_write_callback callback);
CURLcode ccurl_easy_setopt_read(CURL *handle, curl_read_callback callback);
CURLcode ccurl_easy_setopt_seek(CURL *handle, curl_seek_callback callback);

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);
CURLcode ccurl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/// The CURL_READFUNC_ABORT sentinel, which does not import as a size_t.
size_t ccurl_readfunc_abort(void);
#endif
