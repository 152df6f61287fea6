#define _GNU_SOURCE  // memmem
#include "CVips.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vips/vips.h>

// The SONAME of every libvips 8.x.
#define CVIPS_LIBRARY "libvips.so.42"

// X(name): every libvips and GLib function called, bound by name from the loaded library (GLib's through its
// dependencies, which dlsym searches too).
#define CVIPS_FUNCTIONS(X)                                                                                            \
    X(vips_init) X(vips_version) X(vips_cache_set_max) X(vips_concurrency_set) X(vips_block_untrusted_set)            \
    X(vips_error_buffer_copy) X(vips_error_clear) X(vips_error_system) X(vips_image_new_from_file)                    \
    X(vips_image_get_width) X(vips_image_get_height) X(vips_image_get_n_pages) X(vips_image_get_orientation)          \
    X(vips_image_get_string) X(vips_image_get_blob) X(vips_image_get_typeof) X(vips_image_get_fields)                 \
    X(vips_image_remove) X(vips_image_hasalpha) X(vips_image_set_string) X(vips_image_set_int) X(vips_thumbnail)      \
    X(vips_autorot) X(vips_icc_transform) X(vips_copy) X(vips_flatten) X(vips_array_double_newv) X(vips_area_unref)   \
    X(vips_jpegsave) X(vips_pngsave) X(vips_webpsave_buffer) X(vips_tiffsave) X(vips_gifsave) X(vips_heifsave)        \
    X(vips_gaussnoise) X(vips_bandjoin_const1) X(vips_cast) X(g_free) X(g_strfreev) X(g_object_ref)                   \
    X(g_object_unref) X(g_log_set_handler) X(vips_colourspace) X(vips_extract_band) X(vips_image_write_to_memory)     \
    X(vips_image_get_bands) X(vips_image_new_from_memory_copy) X(vips_image_get_page_height)                        \
    X(vips_image_get_interpretation)

#define CVIPS_FIELD(name) __typeof__(&name) name;
static struct {
    CVIPS_FUNCTIONS(CVIPS_FIELD)
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain, (void)level, (void)message, (void)data;
}
static char failure[512];

static void load(void) {
    void *library = dlopen(CVIPS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "cannot load %s: %s (install libvips42)", CVIPS_LIBRARY, dlerror());
        return;
    }
