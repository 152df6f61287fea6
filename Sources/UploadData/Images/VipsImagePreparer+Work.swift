import Foundation
import UploadDomain

/// The blocking part, run on a worker thread.
extension VipsImagePreparer {
    /// Prepares `item`, an image of MIME type `type`; see `prepare(_:options:)`.
    func prepareNow(
        _ item: UploadItem, type: String, options: ImageOptions, encoding: ImageEncoding
    ) throws(UploadError) -> PreparedImage? {
        if let why = VipsLibrary.loadError() {
            throw UploadError(.imageUnreadable, file: item.relativePath, cause: why)
        }
        // libvips opens the image by its path: the path must hold the scanned file before, and after (below).
        try ScannedFile.check(item)
        // Lazy: only the header is read, so an image declaring billions of pixels is refused before any decoding.
        guard let header = VipsImage.header(path: item.path) else { throw failure(item) }
        let pixels = Int64(header.width) * Int64(header.height)
        guard pixels <= options.maxPixels else {
            let cause = "\(header.width)x\(header.height) pixels, more than --max-pixels \(options.maxPixels)"
            throw UploadError(.imageTooLarge, file: item.relativePath, cause: cause)
        }
        if header.pages > 1, ImageOutputFormat.pagedTypes.contains(type) {
            return try preparePages(item, type: type, header: header, options: options)
        }
        let fits = options.maxDimension.map { max(header.width, header.height) <= $0 } ?? true
        if fits, options.convert == nil, !options.stripMetadata { return nil }
        if fits, options.convert == nil, type == "image/jpeg" {
            switch try stripLosslessly(item, width: header.width, height: header.height) {
            case .copied(let prepared): return prepared
            case .unchanged: return nil
            case .notJPEG: break
            }
        }

        try checkWhole(item, type: type)
        // Stripping drops the colour profile with the rest (libvips 8.14 has no way to keep it): the pixels are
        // converted to sRGB first, which is how an image without a profile is shown.
        let toSRGB = options.stripMetadata
        let image =
            if let maxDimension = options.maxDimension, !fits {
                VipsImage.thumbnail(path: item.path, header: header, maxSide: maxDimension, toSRGB: toSRGB)
            } else {
                // Not resized, but still upright: the orientation tag goes with the metadata or the new format.
                VipsImage.upright(path: item.path, header: header, toSRGB: toSRGB)
            }
        guard let image else { throw failure(item) }
        let format = ImageOutputFormat.forInput(type, options: options)
        return try write(image, of: item, type: type, format: format, options: options, encoding: encoding)
    }

    /// An animated GIF or WebP, or a multi-page TIFF: every page shrunk and stripped alike, in the file's own format,
    /// since JPEG holds one frame. `--convert` alone leaves it as it is (the run's note says so).
    /// - Throws: `metadataNotStripped` when `--strip-metadata` is asked and the pages cannot be written again
    ///   (a TIFF whose pages differ in size): sending it as it is would send the metadata. `imageNotPrepared` when
    ///   pages larger than `--max-dimension` cannot be shrunk (the same TIFF): sent as it is, it would be larger.
    func preparePages(
        _ item: UploadItem, type: String, header: VipsImage, options: ImageOptions
    ) throws(UploadError) -> PreparedImage? {
        var largest = max(header.width, header.height)
        if header.loader == "tiffload", let maxDimension = options.maxDimension {
            // The header is the first page's; a TIFF's other pages may be larger (a GIF's and a WebP's frames share
            // one canvas), and libvips writes the pages of a file at one size.
            guard let sizes = VipsImage.pageSizes(path: item.path, pages: header.pages) else { throw failure(item) }
            largest = sizes.map { max($0.width, $0.height) }.max() ?? largest
            if largest > maxDimension, let first = sizes.first, sizes.contains(where: { $0 != first }),
                let small = sizes.min(by: { $0.width * $0.height < $1.width * $1.height }),
                let big = sizes.max(by: { max($0.width, $0.height) < max($1.width, $1.height) })
            {
                let cause =
                    "cannot shrink its \(sizes.count) pages to --max-dimension \(maxDimension): they differ in size "
                    + "(\(small.width)x\(small.height) to \(big.width)x\(big.height)), and libvips writes a TIFF's "
                    + "pages at one size"
                throw UploadError(.imageNotPrepared, file: item.relativePath, cause: cause)
            }
        }
        let fits = options.maxDimension.map { largest <= $0 } ?? true
        if fits, !options.stripMetadata { return nil }
        // Every page is decoded: the guard against decompression bombs counts them all.
        let pixels = Int64(header.width) * Int64(header.height) * Int64(header.pages)
        guard pixels <= options.maxPixels else {
            let cause =
                "\(header.width)x\(header.height) pixels in \(header.pages) pages, more than --max-pixels \(options.maxPixels)"
            throw UploadError(.imageTooLarge, file: item.relativePath, cause: cause)
        }
        try checkWhole(item, type: type)
        guard
            let image = VipsImage.allPages(
                path: item.path, header: header, maxSide: fits ? nil : options.maxDimension,
                toSRGB: options.stripMetadata)
        else {
            let error = failure(item)
            guard error.code == .imageUnreadable else { throw error }
            let reason = error.cause ?? "libvips cannot write them again"
            guard options.stripMetadata else {
                // Only shrinking was asked (the pages are too large): sent as it is, the file would not fit.
                let cause =
                    "cannot shrink its \(header.pages) pages to --max-dimension "
                    + "\(options.maxDimension ?? largest): \(reason)"
                throw UploadError(.imageNotPrepared, file: item.relativePath, cause: cause)
            }
            throw UploadError(
                .metadataNotStripped, file: item.relativePath, cause: "from its \(header.pages) pages: " + reason)
        }
        let format = ImageOutputFormat.same(as: type) ?? .gif
        // Quality applies to WebP only; GIF and TIFF are written losslessly.
        return try write(image, of: item, type: type, format: format, options: options, encoding: .fastest)
    }

