#include "CCurl.h"

CURLcode ccurl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_mime(CURL *h, curl_mime *m) { return curl_easy_setopt(h, CURLOPT_MIMEPOST, m); }
CURLcode ccurl_easy_setopt_xferinfo(CURL *h, curl_xferinfo_callback cb) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}
CURLcode ccurl_easy_setopt_write(CURL *h, CURLoption o, curl_write_callback cb) { return curl_easy_setopt(h, o, cb); }
CURLcode ccurl_easy_setopt_read(CURL *h, curl_read_callback cb) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, cb); }
CURLcode ccurl_easy_setopt_seek(CURL *h, curl_seek_callback cb) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, cb); }

CURLcode ccurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
CURLcode ccurl_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
CURLcode ccurl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }

CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

size_t ccurl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
