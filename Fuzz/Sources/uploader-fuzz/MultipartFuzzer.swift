import NIOCore

@testable import ReferenceServer

/// `MultipartStreamParser` on a fuzzed body and boundary.
///
/// Input: the boundary, a line feed, a count of split points (low three bits of one byte), that many little-endian
/// 16-bit offsets, then the body. The body is parsed whole, split at those offsets, and one byte at a time; all
/// three must report the same events, end the same way and fail the same way. The whole run's events must also fit
/// the input: headers before a part's content, content that occurs in the body followed by the delimiter when the
/// part completed, no more content bytes than the body has.
enum MultipartFuzzer {
    enum Event: Equatable {
        case header(String, String)
        case body([UInt8])
        case partComplete
    }

    struct Outcome: Equatable {
        var events: [Event] = []
        var complete = false
        var failed = false
    }

    static func run(_ input: [UInt8]) {
        var reader = FuzzInput(input)
        let boundary = Array(reader.bytes(upTo: UInt8(ascii: "\n")).prefix(70)).text
        let splitCount = Int(reader.byte() & 7)
        let rawSplits = (0..<splitCount).map { _ in Int(reader.byte()) | Int(reader.byte()) << 8 }
        let body = reader.rest()
        let splits = rawSplits.map { $0 % (body.count + 1) }.sorted()

        let whole = parse(body, boundary: boundary, chunks: [0, body.count])
        let split = parse(body, boundary: boundary, chunks: [0] + splits + [body.count])
        // One call per byte costs a buffer each; longer bodies are covered by the chosen splits.
        let bytewise = body.count <= 512 ? parse(body, boundary: boundary, chunks: Array(0...body.count)) : whole
        // Past the header cap, whether the cap trips depends on how the block arrived; inputs stay far below it.
        if body.count < MultipartStreamParser.maximumHeaderBytes {
            require(split == whole, "split at \(splits) differs from whole: \(split) vs \(whole)")
            require(bytewise == whole, "byte by byte differs from whole: \(bytewise) vs \(whole)")
        }
        check(whole, body: body, boundary: boundary)
    }

    static func parse(_ body: [UInt8], boundary: String, chunks: [Int]) -> Outcome {
        let parser = MultipartStreamParser(boundary: boundary)
        var outcome = Outcome()
        parser.onHeader = { outcome.events.append(.header($0, $1)) }
        parser.onBody = { buffer in
            let bytes = Array(buffer.readableBytesView)
            require(!bytes.isEmpty, "onBody with no bytes")
            if case .body(let earlier) = outcome.events.last {
                outcome.events[outcome.events.count - 1] = .body(earlier + bytes)
            } else {
                outcome.events.append(.body(bytes))
            }
        }
        parser.onPartComplete = { outcome.events.append(.partComplete) }
        for (start, end) in zip(chunks, chunks.dropFirst()) {
            do {
                try parser.execute(ByteBuffer(bytes: body[start..<end]))
            } catch let error as ReferenceServerError {
                require(error.code == .malformedMultipart, "unexpected error \(error)")
                outcome.failed = true
                break
            } catch {
                require(false, "unexpected error type \(error)")
            }
        }
        outcome.complete = parser.isComplete
        require(!(outcome.complete && outcome.failed), "complete and failed at once")
        return outcome
    }

    static func check(_ outcome: Outcome, body: [UInt8], boundary: String) {
        let delimiter = Array("\r\n--\(boundary)".utf8)
        var contentBytes = 0
        var partContent: [UInt8]? = nil  // nil until the part's content started
        var completed = 0
        for event in outcome.events {
            switch event {
            case .header(let name, let value):
                require(partContent == nil, "header \(name) after the part's content")
                require(!Array(name.utf8).contains([13, 10]) && !Array(value.utf8).contains([13, 10]), "CRLF in header")
            case .body(let bytes):
                contentBytes += bytes.count
                partContent = (partContent ?? []) + bytes
            case .partComplete:
                let content = partContent ?? []
                require(body.contains(content + delimiter), "completed part's content is not in the body")
                partContent = nil
                completed += 1
            }
        }
        if let partContent { require(body.contains(partContent), "part's content is not in the body") }
        require(contentBytes <= body.count, "delivered \(contentBytes) content bytes from a \(body.count)-byte body")
        require(completed == 0 || body.contains(delimiter), "a part completed without a delimiter in the body")
        if outcome.complete {
            // Blanks may stand between the boundary and its closing `--`, so only the boundary is looked for.
            require(body.contains(Array("--\(boundary)".utf8)), "complete without a boundary in the body")
        }
    }
}
