import Foundation
import UploadDomain

/// Prepares images with libvips (issue 16): shrinks them to `--max-dimension` while decoding, turns them upright,
/// re-encodes them (`--convert`, `--quality`), strips their metadata, and refuses those declaring more than
/// `--max-pixels`. The originals are never touched: each result is a new file in a private temporary folder.
///
/// Work runs on a few threads of its own (`VipsWorkers`), never on the caller's. libvips is loaded on first use.
///
/// The folder is `$TMPDIR/uploader-tui-XXXXXX` (else under /tmp), one per process. The session discards each
/// prepared file when its upload ends; the executable must call `removeTemporaryFolder()` once the session is over
/// (it ends the process with `_exit`, so no exit handler would).
public final class VipsImagePreparer: ImagePreparing {
    let folder: PreparedImageFolder
    let workers: VipsWorkers

    /// A preparer writing into the process's temporary folder.
    public convenience init() {
        self.init(folder: .process, workers: .shared)
    }

    /// A preparer writing into `folder` (tests give each their own).
    init(folder: PreparedImageFolder, workers: VipsWorkers = .shared) {
        self.folder = folder
        self.workers = workers
    }

    /// Prepares `item` with `options` into the temporary folder; `encoding` chooses JPEG's Huffman tables.
    /// - Returns: the prepared file, or nil when the file is sent as it is: `options` change nothing, it is not an
    ///   image type handled here, it is animated or has several pages and only `--convert` applies (JPEG holds one
    ///   frame), or nothing needs doing (no `--convert`, no `--strip-metadata`, and it already fits `--max-dimension`).
    /// - Throws: `UploadError` naming the file: `imageTooLarge` (the header declares more than `maxPixels`, refused
    ///   before decoding), `imageUnreadable` (not decodable, with libvips' reason), `fileUnreadable` (the file is gone
    ///   or unreadable), `preparedCopyUnwritable` (a full temporary disk), `metadataNotStripped` (pages that cannot
    ///   be written again while `--strip-metadata` is asked). No partial file is left behind.
    public func prepare(
        _ item: UploadItem, options: ImageOptions, encoding: ImageEncoding = .smallest
    ) async throws(UploadError) -> PreparedImage? {
        guard !options.changesNothing else { return nil }
        guard let type = Self.imageType(of: item) else {
            if Self.keepsMetadata(item, options: options) {
                throw UploadError(
                    .metadataNotStripped, file: item.relativePath,
                    cause: "from \(item.contentType): the image options cannot write it again")
            }
            return nil
        }
        return try await workers.result { [self] in
            Result { () throws(UploadError) in
                // What libvips says while this file is prepared is its own, and goes with it.
                try VipsLibrary.job { () throws(UploadError) in
                    try prepareNow(item, type: type, options: options, encoding: encoding)
                }
            }
        }.get()
    }

    /// Removes a prepared file; does nothing for a path outside the temporary folder.
    public func discard(_ prepared: PreparedImage) {
        guard folder.contains(prepared.path) else { return }
        unlink(prepared.path)
    }

    /// Why libvips cannot be used here (not installed, not loadable), or nil: checked before a run that needs it.
    public static func libraryProblem() -> String? {
        VipsLibrary.loadError().map { "image options need libvips (Debian's libvips42): \($0)" }
    }

    /// Removes the temporary folder and any prepared file still in it. The executable calls it once its session has
    /// ended (on every exit path, SIGINT included); files prepared afterwards go to a new folder.
    public func removeTemporaryFolder() {
        folder.remove()
    }

    /// True when `item` is an image whose metadata holds a GPS position (EXIF GPS latitude or longitude, a TIFF's GPS
    /// directory, or XMP, a GIF's too), read from the header only; false for anything else or anything unreadable.
    /// For the warning "12 of 24 files carry a GPS location; --strip-metadata removes it".
    public func carriesLocation(_ item: UploadItem) async -> Bool {
        await inspect(item)?.hasLocation ?? false
    }

    /// The pixel size and whether the metadata holds a GPS location, read from the header only; nil for a file that
    /// is not an image handled here or cannot be read (`--dry-run`).
    public func inspect(_ item: UploadItem) async -> (width: Int, height: Int, hasLocation: Bool)? {
        guard Self.imageType(of: item) != nil else { return nil }
        let result: Result<(width: Int, height: Int, hasLocation: Bool)?, Never> = await workers.result {
            // libvips opens by path: what is there must still be the scanned file (not a FIFO it would wait on).
            guard VipsLibrary.loadError() == nil, (try? ScannedFile.check(item)) != nil else { return .success(nil) }
            // What libvips says of the header goes with the job: the reason would only say why a file is no image.
            return VipsLibrary.job {
                guard let header = VipsImage.header(path: item.path) else { return .success(nil) }
                let location =
                    header.hasLocation || (header.loader == "tiffload" && TIFFLocation.present(path: item.path))
                    || (header.loader == "gifload" && GIFLocation.present(path: item.path))
                return .success((header.width, header.height, location))
            }
        }
        switch result {
        case .success(let found): return found
        }
    }

