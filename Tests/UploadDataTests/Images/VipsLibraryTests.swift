import Foundation
import Synchronization
import Testing
import UploadDomain

@testable import UploadData

@Suite("VipsLibrary")
struct VipsLibraryTests {
    /// A copy of `whole` cut to its first half, as `name`.
    func cut(_ scratch: ImageScratch, _ whole: String, as name: String) throws -> UploadItem {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: whole)))
        return try scratch.write(Array(bytes.prefix(bytes.count / 2)), to: name)
    }

    @Test("a failure's message holds its own errors only: a truncated HEIC's, before it, stay out of a TIFF's")
    func messagesStayWithTheirFile() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let heic = scratch.root + "/whole.heic"
        let noise = try #require(VipsImage.noise(width: 300, height: 200))
        #expect(noise.saveHEIC(to: heic, quality: 50))
        let tiff = try scratch.image("whole.tif", width: 300, height: 200, format: .tiff)
        let options = ImageOptions(maxDimension: 100)
        var causes: [String] = []
        for item in [try cut(scratch, heic, as: "cut.heic"), try cut(scratch, tiff.path, as: "cut.tif")] {
            do {
                _ = try await scratch.preparer.prepare(item, options: options)
                Issue.record("prepared a truncated \(item.relativePath)")
            } catch {
                causes.append(error.cause ?? "")
            }
        }
        #expect(causes.count == 2)
        let tiffCause = causes.last ?? ""
        #expect(!tiffCause.contains("heif") && !tiffCause.contains("cut.heic"), "\(tiffCause)")
        #expect(!tiffCause.isEmpty && tiffCause != "unknown libvips error", "\(tiffCause)")
    }

    @Test("a line two overlapping jobs may have written stays shared after one ends: the other keeps its own reason")
    func overlappingJobs() throws {
        let (bothRun, written, firstEnded, secondDone) = (
            DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0),
            DispatchSemaphore(value: 0)
        )
        let taken = Mutex<[Int]>([])
        // Job 1 writes a line while job 2 runs, then ends; job 2 then writes one of its own and takes its lines.
        let first = Thread {
            VipsLibrary.job {
                bothRun.wait()
                #expect(VipsImage.noise(width: 0, height: 0) == nil)
                let lines = VipsLibrary.takeErrorLines(about: ["/first"])
                taken.withLock { $0.append(lines.count) }
            }
            written.signal()
            firstEnded.signal()
        }
        let second = Thread {
            VipsLibrary.job {
                bothRun.signal()
                firstEnded.wait()
                #expect(VipsImage.noise(width: 0, height: 0) == nil)
                let lines = VipsLibrary.takeErrorLines(about: ["/second"])
                taken.withLock { $0.append(lines.count) }
            }
            secondDone.signal()
        }
        first.start()
        second.start()
        written.wait()
        secondDone.wait()
        // Each took one reason: job 2 its own, not job 1's shared line as well.
        let counts = taken.withLock { $0 }
        #expect(counts.count == 2 && (counts.first ?? 0) > 0 && counts.last == counts.first, "\(counts)")
    }
}
