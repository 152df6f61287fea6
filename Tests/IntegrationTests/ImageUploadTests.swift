import Foundation
import Testing

@testable import UploadData

/// Issue 16 with the real binary, libvips and the reference server: what arrives is the prepared image.
@Suite("Image-aware uploads", .serialized)
struct ImageUploadTests {
    let binary = ChildProcess.uploaderBinary

    /// Saves a noise image of `width`×`height` at `path` in `format`, with `configure` setting its metadata.
    private func image(
        _ path: String, width: Int, height: Int, format: ImageOutputFormat, configure: (VipsImage) -> Void = { _ in }
    ) throws {
        guard VipsLibrary.loadError() == nil, let image = VipsImage.noise(width: width, height: height) else {
            throw TestFailure(description: "libvips: \(VipsLibrary.loadError() ?? "no image")")
        }
        configure(image)
        guard case .success = image.save(to: path, format: format, quality: 90, strip: false) else {
            throw TestFailure(description: "saving \(path): \(VipsLibrary.takeError(about: [path]))")
        }
    }

    private func sidewaysPhotoWithGPS(_ path: String) throws {
        try image(path, width: 4000, height: 3000, format: .jpeg) { image in
            image.set("orientation", 6)
            image.set("exif-ifd3-GPSLatitudeRef", "N")
            image.set("exif-ifd3-GPSLatitude", "51/1 30/1 0/1")
            image.set("exif-ifd3-GPSLongitudeRef", "W")
            image.set("exif-ifd3-GPSLongitude", "0/1 7/1 0/1")
        }
    }

    /// A phone's HEIC of noise that carries a GPS position: made from a JPEG, since libvips' HEIC saver copies an
    /// EXIF block but does not make one from fields.
    private func heicWithGPS(_ path: String, width: Int, height: Int) throws {
        let jpeg = path + ".jpg"
        defer { unlink(jpeg) }
        try image(jpeg, width: width, height: height, format: .jpeg) { image in
            image.set("exif-ifd3-GPSLatitudeRef", "N")
            image.set("exif-ifd3-GPSLatitude", "51/1 30/1 0/1")
        }
        guard let decoded = VipsImage.header(path: jpeg), decoded.saveHEIC(to: path, quality: 50) else {
            throw TestFailure(description: "saving \(path): \(VipsLibrary.takeError(about: [path]))")
        }
    }