#define CVIPS_BIND(name)                                                                                              \
    if ((api.name = (__typeof__(&name))dlsym(library, #name)) == NULL) {                                             \
        snprintf(failure, sizeof failure, "%s lacks %s: too old a libvips", CVIPS_LIBRARY, #name);                    \
        return;                                                                                                       \
    }
    CVIPS_FUNCTIONS(CVIPS_BIND)
    // What VIPS_INIT checks: this shim was compiled against these headers, so an older minor version may lack fields.
    if (api.vips_version(0) != VIPS_MAJOR_VERSION || api.vips_version(1) < VIPS_MINOR_VERSION) {
        snprintf(failure, sizeof failure, "libvips %d.%d is older than the %d.%d this was built with",
            api.vips_version(0), api.vips_version(1), VIPS_MAJOR_VERSION, VIPS_MINOR_VERSION);
        return;
    }
    if (api.vips_init("uploader-tui") != 0) {
        char *why = api.vips_error_buffer_copy();
        snprintf(failure, sizeof failure, "libvips' init failed: %s", why ? why : "unknown error");
        api.g_free(why);
        return;
    }
    // libvips also logs its warnings ("error in tile 0 x 392") to stderr, which would scribble over the screen; the
    // failure itself comes back through the error buffer.
    api.g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG,
        ignore_log, NULL);
    // Each file is read once: the operation cache would only keep closed files' headers and pixels alive, and answer
    // a second open of a replaced or deleted file from memory.
    api.vips_cache_set_max(0);
    // Only the loaders of the types the scan sniffs are wanted; the untrusted ones (ImageMagick, PDF, …) are not.
    api.vips_block_untrusted_set(TRUE);
    // One thread per image: the workers already prepare two images at once, and each thread of an image holds
    // decoder buffers of its own (tens of MB for a phone photo) for no speed on two cores. VIPS_CONCURRENCY wins.
    if (getenv("VIPS_CONCURRENCY") == NULL) api.vips_concurrency_set(1);
}

void cvips_trim(void) {
    // glibc keeps freed memory in the arena of the thread that freed it: each libvips thread would hold on to the
    // buffers of the largest image it has seen.
    malloc_trim(0);
}

const char *cvips_load_error(void) {
    pthread_once(&once, load);
    return failure[0] ? failure : NULL;
}

// Every call goes through here: the Swift side checks `cvips_load_error` first, so a failure met here is a bug.
static inline __typeof__(api) *ready(void) {
    pthread_once(&once, load);
    if (failure[0]) {
        fprintf(stderr, "uploader-tui: %s\n", failure);
        abort();
    }
    return &api;
}

char *cvips_take_error(void) {
    char *text = ready()->vips_error_buffer_copy();  // copies and clears under libvips' lock
    if (text != NULL && text[0] == '\0') {
        api.g_free(text);
        return NULL;
    }
    return text;
}

void cvips_free_string(char *text) { ready()->g_free(text); }

CVipsImage *cvips_open(const char *path) {
    // Lazy: the loader reads the header now and decodes when pixels are asked for. A truncated file fails then,
    // instead of coming out grey at the bottom.
    return ready()->vips_image_new_from_file(path, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int cvips_width(CVipsImage *image) { return ready()->vips_image_get_width(image); }
int cvips_height(CVipsImage *image) { return ready()->vips_image_get_height(image); }
int cvips_pages(CVipsImage *image) { return ready()->vips_image_get_n_pages(image); }
int cvips_page_height(CVipsImage *image) { return ready()->vips_image_get_page_height(image); }

const char *cvips_loader(CVipsImage *image) {
    const char *loader = NULL;
    return ready()->vips_image_get_string(image, "vips-loader", &loader) == 0 ? loader : NULL;
}

int cvips_has_location(CVipsImage *image) {
    if (ready()->vips_image_get_typeof(image, "exif-ifd3-GPSLatitude") ||
        api.vips_image_get_typeof(image, "exif-ifd3-GPSLongitude"))
        return 1;
    // Some editors keep the position only in XMP (exif:GPSLatitude).
    const void *xmp = NULL;
    size_t length = 0;
    if (api.vips_image_get_typeof(image, VIPS_META_XMP_NAME) &&
        api.vips_image_get_blob(image, VIPS_META_XMP_NAME, &xmp, &length) == 0 && xmp != NULL)
        return memmem(xmp, length, "GPSLatitude", 11) != NULL || memmem(xmp, length, "GPSLongitude", 12) != NULL;
    return 0;
}

// liborc 0.4.33 frees a compiled program's code without its lock (orc_code_chunk_free merges free chunks in a
// list orc_code_allocate changes under it): two threads, one freeing a pipeline's vector programs while another
// builds a pipeline that compiles some, crashed a run now and then (SIGSEGV in liborc). libvips compiles when an
// operation is built (vips_thumbnail's resize) and frees when it is disposed (the last unref), so both are
// done under this lock; the pixels are computed outside it.
static pthread_mutex_t orc_guard = PTHREAD_MUTEX_INITIALIZER;

static void unref(void *object) {
    pthread_mutex_lock(&orc_guard);
    ready()->g_object_unref(object);
    pthread_mutex_unlock(&orc_guard);
}

void cvips_release(CVipsImage *image) {
    if (image != NULL) unref(image);
}

// True when converting `header`'s image to sRGB changes its colours: it has a profile of its own, or it is CMYK. One
// without is sRGB already, and lcms' rendering intent would still move pure colours ((0,0,255) became (84,15,253)).
static int has_own_colours(VipsImage *header) {
    return api.vips_image_get_typeof(header, VIPS_META_ICC_NAME) != 0 ||
           api.vips_image_get_interpretation(header) == VIPS_INTERPRETATION_CMYK;
}

CVipsImage *cvips_thumbnail(const char *path, CVipsImage *header, int max_side, int to_srgb) {
    VipsImage *out = NULL;
    // A box of max_side × max_side bounds the longest side whatever the orientation; thumbnail picks the shrink the
    // loader can do while decoding (JPEG DCT scaling, a HEIF's or WebP's own scaler) and rotates by EXIF orientation.
    ready();
    to_srgb = to_srgb && has_own_colours(header);
    pthread_mutex_lock(&orc_guard);
    int failed = to_srgb
        ? api.vips_thumbnail(path, &out, max_side, "height", max_side, "size", VIPS_SIZE_DOWN, "fail_on",
              VIPS_FAIL_ON_TRUNCATED, "export_profile", "srgb", NULL)
        : api.vips_thumbnail(path, &out, max_side, "height", max_side, "size", VIPS_SIZE_DOWN, "fail_on",
              VIPS_FAIL_ON_TRUNCATED, NULL);
    pthread_mutex_unlock(&orc_guard);
    return failed ? NULL : out;
}

// After an operation wrote *next (or failed): on success *image becomes *next and the old reference is dropped.
// Returns nonzero when the operation failed.
static int cvips_step(VipsImage **image, VipsImage **next, int failed) {
    if (failed) return 1;
    unref(*image);
    *image = *next;
    *next = NULL;
    return 0;
}

unsigned char *cvips_rgb_thumbnail(const char *path, int max_width, int max_height, int *width, int *height) {
    VipsImage *image = NULL, *next = NULL;
    // No profile transform: at 24 pixels it would change nothing one can see, and lcms' intent shifts pure colours.
    ready();
    pthread_mutex_lock(&orc_guard);
    int built = api.vips_thumbnail(path, &image, max_width, "height", max_height, "size", VIPS_SIZE_DOWN, NULL);
    pthread_mutex_unlock(&orc_guard);
    if (built != 0) return NULL;
    // Grey, 16-bit or CMYK sources become 8-bit sRGB; alpha is laid on black, which reads well on dark terminals.
    // Each operation runs before cvips_step reads its output (a call's arguments are evaluated in no set order).
    int failed = api.vips_colourspace(image, &next, VIPS_INTERPRETATION_sRGB, NULL);
    failed = cvips_step(&image, &next, failed);
    if (!failed && api.vips_image_hasalpha(image)) {
        VipsArrayDouble *black = api.vips_array_double_newv(1, 0.0);
        failed = api.vips_flatten(image, &next, "background", black, NULL);
        api.vips_area_unref((VipsArea *)black);
        failed = cvips_step(&image, &next, failed);
    }
    if (!failed && api.vips_image_get_bands(image) > 3) {
        failed = api.vips_extract_band(image, &next, 0, "n", 3, NULL);
        failed = cvips_step(&image, &next, failed);
    }
    if (!failed) {
        failed = api.vips_cast(image, &next, VIPS_FORMAT_UCHAR, NULL);
        failed = cvips_step(&image, &next, failed);
    }
    if (failed || api.vips_image_get_bands(image) != 3) {
        unref(image);
        return NULL;
    }
    size_t length = 0;
    unsigned char *pixels = api.vips_image_write_to_memory(image, &length);
    *width = api.vips_image_get_width(image);
    *height = api.vips_image_get_height(image);
    unref(image);
    if (pixels != NULL && length != (size_t)*width * (size_t)*height * 3) {
        api.g_free(pixels);
        return NULL;
    }
    return pixels;
}

CVipsImage *cvips_upright(const char *path, CVipsImage *header, int to_srgb) {
    // Rotating by 90° reads the source out of order, which a sequential decode cannot do; upright files stream.
    VipsAccess access = ready()->vips_image_get_orientation(header) > 1 ? VIPS_ACCESS_RANDOM : VIPS_ACCESS_SEQUENTIAL;
    VipsImage *in = api.vips_image_new_from_file(path, "access", access, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    if (in == NULL) return NULL;
    VipsImage *upright = NULL;
    int failed = api.vips_autorot(in, &upright, NULL);
    unref(in);
    if (failed) return NULL;
    if (!to_srgb || !api.vips_image_get_typeof(upright, VIPS_META_ICC_NAME)) return upright;
    VipsImage *srgb = NULL;
    failed = api.vips_icc_transform(upright, &srgb, "srgb", "embedded", TRUE, NULL);
    unref(upright);
    return failed ? NULL : srgb;
}

CVipsImage *cvips_all_pages(const char *path, CVipsImage *header, int max_side, int to_srgb) {
    VipsImage *out = NULL;
    ready();
    to_srgb = to_srgb && has_own_colours(header);
    if (max_side > 0) {
        // 8.14's thumbnail takes loader options only in the name (its last [...]): n=-1 loads every page, which it
        // shrinks alike, keeping page-height and the frame delays.
        char *all = malloc(strlen(path) + sizeof "[n=-1]");
        if (all == NULL) return NULL;
        stpcpy(stpcpy(all, path), "[n=-1]");
        pthread_mutex_lock(&orc_guard);
        int failed = to_srgb
            ? api.vips_thumbnail(all, &out, max_side, "height", max_side, "size", VIPS_SIZE_DOWN, "no_rotate", TRUE,
                  "fail_on", VIPS_FAIL_ON_TRUNCATED, "export_profile", "srgb", NULL)
            : api.vips_thumbnail(all, &out, max_side, "height", max_side, "size", VIPS_SIZE_DOWN, "no_rotate", TRUE,
                  "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
        pthread_mutex_unlock(&orc_guard);
        free(all);
        return failed ? NULL : out;
    }
    // Not turned upright: autorot would turn the strip of pages as one image.
    VipsImage *in = api.vips_image_new_from_file(
        path, "n", -1, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    if (in == NULL) return NULL;
    if (!to_srgb || !api.vips_image_get_typeof(in, VIPS_META_ICC_NAME)) return in;
    int failed = api.vips_icc_transform(in, &out, "srgb", "embedded", TRUE, NULL);
    unref(in);
    return failed ? NULL : out;
}

int cvips_page_size(const char *path, int page, int *width, int *height) {
    VipsImage *image = ready()->vips_image_new_from_file(path, "page", page, NULL);
    if (image == NULL) return -1;
    *width = api.vips_image_get_width(image);
    *height = api.vips_image_get_height(image);
    unref(image);
    return 0;
}

// Metadata that can say who, where and with what: stripped on a copy of the header (the pixels are shared).
static VipsImage *without_metadata(VipsImage *image) {
    VipsImage *copy = NULL;
    if (api.vips_copy(image, &copy, NULL)) return NULL;
    gchar **fields = api.vips_image_get_fields(copy);
    for (int i = 0; fields[i] != NULL; i++) {
        const char *name = fields[i];
        if (strncmp(name, "exif-", 5) == 0 || strcmp(name, VIPS_META_XMP_NAME) == 0 ||
            strcmp(name, VIPS_META_IPTC_NAME) == 0 || strcmp(name, VIPS_META_PHOTOSHOP_NAME) == 0 ||
            strcmp(name, VIPS_META_IMAGEDESCRIPTION) == 0 || strncmp(name, "png-comment-", 12) == 0 ||
            strcmp(name, "gif-comment") == 0 || strcmp(name, VIPS_META_ORIENTATION) == 0)
            api.vips_image_remove(copy, name);
    }
    api.g_strfreev(fields);
    return copy;
}

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static void put_le32(unsigned char *p, uint32_t v) {
    p[0] = v & 0xff, p[1] = v >> 8 & 0xff, p[2] = v >> 16 & 0xff, p[3] = v >> 24;
}

// libvips 8.14.1's webpsave ignores `strip` (it writes the profile and a fresh EXIF block): drop the ICCP, EXIF and
// XMP chunks from the RIFF container and their VP8X flags. Returns the new length.
static size_t drop_webp_metadata(unsigned char *webp, size_t length) {
    if (length < 12 || memcmp(webp, "RIFF", 4) != 0 || memcmp(webp + 8, "WEBP", 4) != 0) return length;
    size_t read = 12, write = 12;
    while (read + 8 <= length) {
        size_t chunk = 8 + (size_t)le32(webp + read + 4);
        chunk += chunk & 1;  // chunks are padded to an even size
        if (read + chunk > length) chunk = length - read;
        int drop = memcmp(webp + read, "ICCP", 4) == 0 || memcmp(webp + read, "EXIF", 4) == 0 ||
                   memcmp(webp + read, "XMP ", 4) == 0;
        if (!drop) {
            memmove(webp + write, webp + read, chunk);
            if (memcmp(webp + write, "VP8X", 4) == 0 && chunk > 8) webp[write + 8] &= ~(0x20 | 0x08 | 0x04);
            write += chunk;
        }
        read += chunk;
    }
    put_le32(webp + 4, (uint32_t)(write - 8));
    return write;
}

static int write_file(const char *path, const unsigned char *bytes, size_t length) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        api.vips_error_system(errno, "cvips_save", "cannot create %s", path);
        return -1;
    }
    while (length > 0) {
        ssize_t n = write(fd, bytes, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            api.vips_error_system(n < 0 ? errno : EIO, "cvips_save", "cannot write %s", path);
            close(fd);
            return -1;
        }
        bytes += n, length -= (size_t)n;
    }
    if (close(fd) != 0) {
        api.vips_error_system(errno, "cvips_save", "cannot write %s", path);
        return -1;
    }
    return 0;
}

static int save_webp(VipsImage *image, const char *path, int quality, int strip) {
    void *buffer = NULL;
    size_t length = 0;
    if (api.vips_webpsave_buffer(image, &buffer, &length, "Q", quality, "strip", strip, NULL)) return -1;
    if (strip) length = drop_webp_metadata(buffer, length);
    int failed = write_file(path, buffer, length);
    api.g_free(buffer);
    return failed;
}

int cvips_save(
    CVipsImage *image, const char *path, CVipsFormat format, int quality, int strip, int smallest, int *error_number) {
    errno = 0;
    ready();
    // (api.g_object_ref) in parentheses: GLib defines a g_object_ref macro.
    VipsImage *in = strip ? without_metadata(image) : (VipsImage *)(api.g_object_ref)(image);
    if (in == NULL) return -1;
    if (format == CVIPS_JPEG && api.vips_image_hasalpha(in)) {
        // JPEG has no alpha: transparent parts become white, as a browser shows them, not libvips' default black.
        VipsArrayDouble *white = api.vips_array_double_newv(1, 255.0);
        VipsImage *flat = NULL;
        int failed = api.vips_flatten(in, &flat, "background", white, NULL);
        api.vips_area_unref((VipsArea *)white);
        unref(in);
        if (failed) return -1;
        in = flat;
    }
    int failed;
    switch (format) {
    case CVIPS_JPEG:
        failed = api.vips_jpegsave(in, path, "Q", quality, "strip", strip, "optimize_coding", smallest, NULL);
        break;
    case CVIPS_WEBP: failed = save_webp(in, path, quality, strip); break;
    case CVIPS_PNG:
        // Every row filter tried, as Pillow and libpng's tools do: without, a resized gradient came out 8 times larger
        // (and larger than the original), for about a tenth more encoding time.
        failed = api.vips_pngsave(in, path, "strip", strip, "filter", VIPS_FOREIGN_PNG_FILTER_ALL, NULL);
        break;
    case CVIPS_TIFF:
        // Lossless like the original, but compressed: an uncompressed TIFF would be larger than most sources.
        failed = api.vips_tiffsave(in, path, "strip", strip, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, NULL);
        break;
    case CVIPS_GIF: failed = api.vips_gifsave(in, path, "strip", strip, NULL); break;
    default: failed = -1; break;
    }
    // errno is the thread's own: the error buffer is the process's, and another worker may have emptied it.
    if (failed && error_number) *error_number = errno;
    unref(in);
    return failed;
}

CVipsImage *cvips_noise(int width, int height) {
    VipsImage *noise = NULL, *rgb = NULL, *bytes = NULL, *out = NULL;
    if (ready()->vips_gaussnoise(&noise, width, height, "mean", 128.0, "sigma", 40.0, NULL)) return NULL;
    int failed = api.vips_bandjoin_const1(noise, &rgb, 128.0, NULL) ||
                 api.vips_bandjoin_const1(rgb, &bytes, 64.0, NULL);
    if (!failed) {
        VipsImage *three = bytes;
        failed = api.vips_cast(three, &out, VIPS_FORMAT_UCHAR, NULL);
    }
    unref(noise);
    if (rgb) unref(rgb);
    if (bytes) unref(bytes);
    if (failed) return NULL;
    VipsImage *tagged = NULL;
    failed = api.vips_copy(out, &tagged, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    unref(out);
    return failed ? NULL : tagged;
}

CVipsImage *cvips_from_rgb(const unsigned char *rgb, int width, int height) {
    VipsImage *image = ready()->vips_image_new_from_memory_copy(
        rgb, (size_t)width * (size_t)height * 3, width, height, 3, VIPS_FORMAT_UCHAR);
    if (image == NULL) return NULL;
    VipsImage *tagged = NULL;
    int failed = api.vips_copy(image, &tagged, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    unref(image);
    return failed ? NULL : tagged;
}

int cvips_save_heic(CVipsImage *image, const char *path, int quality) {
    return ready()->vips_heifsave(image, path, "Q", quality, NULL);
}

void cvips_set_string(CVipsImage *image, const char *name, const char *value) {
    ready()->vips_image_set_string(image, name, value);
}

void cvips_set_int(CVipsImage *image, const char *name, int value) { ready()->vips_image_set_int(image, name, value); }

char *cvips_field_names(CVipsImage *image, const char *prefix) {
    gchar **fields = ready()->vips_image_get_fields(image);
    size_t total = 0, prefix_length = strlen(prefix);
    for (int i = 0; fields[i] != NULL; i++)
        if (strncmp(fields[i], prefix, prefix_length) == 0) total += strlen(fields[i]) + 1;
    char *names = NULL;
    if (total > 0 && (names = malloc(total)) != NULL) {
        char *end = names;
        for (int i = 0; fields[i] != NULL; i++)
            if (strncmp(fields[i], prefix, prefix_length) == 0) end = stpcpy(end, fields[i]), *end++ = '\n';
        end[-1] = '\0';
    }
    api.g_strfreev(fields);
    // cvips_free_string frees with g_free, which is free() since GLib 2.46.
    return names;
}