    /// Fails a GIF whose data stops short before it is decoded: libvips would send what it made of it
    /// (`GIFTruncation`), where a truncated JPEG, PNG, WebP, TIFF or HEIF fails in its decoder.
    private func checkWhole(_ item: UploadItem, type: String) throws(UploadError) {
        guard type == "image/gif", let cut = GIFTruncation.cut(path: item.path) else { return }
        throw UploadError(.imageUnreadable, file: item.relativePath, cause: "truncated GIF: \(cut)")
    }

    /// What stripping a JPEG without decoding it gave.
    private enum LosslessStrip {
        /// A copy without the metadata, the pixels untouched.
        case copied(PreparedImage)
        /// Nothing to strip: the original is sent.
        case unchanged
        /// Not a JPEG read there: libvips re-encodes it, or says why it cannot.
        case notJPEG
    }

    /// `item`, a JPEG, stripped of its metadata by `JPEGMetadataStripper`.
    private func stripLosslessly(_ item: UploadItem, width: Int, height: Int) throws(UploadError) -> LosslessStrip {
        let path = try folder.newFile(extension: "jpg", for: item.relativePath)
        let source = open(item.path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else {
            throw UploadError(.fileUnreadable, file: item.relativePath, cause: String(cString: strerror(errno)))
        }
        defer { close(source) }
        let destination = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard destination >= 0 else {
            let cause = "in \((path as NSString).deletingLastPathComponent): \(String(cString: strerror(errno)))"
            throw UploadError(.preparedCopyUnwritable, file: item.relativePath, cause: cause)
        }
        let outcome: JPEGMetadataStripper.Outcome
        do {
            defer { close(destination) }
            outcome = try JPEGMetadataStripper.strip(from: source, to: destination)
        } catch {
            unlink(path)
            switch error {
            case .notJPEG: return .notJPEG
            case .read(let number):
                throw UploadError(.fileUnreadable, file: item.relativePath, cause: String(cString: strerror(number)))
            case .write(let number):
                let cause = "in \((path as NSString).deletingLastPathComponent): \(String(cString: strerror(number)))"
                throw UploadError(.preparedCopyUnwritable, file: item.relativePath, cause: cause)
            }
        }
        do {
            try ScannedFile.check(item)
        } catch {
            unlink(path)
            throw error
        }
        guard outcome.changed else {
            unlink(path)
            return .unchanged
        }
        let sideways = (5...8).contains(outcome.orientation)
        return .copied(
            try describe(
                path, of: item, format: .jpeg, type: "image/jpeg", width: sideways ? height : width,
                height: sideways ? width : height))
    }

    /// Saves `image` into a new file of the folder and describes it; on failure no file is left.
    private func write(
        _ image: VipsImage, of item: UploadItem, type: String, format: ImageOutputFormat, options: ImageOptions,
        encoding: ImageEncoding
    ) throws(UploadError) -> PreparedImage {
        let side = max(image.width, image.pageHeight)
        if let limit = format.maxSide, side > limit {
            // The encoder would say only "image too large", which reads as if the image could not be decoded.
            let cause =
                "cannot encode as \(format.name): a side of \(side) px, \(format.name) allows at most \(limit) "
                + "(--max-dimension \(limit) would shrink it)"
            throw UploadError(.imageNotPrepared, file: item.relativePath, cause: cause)
        }
        let path = try folder.newFile(extension: format.fileExtension, for: item.relativePath)
        if case .failure(let saving) = image.save(
            to: path, format: format, quality: options.quality, strip: options.stripMetadata,
            smallest: encoding == .smallest)
        {
            let error = failure(item, writing: path, errorNumber: saving.errorNumber)
            unlink(path)
            throw error
        }
        do {
            // The pixels are read while the copy is written.
            try ScannedFile.check(item)
        } catch {
            unlink(path)
            throw error
        }
        return try describe(path, of: item, format: format, type: type, width: image.width, height: image.pageHeight)
    }

    /// The prepared file at `path`, of `width`×`height` pixels; on failure it is removed.
    private func describe(
        _ path: String, of item: UploadItem, format: ImageOutputFormat, type: String, width: Int, height: Int
    ) throws(UploadError) -> PreparedImage {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let cause = String(cString: strerror(errno))
            unlink(path)
            throw UploadError(.preparedCopyUnwritable, file: item.relativePath, cause: "at \(path): \(cause)")
        }
        let sameFormat = ImageOutputFormat.same(as: type) == format
        return PreparedImage(
            path: path, remoteName: sameFormat ? item.relativePath : format.remoteName(for: item.relativePath),
            contentType: format.contentType, size: Int64(status.st_size), width: width, height: height,
            modified: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
    }

    /// The error for a libvips failure on `item` (while writing `output`, if given), from its error buffer.
    /// `errorNumber`: the system's error of the failed write, which says a full disk even when another worker's
    /// failure emptied libvips' process-wide error buffer first.
    func failure(_ item: UploadItem, writing output: String? = nil, errorNumber: Int32 = 0) -> UploadError {
        var lines = VipsLibrary.takeErrorLines(about: [item.path] + (output.map { [$0] } ?? []))
        let message = lines.isEmpty ? "unknown libvips error" : VipsLibrary.oneLine(lines.joined(separator: "\n"))
        // The file vanished or became unreadable since the scan: say so, rather than blame its content.
        if access(item.path, R_OK) != 0 {
            return UploadError(.fileUnreadable, file: item.relativePath, cause: String(cString: strerror(errno)))
        }
        if let output {
            let folder = (output as NSString).deletingLastPathComponent
            if let cause = Self.writeCause(errorNumber: errorNumber, message: message, folder: folder) {
                return UploadError(.preparedCopyUnwritable, file: item.relativePath, cause: "in \(folder): \(cause)")
            }
        }
        // An encoder whose source failed to decode says it was "unable to write to target" the copy: the decoder's
        // words say why.
        if let output, lines.contains(where: { !$0.contains(output) }) { lines.removeAll { $0.contains(output) } }
        let decoding = lines.isEmpty ? message : VipsLibrary.oneLine(lines.joined(separator: "\n"))
        // libvips names the file by its absolute path; the error already names it relative to the folder argument.
        // The prepared copy's path (a write error) says no more than the folder's name in the error above.
        var cause = decoding.replacingOccurrences(of: "\"\(item.path)\"", with: "the file")
            .replacingOccurrences(of: item.path, with: item.relativePath)
        if let output { cause = cause.replacingOccurrences(of: output, with: "the prepared copy") }
        return UploadError(.imageUnreadable, file: item.relativePath, cause: cause)
    }

    /// Why a write into `folder` failed, in the system's words, or nil when the image was at fault: the write's
    /// errno, else libvips' message, else a folder with no block left. libvips' clean-up after a failed write can
    /// leave another errno behind, and libjpeg says only "write error".
    static func writeCause(errorNumber: Int32, message: String, folder: String) -> String? {
        if writeErrorNumbers.contains(errorNumber) { return String(cString: strerror(errorNumber)) }
        if let cause = writeErrors.first(where: message.contains) { return cause }
        var info = statvfs()
        return statvfs(folder, &info) == 0 && info.f_bavail == 0 ? String(cString: strerror(ENOSPC)) : nil
    }

    /// The system's words for the write failures libvips reports with errno's text (a full disk, a quota, …).
    static let writeErrorNumbers: Set<Int32> = [ENOSPC, EDQUOT, EFBIG, EROFS, EIO, EACCES]
    static let writeErrors: [String] = writeErrorNumbers.map { String(cString: strerror($0)) }
}
