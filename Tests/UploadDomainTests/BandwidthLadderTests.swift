import Testing
import UploadDomain

@Suite("BandwidthLadder")
struct BandwidthLadderTests {
    static let k: Int64 = 1 << 10
    static let m: Int64 = 1 << 20

    @Test("[ steps down to the next lower rung and stops at the lowest")
    func lower() {
        #expect(BandwidthLadder.lower(2 * Self.m, measuredRate: 0) == 1 * Self.m)
        #expect(BandwidthLadder.lower(3 * Self.m, measuredRate: 0) == 2 * Self.m)  // a --bwlimit between rungs
        #expect(BandwidthLadder.lower(512 * Self.k, measuredRate: 0) == 256 * Self.k)
        #expect(BandwidthLadder.lower(256 * Self.k, measuredRate: 0) == 256 * Self.k)
        #expect(BandwidthLadder.lower(100 * Self.k, measuredRate: 0) == 100 * Self.k)  // below the ladder: kept
    }

    @Test("[ without a cap starts below the measured rate")
    func lowerFromNone() {
        #expect(BandwidthLadder.lower(nil, measuredRate: 7.5 * Double(Self.m)) == 5 * Self.m)
        #expect(BandwidthLadder.lower(nil, measuredRate: 5 * Double(Self.m)) == 2 * Self.m)
        #expect(BandwidthLadder.lower(nil, measuredRate: 900 * 1e9) == 100 * Self.m)
        #expect(BandwidthLadder.lower(nil, measuredRate: 1_000) == 256 * Self.k)
        #expect(BandwidthLadder.lower(nil, measuredRate: 0) == 100 * Self.m)
    }

    @Test("] steps up, and past the top rung removes the cap")
    func raise() {
        #expect(BandwidthLadder.raise(256 * Self.k) == 512 * Self.k)
        #expect(BandwidthLadder.raise(3 * Self.m) == 5 * Self.m)
        #expect(BandwidthLadder.raise(100 * Self.k) == 256 * Self.k)
        #expect(BandwidthLadder.raise(50 * Self.m) == 100 * Self.m)
        #expect(BandwidthLadder.raise(100 * Self.m) == nil)
        #expect(BandwidthLadder.raise(nil) == nil)
    }
}
