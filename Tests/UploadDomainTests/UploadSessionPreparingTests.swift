import Testing
import UploadDomain

/// The preparing stage (issue 16): bounded workers ahead of the transfers, prepared files sent under their new
/// name and size, removed when their file ends.
@Suite("UploadSession preparing")
struct UploadSessionPreparingTests {
    private let options = ImageOptions(maxDimension: 1600, stripMetadata: true)

    @Test("workers prepare ahead, bounded; a prepared file goes out under its new name, size and type, then is removed")
    func preparedFilesAreSent() async throws {
        let transport = InMemoryTransport()
        let preparer = InMemoryPreparer()
        let originals = items([4_000, 5_000, 6_000, 7_000])
        let session = UploadSession(
            items: originals, planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 1, imageOptions: options, preparingWorkers: 2), preparer: preparer)
        var events = session.events.makeAsyncIterator()
        var preparations = preparer.started.makeAsyncIterator()
        var requests = transport.started.makeAsyncIterator()
        await session.start()
        // The two workers' tasks may reach the preparer in either order.
        let pair = [try #require(await preparations.next()), try #require(await preparations.next())]
            .sorted { $0.item.id < $1.item.id }
        let (first, second) = (pair[0], pair[1])
        #expect([first.item.id, second.item.id] == [0, 1])
        #expect(first.options == options)
        var snapshot = await session.snapshot()
        #expect(snapshot.files.map(\.phase) == [.preparing, .preparing, .queued, .queued])
        #expect(snapshot.progress.counts.preparing == 2)
        #expect(snapshot.toast == .willStart)

        first.reply(.success(InMemoryPreparer.prepared(first.item, size: 1_000)))
        let prepared = try #require(await awaitEvent(.prepared, file: 0, in: &events))
        #expect(
            prepared.file.preparation
                == Preparation(originalSize: 4_000, size: 1_000, width: 1600, height: 1200, remoteName: "f0.jpg"))
        // The details' curl command sends what the request sent: the prepared copy.
        #expect(prepared.file.curlCommand.hasPrefix("curl mem://f0.jpg  # the prepared copy"))
        let request = try #require(await requests.next())
        #expect(request.request.files.map(\.path) == ["/tmp/prep/f0.jpg"])
        #expect(request.request.files[0].size == 1_000)
        #expect(request.request.files[0].contentType == "image/jpeg")
        // One slot busy, file 1 preparing: file 2 may start preparing (1 + 1 < concurrency 1 + workers 2).
        let third = try #require(await preparations.next())
        #expect(third.item.id == 2)
        snapshot = await session.snapshot()
        #expect(snapshot.files[0].size == 1_000)
        #expect(snapshot.progress.bytesSaved == 3_000)

        request.reply(.success(TransferResponse(status: 201)))
        #expect(await awaitEvent(.done, file: 0, in: &events) != nil)
        #expect(preparer.discarded.withLock { $0 } == ["/tmp/prep/f0.jpg"])
        #expect(await session.snapshot().files[0].sent == 1_000)

