import Testing

@testable import UploadData

/// The watch's verdicts on a scripted clock (nanoseconds).
@Suite("StallWatch")
struct StallWatchTests {
    let second: UInt64 = 1_000_000_000

    @Test("sending: nothing sent for the limit is a stall; a pause or the cap's wait is none")
    func sending() {
        var watch = StallWatch(limit: 2 * second, answerLimit: 10 * second)
        watch.restart(at: 0)
        #expect(watch.stop(sent: 100, allSent: false, paused: false, now: 1 * second) == nil)
        #expect(watch.stop(sent: 100, allSent: false, paused: false, now: 3 * second) == nil)
        #expect(watch.stop(sent: 100, allSent: false, paused: false, now: 3 * second + 1) == .sending)
        #expect(watch.stop(sent: 100, allSent: false, paused: true, now: 9 * second) == nil)
        #expect(watch.stop(sent: 100, allSent: false, paused: false, now: 10 * second) == nil)
    }

    @Test("every byte sent: the server has the answer limit to begin, then the stall limit between bytes")
    func answer() {
        var watch = StallWatch(limit: 2 * second, answerLimit: 10 * second)
        watch.restart(at: 0)
        #expect(watch.stop(sent: 1000, allSent: true, paused: false, now: 0) == nil)
        #expect(watch.stop(sent: 1000, allSent: true, paused: false, now: 9 * second) == nil)
        #expect(watch.stop(sent: 1000, allSent: true, paused: false, now: 10 * second + 1) == .answer)
        var answering = StallWatch(limit: 2 * second, answerLimit: 10 * second)
        answering.restart(at: 0)
        #expect(answering.stop(sent: 1000, allSent: true, received: 50, paused: false, now: 5 * second) == nil)
        #expect(
            answering.stop(sent: 1000, allSent: true, received: 50, paused: false, now: 7 * second + 1) == .answering)
    }

    @Test("an upload's answer must come whole within the answer limit of the last byte, however it trickles")
    func trickle() {
        var upload = StallWatch(limit: 2 * second, answerLimit: 10 * second)
        var readBack = StallWatch(limit: 2 * second, answerLimit: 10 * second)
        upload.restart(at: 0)
        readBack.restart(at: 0)
        #expect(upload.stop(sent: 100, allSent: true, wholeAnswerDue: true, paused: false, now: 0) == nil)
        #expect(readBack.stop(sent: 0, allSent: true, paused: false, now: 0) == nil)
        for tick in 1...10 {
            let now = UInt64(tick) * second
            #expect(
                upload.stop(
                    sent: 100, allSent: true, received: Int64(tick), wholeAnswerDue: true, paused: false, now: now)
                    == nil)
            #expect(readBack.stop(sent: 0, allSent: true, received: Int64(tick), paused: false, now: now) == nil)
        }
        let late = 10 * second + 1
        #expect(
            upload.stop(sent: 100, allSent: true, received: 11, wholeAnswerDue: true, paused: false, now: late)
                == .answerTooLong)
        #expect(
            readBack.stop(sent: 0, allSent: true, received: 11, paused: false, now: late) == nil,
            "a body read back may take long")
    }

    @Test("limits of 0 switch each watch off")
    func off() {
        var watch = StallWatch(limit: 0, answerLimit: 0)
        watch.restart(at: 0)
        #expect(watch.stop(sent: 10, allSent: false, paused: false, now: 0) == nil)
        #expect(watch.stop(sent: 10, allSent: false, paused: false, now: 1000 * second) == nil)
        #expect(watch.stop(sent: 100, allSent: true, paused: false, now: 2000 * second) == nil)
        #expect(watch.stop(sent: 100, allSent: true, paused: false, now: 9000 * second) == nil)
    }
}
