import Testing

@testable import UploadDomain

@Suite("UploadEvents")
struct UploadEventsTests {
    private static func event(_ id: Int, _ kind: UploadEvent.Kind = .queued) -> UploadEvent {
        UploadEvent(
            kind: kind,
            file: FileSnapshot(
                id: id, name: "f\(id)", path: "/f\(id)", destination: "d", size: 1, sent: 0, phase: .queued, attempt: 0)
        )
    }

    @Test("what piles up comes as one batch, in order; a waiting reader gets the next event; finish ends it")
    func batches() async {
        let events = UploadEvents()
        for id in 0..<5 { events.yield(Self.event(id)) }
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.nextBatch().map(\.file.id) == [0, 1, 2, 3, 4])
        let reader = Task {
            var ids: [Int] = []
            for await event in events { ids.append(event.file.id) }
            return ids
        }
        for id in 5..<200 {
            events.yield(Self.event(id))
            if id % 50 == 0 { await Task.yield() }
        }
        events.finish()
        events.yield(Self.event(999))
        #expect(await reader.value == Array(5..<200), "every event once, in order; none after finish")
    }

    @Test("next() walks a batch, and nextBatch() hands over the rest of one half read")
    func rest() async {
        let events = UploadEvents()
        for id in 0..<4 { events.yield(Self.event(id)) }
        events.finish()
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next()?.file.id == 0)
        #expect(await iterator.nextBatch().map(\.file.id) == [1, 2, 3])
        #expect(await iterator.nextBatch().isEmpty)
        #expect(await iterator.next()?.file.id == nil)
    }

    @Test("a reader whose task is cancelled while it waits gets the end")
    func cancelled() async {
        let events = UploadEvents()
        let reader = Task {
            var iterator = events.makeAsyncIterator()
            return await iterator.next()?.file.id
        }
        reader.cancel()
        #expect(await reader.value == nil)
    }
}