    /// The prepared files' folders under `tmp` that still hold a file.
    private func leftovers(_ tmp: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: tmp)) ?? []).filter { $0.contains(".") }
    }

    @Test("a sideways photo with GPS arrives upright, within --max-dimension and without GPS; PNG converts to JPEG")
    func preparedImagesArrive() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("images")
        let tmp = try TestFolder("tmp")
        try sidewaysPhotoWithGPS(folder.path + "/photo.jpg")
        try image(folder.path + "/shot.png", width: 800, height: 600, format: .png)
        try folder.write("notes.txt", size: 300, seed: 3)
        try folder.write("cut.jpg", size: 3_000, seed: 4, prefix: Magic.jpeg)  // not a decodable JPEG
        let journal = folder.path + ".journal.sqlite"
        let arguments = [
            folder.path, "--to", server.url("/datasets/img/images"), "--json", "--journal", journal,
            "--max-dimension", "1600", "--strip-metadata", "--convert", "jpeg", "--quality", "70",
        ]
        let run = try await ChildProcess.run(binary, arguments, environment: ["TMPDIR": tmp.path])
        #expect(run.status == 1, "cut.jpg fails, the rest go on: \(run.standardError)")
        let events = try ndjson(run.standardOutput)
        let prepared = try #require(
            events.first { $0["event"] as? String == "prepared" && $0["file"] as? String == "photo.jpg" })
        #expect(prepared["width"] as? Int == 1200 && prepared["height"] as? Int == 1600)
        #expect((prepared["bytes_after"] as? Int ?? .max) < (prepared["bytes_before"] as? Int ?? 0))
        let kinds = events.filter { $0["file"] as? String == "photo.jpg" }.compactMap { $0["event"] as? String }
            .filter { $0 != "progress" }
        #expect(kinds == ["queued", "preparing", "prepared", "started", "modeling", "done"])
        #expect(run.standardError.contains("cut.jpg: cannot decode image: "), "\(run.standardError)")
        #expect(run.standardError.contains("prepared  shot.png → shot.jpg 800×600"), "\(run.standardError)")
        #expect(run.standardError.contains("saved by preparing"))
        #expect((events.last?["bytes_saved"] as? Int ?? 0) > 0)

        // The server's own reading of what it stored, as its answer for each file reports it.
        func stored(_ name: String) throws -> [String: Any] {
            let done = try #require(events.first { $0["event"] as? String == "done" && $0["file"] as? String == name })
            return try #require(done["result"] as? [String: Any], "\(done)")
        }
        let photo = try stored("photo.jpg")
        #expect(photo["path"] as? String == "datasets/img/photo.jpg")
        #expect(photo["width"] as? Int == 1200 && photo["height"] as? Int == 1600)
        #expect(photo["gps"] as? Bool == false && photo["exif"] as? Bool == false)
        #expect(photo["orientation"] is NSNull)
        let shot = try stored("shot.png")
        #expect(shot["path"] as? String == "datasets/img/shot.jpg")
        #expect(shot["signature"] as? String == "jpeg" && shot["contentType"] as? String == "image/jpeg")
        #expect(await server.server.statistics.storedByPath["datasets/img/notes.txt"] == 1, "not an image: as it is")
        #expect(leftovers(tmp.path).isEmpty, "prepared files are removed: \(leftovers(tmp.path))")
        #expect(try await journalDonePaths(journal).count == 3)

        // The same options skip what is done; other options send again.
        let again = try await ChildProcess.run(binary, arguments, environment: ["TMPDIR": tmp.path])
        #expect(try ndjson(again.standardOutput).last?["skipped"] as? Int == 3)
        var other = arguments
        other[other.firstIndex(of: "1600")!] = "800"
        let smaller = try await ChildProcess.run(binary, other, environment: ["TMPDIR": tmp.path])
        #expect(try ndjson(smaller.standardOutput).last?["done"] as? Int == 3)
        #expect(await server.server.statistics.storedByPath["datasets/img/photo.jpg"] == 2)
        await server.stop()
    }

    @Test("without --strip-metadata the GPS files are counted once; a PUT sends the converted name and type")
    func gpsWarningAndPut() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("gps")
        try sidewaysPhotoWithGPS(folder.path + "/a.jpg")
        try image(folder.path + "/b.png", width: 300, height: 200, format: .png)
        let journal = ["--journal", folder.path + ".journal.sqlite"]
        let plain = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/g/"), "--no-tui"] + journal)
        #expect(plain.status == 0, "\(plain.standardError)")
        #expect(plain.standardError.contains("note: 1 of 2 files carries a GPS location; --strip-metadata removes it"))
        // A rerun that sends nothing has no location to warn about.
        let rerun = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/g/"), "--no-tui"] + journal)
        #expect(
            rerun.standardError.contains("2 skipped") && !rerun.standardError.contains("GPS"), "\(rerun.standardError)")
        // Images of types that cannot hold EXIF are not counted, nor opened: "1 of 1", not "1 of 3".
        let mixed = try TestFolder("gps-mixed")
        try sidewaysPhotoWithGPS(mixed.path + "/a.jpg")
        try mixed.write("c.bmp", size: 100, seed: 1, prefix: Array("BM".utf8))
        try mixed.write("d.gif", size: 100, seed: 2, prefix: Array("GIF89a".utf8))
        let counted = try await ChildProcess.run(
            binary, [mixed.path, "--put", server.url("/files/m/"), "--no-tui", "--no-resume"])
        #expect(counted.standardError.contains("note: 1 of 1 file carries a GPS location"), "\(counted.standardError)")
        // With an image option, what it cannot read is said, not sent unchanged without a word.
        let resized = try await ChildProcess.run(
            binary, [mixed.path, "--put", server.url("/files/n/"), "--no-tui", "--no-resume", "--max-dimension", "100"])
        #expect(resized.standardError.contains("note: 1 image (bmp) is sent as it is"), "\(resized.standardError)")

        let tmp = try TestFolder("tmp-put")
        let converted = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/w/"), "--no-tui", "--no-resume", "--convert", "webp"],
            environment: ["TMPDIR": tmp.path])
        #expect(converted.status == 0, "\(converted.standardError)")
        let stripped = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/s/"), "--no-tui", "--no-resume", "--strip-metadata"],
            environment: ["TMPDIR": tmp.path])
        #expect(stripped.status == 0)
        #expect(!stripped.standardError.contains("GPS location"), "said only when the metadata goes out")
        let stored = await server.server.statistics.storedByPath
        #expect(stored["files/w/a.webp"] == 1 && stored["files/w/b.webp"] == 1, "\(stored)")
        #expect(leftovers(tmp.path).isEmpty)
        await server.stop()
    }

    @Test("x.png converted to JPEG beside x.jpg, or the same name from two folders: refused before anything is sent")
    func convertedNameClash() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("clash")
        try image(folder.path + "/x.png", width: 40, height: 30, format: .png)
        try image(folder.path + "/x.jpg", width: 40, height: 30, format: .jpeg)
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/c/images"), "--convert", "jpeg", "--no-resume"])
        #expect(outcome.status == 2, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("x.jpg: "), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("x.png (converted)"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("would be stored under this one name"), "\(outcome.standardError)")
        // Without --convert each keeps its own name.
        let plain = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/c/images"), "--no-resume"])
        #expect(plain.status == 0, "\(plain.standardError)")
        let other = try TestFolder("clash-other")
        try image(other.path + "/x.jpg", width: 40, height: 30, format: .jpeg)
        let twoFolders = try await ChildProcess.run(
            binary, [folder.path, other.path, "--put", server.url("/files/c/"), "--no-resume"])
        #expect(twoFolders.status == 2, "\(twoFolders.standardError)")
        // A dry run shows the plan with the clash among the broken rules.
        let preview = try await ChildProcess.run(
            binary, [folder.path, other.path, "--put", server.url("/files/c/"), "--no-resume", "--dry-run", "--json"])
        #expect(preview.status == 2, "\(preview.standardError)")
        let events = try ndjson(preview.standardOutput)
        #expect(events.filter { $0["event"] as? String == "planned" }.count == 3, "\(preview.standardOutput)")
        let broken = events.last?["rules_broken"] as? [String] ?? []
        #expect(broken.count == 1 && broken[0].contains("would be stored under this one name"), "\(broken)")
        #expect(await server.server.statistics.filesStored == 2)
        await server.stop()
    }

    @Test("the rules see what is sent: a photo resized under --max-size passes, a PNG converted for --types jpeg too")
    func rulesSeePreparedFiles() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("rules-prepared")
        try image(folder.path + "/big.jpg", width: 3000, height: 2000, format: .jpeg)
        try image(folder.path + "/flat.png", width: 300, height: 200, format: .png)
        let url = server.url("/datasets/rules/images")
        let fits = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", url, "--max-dimension", "200", "--convert", "jpeg", "--max-size", "200K",
                "--types", "jpeg", "--no-tui", "--no-resume",
            ])
        #expect(fits.status == 0, "\(fits.standardError)")
        #expect(FileManager.default.fileExists(atPath: server.stored("datasets/rules/flat.jpg")))
        // Prepared, still too large: failed after preparing, not sent.
        let tooLarge = try await ChildProcess.run(
            binary,
            [
                folder.path + "/big.jpg", "--to", url, "--max-dimension", "2000", "--max-size", "10K", "--no-tui",
                "--no-resume",
            ])
        #expect(tooLarge.status == 1, "\(tooLarge.standardError)")
        #expect(tooLarge.standardError.contains("more than --max-size 10K allows; nothing sent"), "\(tooLarge)")
        // The dry run, which prepares it too, says the same.
        let planned = try await ChildProcess.run(
            binary,
            [
                folder.path + "/big.jpg", "--to", url, "--max-dimension", "2000", "--max-size", "10K", "--dry-run",
                "--no-resume",
            ])
        #expect(planned.status == 0, "\(planned.standardError)")
        #expect(planned.standardOutput.contains("dry run: 1 file, 0 would be sent, 1 would fail"), "\(planned)")
        #expect(
            planned.standardOutput.contains("would fail: big.jpg: ")
                && planned.standardOutput.contains("more than --max-size 10K allows; nothing sent"), "\(planned)")
        #expect(await server.server.statistics.filesStored == 2)
        await server.stop()
    }

    @Test("a camera's raw file (TIFF underneath) is sent as it is, said so, never as its first small image")
    func cameraRaw() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("raw")
        try image(folder.path + "/IMG_0001.dng", width: 2000, height: 1500, format: .tiff)
        let outcome = try await ChildProcess.run(
            binary,
            [folder.path, "--put", server.url("/files/raw/"), "--max-dimension", "500", "--no-tui", "--no-resume"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("1 image (adobe-dng) is sent as it is"), "\(outcome.standardError)")
        let stored = server.stored("files/raw/IMG_0001.dng")
        #expect(try sha256(ofFile: stored) == (try sha256(ofFile: folder.path + "/IMG_0001.dng")))
        // Its metadata cannot be stripped here: asked to, it is not sent at all.
        let stripped = try await ChildProcess.run(
            binary,
            [folder.path, "--put", server.url("/files/raw2/"), "--strip-metadata", "--no-tui", "--no-resume"])
        #expect(stripped.status == 1, "\(stripped.standardError)")
        #expect(
            stripped.standardError.contains(
                "IMG_0001.dng: cannot strip metadata from image/x-adobe-dng: the image options cannot write it again; "
                    + "nothing sent"), "\(stripped.standardError)")
        #expect(!FileManager.default.fileExists(atPath: server.stored("files/raw2/IMG_0001.dng")))
        await server.stop()
    }

    @Test("a phone's HEIC with GPS is counted for the note, and arrives as a JPEG named .jpg without GPS when prepared")
    func heicPhotos() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("heic")
        let tmp = try TestFolder("tmp-heic")
        try heicWithGPS(folder.path + "/cat.heic", width: 1800, height: 1350)
        let plain = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/raw/"), "--no-tui", "--no-resume"])
        #expect(plain.status == 0, "\(plain.standardError)")
        #expect(plain.standardError.contains("note: 1 of 1 file carries a GPS location"), "\(plain.standardError)")

        let options = ["--max-dimension", "1600", "--strip-metadata", "--no-resume", "--json"]
        let posted = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/h/images")] + options, environment: ["TMPDIR": tmp.path]
        )
        #expect(posted.status == 0, "\(posted.standardError)")
        let events = try ndjson(posted.standardOutput)
        let done = try #require(events.first { $0["event"] as? String == "done" })
        let stored = try #require(done["result"] as? [String: Any], "\(done)")
        #expect(stored["path"] as? String == "datasets/h/cat.jpg")
        #expect(stored["contentType"] as? String == "image/jpeg" && stored["signature"] as? String == "jpeg")
        #expect(stored["width"] as? Int == 1600 && stored["height"] as? Int == 1200)
        #expect(stored["gps"] as? Bool == false)

        let put = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/h/")] + options, environment: ["TMPDIR": tmp.path])
        #expect(put.status == 0, "\(put.standardError)")
        let statistics = await server.server.statistics
        #expect(statistics.storedByPath["files/raw/cat.heic"] == 1 && statistics.storedByPath["files/h/cat.jpg"] == 1)
        #expect(leftovers(tmp.path).isEmpty)
        await server.stop()
    }

    @Test("presigned PUTs of converted images: each ticket names the prepared type and size, no ticket is refused")
    func presignedPreparedImages() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("presign-img")
        for i in 0..<3 { try image(folder.path + "/p\(i).png", width: 600, height: 400, format: .png) }
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--presign", server.url("/presigned-urls"), "--media-type", "archive", "--json",
                "--no-resume",
                "--convert", "jpeg",
            ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let done = try ndjson(outcome.standardOutput).filter { $0["event"] as? String == "done" }
        #expect(done.count == 3)
        #expect(done.allSatisfy { ($0["location"] as? String)?.hasSuffix(".jpg") == true }, "\(done)")
        #expect(await server.server.statistics.ticketsRejected == 0)
        await server.stop()
    }

    @Test("presigned PUTs of HEICs sent after a JPEG sent as it is: tickets name the prepared .jpg, its type and size")
    func presignedHEICAfterUnpreparedFile() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("presign-heic")
        // Quality 70 HEICs come out larger as quality 80 JPEGs: a ticket for the original's size would refuse them.
        try heicWithGPS(folder.path + "/b.heic", width: 1800, height: 1350)
        try heicWithGPS(folder.path + "/c.heic", width: 1800, height: 1350)
        try image(folder.path + "/a.jpg", width: 300, height: 200, format: .jpeg)
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--presign", server.url("/presigned-urls"), "--media-type", "photos", "--json",
                "--no-resume", "--max-dimension", "1000",
            ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let done = try ndjson(outcome.standardOutput).filter { $0["event"] as? String == "done" }
        let keys = done.compactMap { $0["location"] as? String }
        #expect(keys.map { ($0 as NSString).lastPathComponent }.sorted() == ["a.jpg", "b.jpg", "c.jpg"], "\(done)")
        for key in keys {
            let head = try await ChildProcess.run("/usr/bin/curl", ["-sI", server.url("/objects/" + key)])
            #expect(head.standardOutput.lowercased().contains("content-type: image/jpeg"), "\(key): \(head)")
        }
        let statistics = await server.server.statistics
        #expect(statistics.ticketsRejected == 0)
        #expect(statistics.ticketsIssued == 3, "no ticket asked for an original that is sent prepared")
        await server.stop()
    }

    @Test(
        "a prepared image's Idempotency-Key repeats on a rerun with the same bytes: stored once; other options store again"
    )
    func preparedKeyRepeatsOnRerun() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("key-img")
        try sidewaysPhotoWithGPS(folder.path + "/photo.jpg")
        for i in 0..<3 { try image(folder.path + "/shot\(i).png", width: 800, height: 600, format: .png) }
        // Without the journal, as a rerun after kill -9 that had recorded nothing: every file is sent again.
        let arguments = [
            folder.path, "--to", server.url("/datasets/k/images"), "--no-tui", "--no-resume", "--max-dimension",
            "1600", "--strip-metadata", "--convert", "jpeg",
        ]
        for _ in 0..<2 {
            let run = try await ChildProcess.run(binary, arguments)
            #expect(run.status == 0, "\(run.standardError)")
        }
        var statistics = await server.server.statistics
        #expect(statistics.storedByPath["datasets/k/photo.jpg"] == 1, "\(statistics.storedByPath)")
        #expect(statistics.idempotentReplays == 4 && statistics.idempotencyMismatches == 0)
        let other = try await ChildProcess.run(binary, arguments + ["--quality", "60"])
        #expect(other.status == 0, "\(other.standardError)")
        statistics = await server.server.statistics
        #expect(
            statistics.storedByPath["datasets/k/photo.jpg"] == 2 && statistics.storedByPath["datasets/k/shot0.jpg"] == 2
        )
        await server.stop()
    }

    @Test("a strip-only rerun with another --quality sends again: the stripped copy is re-encoded at that quality")
    func stripOnlyQualityInJournal() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("strip-quality")
        try sidewaysPhotoWithGPS(folder.path + "/photo.jpg")
        let arguments = [
            folder.path, "--to", server.url("/datasets/q/images"), "--json", "--strip-metadata", "--journal",
            folder.path + ".journal.sqlite",
        ]
        for (quality, done, skipped) in [("80", 1, 0), ("80", 0, 1), ("40", 1, 0)] {
            let run = try await ChildProcess.run(binary, arguments + ["--quality", quality])
            let summary = try ndjson(run.standardOutput).last
            #expect(summary?["done"] as? Int == done && summary?["skipped"] as? Int == skipped, "q\(quality): \(run)")
        }
        #expect(await server.server.statistics.storedByPath["datasets/q/photo.jpg"] == 2)
        await server.stop()
    }

    @Test("--dry-run measures every file for real, says what the journal and the rules say, and sends nothing")
    func dryRun() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("dry")
        let tmp = try TestFolder("tmp-dry")
        try sidewaysPhotoWithGPS(folder.path + "/photo.jpg")
        try folder.write("notes.txt", size: 300, seed: 3)
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/link.jpg", withDestinationPath: "/etc/passwd")
        let journal = folder.path + ".journal.sqlite"
        let url = server.url("/datasets/dry/images")
        let options = ["--max-dimension", "1600", "--strip-metadata", "--journal", journal]
        let planned = try await ChildProcess.run(
            binary, [folder.path, "--to", url, "--dry-run", "--json", "--max-files", "1"] + options,
            environment: ["TMPDIR": tmp.path])
        #expect(planned.status == 2, "a broken rule: \(planned.standardError)")
        let events = try ndjson(planned.standardOutput)
        let photo = try #require(events.first { $0["file"] as? String == "photo.jpg" })
        #expect(photo["event"] as? String == "planned")
        #expect(photo["width"] as? Int == 4000 && photo["height"] as? Int == 3000)
        #expect(photo["prepared_width"] as? Int == 1200 && photo["prepared_height"] as? Int == 1600)
        #expect((photo["prepared_bytes"] as? Int ?? .max) < (photo["bytes"] as? Int ?? 0))
        #expect(photo["gps"] as? Bool == true && photo["journal"] as? String == "new")
        let link = try #require(events.first { $0["file"] as? String == "link.jpg" })
        #expect(link["would_send"] as? Bool == false)
        let summary = try #require(events.last)
        #expect(summary["rules_broken"] as? [String] == ["--max-files 1: 2 files, at most 1 allowed"])
        #expect(summary["exit_code"] as? Int == 2 && summary["ts"] is String, "\(summary)")
        #expect(await server.server.statistics.requests == 0)
        #expect(!FileManager.default.fileExists(atPath: journal), "no run recorded, no journal left")
        #expect(leftovers(tmp.path).isEmpty)

        let sent = try await ChildProcess.run(binary, [folder.path, "--to", url, "--no-tui"] + options)
        #expect(sent.status == 0, "\(sent.standardError)")
        let table = try await ChildProcess.run(binary, [folder.path, "--to", url, "--dry-run"] + options)
        #expect(table.status == 0)
        let row = try #require(table.standardOutput.split(separator: "\n").first { $0.hasPrefix("photo.jpg") })
        #expect(row.contains("4000×3000") && row.contains("1200×1600") && row.contains(" skip "), "\(row)")
        #expect(table.standardOutput.contains("dry run: 3 files, 0 would be sent"), "\(table.standardOutput)")
        #expect(await server.server.statistics.filesStored == 2)
        await server.stop()
    }

    @Test("SIGINT while images are prepared and sent: exit 130 and no prepared file left behind")
    func sigintLeavesNoTemporaryFiles() async throws {
        let server = try await ServerFixture.start { $0.modelingDelay = 0.5 }
        let folder = try TestFolder("sig-img")
        for i in 0..<6 { try image(folder.path + "/p\(i).png", width: 1200, height: 900, format: .png) }
        let tmp = try TestFolder("tmp-sig")
        let child = try ChildProcess.start(
            binary,
            [
                folder.path, "--to", server.url("/datasets/s/images"), "--no-tui", "--no-resume", "--max-dimension",
                "640",
                "--concurrency", "1",
            ],
            environment: ["TMPDIR": tmp.path])
        try await waitUntil("the first image stored") { await server.server.statistics.filesStored >= 1 }
        child.signal(SIGINT)
        let outcome = await child.wait()
        #expect(outcome.status == 130, "\(outcome.standardError)")
        #expect(leftovers(tmp.path).isEmpty, "\(leftovers(tmp.path))")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []).isEmpty, "the folder too")
        await server.stop()
    }

    @Test(
        "a run removes the prepared-copy folders of runs killed with -9, never a live run's nor one it cannot prove ours"
    )
    func removesAbandonedFolders() async throws {
        let server = try await ServerFixture.start { $0.modelingDelay = 0.5 }
        let folder = try TestFolder("kill-img")
        for i in 0..<4 { try image(folder.path + "/p\(i).png", width: 1200, height: 900, format: .png) }
        let tmp = try TestFolder("tmp-kill")
        let arguments = [
            folder.path, "--to", server.url("/datasets/k9/images"), "--no-tui", "--no-resume", "--max-dimension", "640",
            "--concurrency", "1",
        ]
        let child = try ChildProcess.start(binary, arguments, environment: ["TMPDIR": tmp.path])
        try await waitUntil("the first image stored") { await server.server.statistics.filesStored >= 1 }
        child.signal(SIGKILL)
        _ = await child.wait()
        let killed = try #require(try FileManager.default.contentsOfDirectory(atPath: tmp.path).first)
        #expect(!leftovers(tmp.path + "/" + killed).isEmpty, "kill -9 leaves the prepared copies")
        // A live run's folder (this process's, by its pid and start time), and one without an owner file.
        let stat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        let started = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")[19]
        for (name, owner) in [("uploader-tui-LIVE01", "\(getpid()) \(started)\n"), ("uploader-tui-NOOWNR", nil)] {
            try FileManager.default.createDirectory(
                atPath: tmp.path + "/" + name, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700])
            try Data("x".utf8).write(to: URL(fileURLWithPath: tmp.path + "/" + name + "/1.jpg"))
            if let owner { try Data(owner.utf8).write(to: URL(fileURLWithPath: tmp.path + "/" + name + "/owner")) }
        }

        let again = try await ChildProcess.run(binary, arguments, environment: ["TMPDIR": tmp.path])
        #expect(again.status == 0, "\(again.standardError)")
        let left = try FileManager.default.contentsOfDirectory(atPath: tmp.path).sorted()
        let owners = left.map { name in
            let owner = (try? String(contentsOfFile: tmp.path + "/" + name + "/owner", encoding: .utf8)) ?? "none"
            let files = (try? FileManager.default.contentsOfDirectory(atPath: tmp.path + "/" + name)) ?? []
            return "\(name): owner \(owner.trimmingCharacters(in: .whitespacesAndNewlines)), files \(files)"
        }
        #expect(left == ["uploader-tui-LIVE01", "uploader-tui-NOOWNR"], "killed \(child.pid) \(killed); \(owners)")
        await server.stop()
    }

    @Test(
        "a full temporary disk fails each image that does not fit with the system's reason, the rest go on, nothing is left",
        .enabled(if: canMountTmpfs, "needs unshare(1) and a mount namespace (root or user namespaces)"))
    func fullTemporaryDisk() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("full")
        for name in ["big1", "big2"] {
            try image(folder.path + "/\(name).png", width: 2000, height: 1500, format: .png)
        }
        try folder.write("notes.txt", size: 2_000, seed: 7)
        let tmp = try TestFolder("tmp-full")
        // A 256 KiB file system over TMPDIR, private to this run: a 2000x1500 JPEG of noise does not fit. The two are
        // prepared at once, so each may find the other's partial copy there; notes.txt is sent as it is.
        let script = """
            mount -t tmpfs -o size=256k tmpfs "$0" || exit 97
            "$@"; status=$?
            find "$0" -type f -printf 'left %p\\n'
            exit $status
            """
        let run = try await ChildProcess.run(
            "/usr/bin/unshare",
            [
                "--map-root-user", "--mount", "sh", "-c", script, tmp.path, binary, folder.path, "--to",
                server.url("/datasets/full/images"), "--no-tui", "--no-resume", "--convert", "jpeg", "--quality", "95",
            ],
            environment: ["TMPDIR": tmp.path])
        #expect(run.status == 1, "the two large images fail, notes.txt is sent: \(run.standardError)")
        let space = String(cString: strerror(ENOSPC))
        for name in ["big1.png", "big2.png"] {
            let line = run.standardError.split(separator: "\n").first {
                $0.contains("\(name): cannot write the prepared copy in ")
            }
            #expect(line?.hasSuffix(space) == true, "\(run.standardError)")
        }
        #expect(await server.server.statistics.storedByPath["datasets/full/notes.txt"] == 1)
        #expect(await server.server.statistics.filesStored == 1)
        #expect(!run.standardOutput.contains("left "), "no prepared file left: \(run.standardOutput)")
        await server.stop()
    }
}

/// True when this machine lets a test mount a small file system of its own (`unshare -rm`).
private let canMountTmpfs: Bool = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    process.arguments = ["--map-root-user", "--mount", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}()