        // Not an image: sent as it is. Unreadable: fails, with no request.
        second.reply(.success(nil))
        let asIs = try #require(await requests.next())
        #expect(asIs.request.files.map(\.path) == ["/data/f1.jpg"])
        third.reply(.failure(UploadError(.imageUnreadable, cause: "not a JPEG file")))
        let failed = try #require(await awaitEvent(.failed, file: 2, in: &events))
        #expect(failed.file.error?.code == .imageUnreadable)
        #expect(failed.file.error?.file == "f2.jpg")
        asIs.reply(.success(TransferResponse(status: 201)))
        let fourth = try #require(await preparations.next())
        fourth.reply(.success(InMemoryPreparer.prepared(fourth.item, size: 700)))
        let last = try #require(await requests.next())
        last.reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
        snapshot = await session.snapshot()
        #expect(snapshot.files.map(\.phase) == [.done, .done, .failed, .done])
        #expect(snapshot.progress.bytesSaved == 3_000 + 6_300)
        #expect(preparer.discarded.withLock { $0 } == ["/tmp/prep/f0.jpg", "/tmp/prep/f3.jpg"])
    }

    @Test("images are encoded for the smallest size only while files wait for the link, else for speed")
    func encodingFollowsTheLink() async throws {
        let transport = InMemoryTransport()
        let preparer = InMemoryPreparer()
        let session = UploadSession(
            items: items([4_000, 5_000, 6_000, 7_000]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 1, imageOptions: options, preparingWorkers: 1), preparer: preparer)
        var events = session.events.makeAsyncIterator()
        var preparations = preparer.started.makeAsyncIterator()
        var requests = transport.started.makeAsyncIterator()
        await session.start()
        // Nothing waits for the link: the first file is wanted as soon as it is ready.
        let first = try #require(await preparations.next())
        #expect(first.encoding == .fastest)
        first.reply(.success(InMemoryPreparer.prepared(first.item, size: 1_000)))
        let sendingFirst = try #require(await requests.next())
        // The link is busy with file 0, but nothing waits for it.
        let second = try #require(await preparations.next())
        #expect(second.encoding == .fastest)
        second.reply(.success(InMemoryPreparer.prepared(second.item, size: 1_000)))
        // File 1 waits for the only slot: the link is behind, so file 2 may take longer for fewer bytes.
        let third = try #require(await preparations.next())
        #expect(third.item.id == 2)
        #expect(third.encoding == .smallest)
        sendingFirst.reply(.success(TransferResponse(status: 201)))
        let sendingSecond = try #require(await requests.next())
        sendingSecond.reply(.success(TransferResponse(status: 201)))
        #expect(await awaitEvent(.done, file: 1, in: &events) != nil)
        // The link caught up: file 2 goes out at once and file 3 is wanted as soon as it is ready again.
        third.reply(.success(InMemoryPreparer.prepared(third.item, size: 1_000)))
        let fourth = try #require(await preparations.next())
        #expect(fourth.encoding == .fastest)
        fourth.reply(.success(InMemoryPreparer.prepared(fourth.item, size: 1_000)))
        for _ in 0..<2 { try #require(await requests.next()).reply(.success(TransferResponse(status: 201))) }
        await session.waitUntilIdle()
        #expect(await session.snapshot().files.map(\.phase) == [.done, .done, .done, .done])
    }

    @Test("a stop cancels the files being prepared; a preparation that ends after it is removed, not sent")
    func stopWhilePreparing() async throws {
        let transport = InMemoryTransport()
        let preparer = InMemoryPreparer()
        let session = UploadSession(
            items: items([4_000, 5_000]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 2, imageOptions: options), preparer: preparer)
        var preparations = preparer.started.makeAsyncIterator()
        await session.start()
        let first = try #require(await preparations.next())
        _ = try #require(await preparations.next())
        await session.handle(.stop)
        #expect(await session.snapshot().files.map(\.phase) == [.cancelled, .cancelled])
        // The two preparations start together: the first to arrive may be either file's.
        let copy = InMemoryPreparer.prepared(first.item, size: 10)
        first.reply(.success(copy))
        // The other preparation never answers: a stopped batch does not wait for it.
        await session.waitUntilIdle()
        try await waitFor { preparer.discarded.withLock { $0 } == [copy.path] }
    }

    @Test("options that change nothing skip the stage; the journal keys a prepared file with the options")
    func noOptionsNoStage() async throws {
        let transport = InMemoryTransport()
        let preparer = InMemoryPreparer()
        let session = UploadSession(
            items: items([10]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 1), preparer: preparer)
        var requests = transport.started.makeAsyncIterator()
        await session.start()
        let request = try #require(await requests.next())
        #expect(request.request.files[0].path == "/data/f0.jpg")
        request.reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
        #expect(ImageOptions().journalDestination("mem://f0.jpg") == "mem://f0.jpg")
        #expect(
            options.journalDestination("mem://f0.jpg") == "mem://f0.jpg [max-dimension=1600,quality=80,strip-metadata]")
        #expect(ImageOptions(convert: .webp, quality: 60).identityTag == "convert=webp,quality=60")
        #expect(ImageOptions(quality: 50, stripMetadata: true).identityTag == "quality=50,strip-metadata")
    }

    /// Polls a condition the session reaches on another task (a discarded file after its preparation returned).
    private func waitFor(_ condition: () -> Bool) async throws {
        // Up to 10 s: on a loaded 2-core machine the session's task may wait long for its turn.
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(condition())
    }
}