    /// The MIME type `item` is prepared as, or nil when it is not an image handled here: its sniffed type, else (its
    /// first bytes say nothing known) the type of its extension, so a broken `.jpg` fails as an unreadable image
    /// instead of going out unprepared.
    /// The name `item` may be stored under once prepared with `options`: a converted image's extension changes
    /// (`x.png` with `--convert jpeg` is `x.jpg`; a HEIC resized or stripped becomes JPEG). Whether an image is
    /// prepared at all may depend on its pixels, which are not read here: the name it would take if it were.
    /// - Parameter paged: the paths of `pagedImages`, which keep their format.
    public static func remoteName(of item: UploadItem, options: ImageOptions, paged: Set<String> = []) -> String {
        guard !options.changesNothing, let type = imageType(of: item), !paged.contains(item.path) else {
            return item.relativePath
        }
        let format = ImageOutputFormat.forInput(type, options: options)
        return ImageOutputFormat.same(as: type) == format
            ? item.relativePath : format.remoteName(for: item.relativePath)
    }

    /// An image the options cannot prepare that may carry metadata (a camera's raw file, a Photoshop file): under
    /// `--strip-metadata` it is not sent, rather than sent with its location.
    static func keepsMetadata(_ item: UploadItem, options: ImageOptions) -> Bool {
        options.stripMetadata && item.contentType.hasPrefix("image/") && imageType(of: item) == nil
            && (MediaType.mayCarryLocation(item.contentType)
                || item.sniffedType.map(MediaType.mayCarryLocation) == true)
    }

    /// What the image options leave as they are because libvips here cannot read them (BMP, icons, raw files):
    /// "2 images (bmp) are sent as they are: …", or nil when every image can be prepared. Those `--strip-metadata`
    /// refuses fail instead, each with its line.
    public static func unpreparedNote(_ items: [UploadItem], options: ImageOptions) -> String? {
        guard !options.changesNothing else { return nil }
        var types: [String: Int] = [:]
        for item in items where item.skipReason == nil && !keepsMetadata(item, options: options) {
            let type = item.contentType
            guard type.hasPrefix("image/"), imageType(of: item) == nil else { continue }
            types[String(type.dropFirst("image/".count)).replacingOccurrences(of: "x-", with: ""), default: 0] += 1
        }
        guard !types.isEmpty else { return nil }
        let count = types.values.reduce(0, +)
        let names = types.keys.sorted().joined(separator: ", ")
        let sent =
            count == 1 ? "1 image (\(names)) is sent as it is" : "\(count) images (\(names)) are sent as they are"
        return sent + ": the image options read JPEG, PNG, WebP, GIF, TIFF, HEIC and AVIF"
    }

    /// The paths of the animated GIFs and WebPs and multi-page TIFFs among `items`, which `--convert` leaves in
    /// their format (a JPEG holds one frame); read from their headers, and only under `--convert` (empty otherwise,
    /// and without libvips). Blocks while it reads.
    public static func pagedImages(_ items: [UploadItem], options: ImageOptions) -> Set<String> {
        guard options.convert != nil, VipsLibrary.loadError() == nil else { return [] }
        var paged: Set<String> = []
        for item in items where item.skipReason == nil {
            guard let type = imageType(of: item), ImageOutputFormat.pagedTypes.contains(type),
                (try? ScannedFile.check(item)) != nil
            else { continue }
            if VipsLibrary.job({ (VipsImage.header(path: item.path)?.pages ?? 1) > 1 }) { paged.insert(item.path) }
        }
        return paged
    }

    /// "2 animated or multi-page images keep their format under --convert (a JPEG holds one frame): a.gif, b.tif",
    /// or nil when `paged` is empty.
    public static func pagedNote(_ items: [UploadItem], paged: Set<String>) -> String? {
        let names = items.filter { paged.contains($0.path) }.map { Sanitizer.displayName($0.relativePath) }
        guard !names.isEmpty else { return nil }
        let listed = names.prefix(5).joined(separator: ", ") + (names.count > 5 ? " and \(names.count - 5) more" : "")
        let count =
            names.count == 1
            ? "1 animated or multi-page image keeps its" : "\(names.count) animated or multi-page images keep their"
        return "\(count) format under --convert (a JPEG holds one frame; resizing and stripping still apply): \(listed)"
    }

    /// The type `item` is sent as once prepared with `options`, or nil when the options leave it as it is.
    /// - Parameter paged: the paths of `pagedImages`, which keep their format.
    public static func preparedType(of item: UploadItem, options: ImageOptions, paged: Set<String> = []) -> String? {
        guard !options.changesNothing, let type = imageType(of: item) else { return nil }
        return paged.contains(item.path) ? type : ImageOutputFormat.forInput(type, options: options).contentType
    }

    /// The type of an image the options can prepare. The scan's type, not the sniffed one: a camera's raw file is a
    /// TIFF underneath, whose first image libvips would read is a small preview, not the photo.
    static func imageType(of item: UploadItem) -> String? {
        ImageOutputFormat.inputTypes.contains(item.contentType) ? item.contentType : nil
    }
}
