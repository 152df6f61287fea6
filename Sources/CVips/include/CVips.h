#ifndef CVIPS_H
#define CVIPS_H
// libvips (Debian's libvips42, 8.14), loaded at run time with dlopen like libcurl (Sources/CCurl): linked, it and its
// ~100 libraries would slow every start and grow it, though most runs prepare no image. Its API is variadic
// (`vips_thumbnail(path, &out, width, "height", h, NULL)`), which Swift cannot call: one typed function per use.
// This header includes no libvips or GLib header, so neither leaks into Swift: an image is an opaque pointer.
#include <stddef.h>

/// A libvips image (a `VipsImage`); release it with `cvips_release`.
typedef struct _VipsImage CVipsImage;

/// The encoders `cvips_save` can use.
typedef enum { CVIPS_JPEG = 0, CVIPS_PNG, CVIPS_WEBP, CVIPS_TIFF, CVIPS_GIF } CVipsFormat;

/// Loads libvips and initialises it once (thread-safe); NULL once it is ready, else why it cannot be used.
const char *cvips_load_error(void);

/// libvips' pending error messages, then clears them; NULL when there are none. Free with `cvips_free_string`.
/// The buffer is process-wide, so a failure on another thread at the same moment can add its lines.
char *cvips_take_error(void);
void cvips_free_string(char *text);

/// Opens `path` lazily: reads the header only (size, metadata); pixels are decoded when saved. NULL on failure.
CVipsImage *cvips_open(const char *path);
int cvips_width(CVipsImage *image);
int cvips_height(CVipsImage *image);
/// Pages or frames the file holds (an animated GIF or WebP, a multi-page TIFF); 1 for most images.
int cvips_pages(CVipsImage *image);
/// The height of one page of an image of pages stacked (its height when it has one).
int cvips_page_height(CVipsImage *image);
/// The loader libvips chose ("jpegload", "heifload", …); valid while the image lives.
const char *cvips_loader(CVipsImage *image);
/// 1 when the metadata holds a GPS position (EXIF GPS latitude or longitude, or an XMP GPS field).
int cvips_has_location(CVipsImage *image);
void cvips_release(CVipsImage *image);
/// Returns the memory freed since the last call to the system; called after each image.
void cvips_trim(void);

/// `path` shrunk on load so its longest side is at most `max_side` (never enlarged) and turned upright by its EXIF
/// orientation; with `to_srgb`, an embedded colour profile, or CMYK, is converted to sRGB (an image without a profile
/// is sRGB already). `header` is the file opened by `cvips_open`. NULL on failure.
CVipsImage *cvips_thumbnail(const char *path, CVipsImage *header, int max_side, int to_srgb);
/// `path` at full size, turned upright; with `to_srgb`, an embedded profile is converted to sRGB. `header` is the
/// file opened by `cvips_open` (its orientation decides whether the decode can be sequential). NULL on failure.
CVipsImage *cvips_upright(const char *path, CVipsImage *header, int to_srgb);

/// Every page or frame of `path` (an animated GIF or WebP, a multi-page TIFF) as one image of pages stacked, each
/// shrunk to fit `max_side` when it is above 0, never turned; with `to_srgb`, an embedded profile, or CMYK, is
/// converted to sRGB. `header` is the file opened by `cvips_open`. Saving it as GIF, WebP or TIFF writes the pages
/// again. NULL on failure (pages of different sizes).
CVipsImage *cvips_all_pages(const char *path, CVipsImage *header, int max_side, int to_srgb);
/// The size of page `page` (from 0) of `path`, read from its header: a TIFF's pages may differ, while its first
/// page's is all `cvips_open` tells. Returns 0, else -1.
int cvips_page_size(const char *path, int page, int *width, int *height);
/// `path` as at most `max_width`×`max_height` 8-bit sRGB pixels (shrunk on load, never enlarged, upright, alpha
/// flattened onto black), for the screen's preview. Returns the pixels, 3 bytes each, rows top to bottom, and sets
/// `*width` and `*height`; NULL on failure. Free with `cvips_free_string`.
unsigned char *cvips_rgb_thumbnail(const char *path, int max_width, int max_height, int *width, int *height);

/// Encodes `image` into `path`. `quality` (1–100) is for JPEG and WebP; `strip` drops all metadata (EXIF, XMP,
/// IPTC and the colour profile); `smallest` gives a JPEG optimised Huffman tables (same pixels, fewer bytes, more
/// CPU). Returns 0, else -1 with the reason in the error buffer.
/// On failure `*error_number` is the system's error of the failed write, or 0 when the image was at fault.
int cvips_save(
    CVipsImage *image, const char *path, CVipsFormat format, int quality, int strip, int smallest, int *error_number);

// For tests, which make their images through libvips.

/// A `width`×`height` sRGB image of 8-bit noise in 3 bands.
CVipsImage *cvips_noise(int width, int height);
/// A `width`×`height` sRGB image of the given pixels, 3 bytes each, rows top to bottom (copied).
CVipsImage *cvips_from_rgb(const unsigned char *rgb, int width, int height);
/// Encodes `image` as HEIC (HEVC) with its metadata, as a phone writes it. Returns 0, else -1.
int cvips_save_heic(CVipsImage *image, const char *path, int quality);
/// Sets a metadata field as text ("exif-ifd3-GPSLatitude" = "51/1 30/1 0/1"; savers write "exif-*" fields).
void cvips_set_string(CVipsImage *image, const char *name, const char *value);
/// Sets an integer metadata field ("orientation" = 6).
void cvips_set_int(CVipsImage *image, const char *name, int value);
/// Names of the image's metadata fields that start with `prefix`, separated by newlines; NULL when none. Free with
/// `cvips_free_string`.
char *cvips_field_names(CVipsImage *image, const char *prefix);
#endif
