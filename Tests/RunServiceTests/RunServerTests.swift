import Foundation
import RunService
import Synchronization
import Testing
import UploadDomain

#if canImport(Glibc)
    import Glibc
#endif

/// A batch held in memory, standing in for the session (the socket, the threads and the protocol are real).
final class FakeRun: Sendable {
    let current: Mutex<UploadSnapshot>
    let commands = Mutex<[UploadCommand]>([])
    let interrupts = Atomic<Int>(0)

    init(files: Int) {
        let rows = (0..<files).map { index in
            FileSnapshot(
                id: index, name: "f\(index).jpg", path: "/p/f\(index).jpg", destination: "http://h/f",
                curlCommand: LazyText { "curl \(index)" }, size: 100, sent: 0, phase: .queued, attempt: 0)
        }
        let progress = BatchProgress(
            counts: PhaseCounts(rows.map(\.phase)), bytesSent: 0, bytesTotal: Int64(files * 100), bytesPerSecond: 0,
            eta: nil)
        current = Mutex(
            UploadSnapshot(
                files: rows, progress: progress, toast: .willStart, concurrency: 2, isIdle: false, elapsed: .zero))
    }

    var host: RunHost {
        RunHost(
            snapshot: { self.current.withLock { $0 } },
            handle: { command in self.commands.withLock { $0.append(command) } },
            interrupt: { self.interrupts.add(1, ordering: .relaxed) })
    }
}

@Suite("The run socket: real Unix sockets between a run and its screens", .serialized)
struct RunServerTests {
    func folder() throws -> RunDirectory {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("runs-\(UUID().uuidString.prefix(8))")
            .path
        let directory = RunDirectory(path: path)
        try directory.prepare()
        return directory
    }

    /// A screen's connection, tried again while the run's hello waits for a pool thread: the suite starts with
    /// hundreds of rendering tests that keep the pool's two threads busy for seconds, and the hello is a task.
    func connectPatiently(id: String, in directory: RunDirectory) async throws -> RunClient {
        var attempt = 1
        while true {
            do {
                return try await RunClient.connect(id: id, in: directory, role: .screen)
            } catch {
                guard error.code == .connectFailed, attempt < 3 else { throw error }
                attempt += 1
            }
        }
    }

    func info(_ id: String) -> RunInfo {
        RunInfo(id: id, pid: getpid(), source: "/src", destination: "http://h/", started: 1)
    }

    @Test("the folder and the socket are closed to others; a screen gets the hello, the rows and their changes")
    func attachAndFollow() async throws {
        let directory = try folder()
        let run = FakeRun(files: 3)
        let server = try RunServer(directory: directory, info: info("00aa"), host: run.host)
        server.start()
        var folderInfo = stat()
        #expect(stat(directory.path, &folderInfo) == 0 && folderInfo.st_mode & 0o777 == 0o700)
        var socketInfo = stat()
        #expect(stat(directory.socketPath("00aa"), &socketInfo) == 0 && socketInfo.st_mode & 0o777 == 0o600)

        let client = try await connectPatiently(id: "00aa", in: directory)
        #expect(client.info.id == "00aa" && client.info.files == 3)
        await client.waitForSnapshot()
        #expect(client.latest?.files.map(\.name) == ["f0.jpg", "f1.jpg", "f2.jpg"])
        try await waitUntil("a screen counted") { server.screens == 1 }

        run.current.withLock { snapshot in
            snapshot.files[1].phase = .uploading
            snapshot.files[1].sent = 40
        }
        try await waitUntil("the change arrives") { client.latest?.files[1].sent == 40 }
        #expect(client.latest?.files[1].phase == .uploading)
        // Read on a thread of its own, as a screen's frame is: the read waits for the run's answer, which in this
        // one-process test needs one of the few pool threads the busy suite leaves. A read that timed out is not
        // kept: the next asks again.
        try await waitUntil("the curl command, fetched when read", timeout: .seconds(120)) {
            let curl = await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: client.latest?.files[1].curlCommand) }
            }
            return curl == "curl 1"
        }

        client.send(.retry(fileID: 2))
        client.send(.setConcurrency(5))
        client.interrupt()
        try await waitUntil("the commands, in order") { run.commands.withLock { $0.count } == 2 }
        #expect(run.commands.withLock { $0 } == [.retry(fileID: 2), .setConcurrency(5)])
        try await waitUntil("the interrupt") { run.interrupts.load(ordering: .relaxed) == 1 }

        run.current.withLock { $0.isIdle = true }
        server.end(run.current.withLock { $0 }, exitCode: 1)
        #expect(await client.waitForEnd() == .ended(1))
        #expect(client.latest?.isIdle == true)
        #expect(!FileManager.default.fileExists(atPath: directory.socketPath("00aa")))
    }

    @Test("a screen that attaches gets the goodput of the seconds before it, kept while nobody watched")
    func recentRatesBeforeAttach() async throws {
        let directory = try folder()
        let run = FakeRun(files: 3)
        let server = try RunServer(directory: directory, info: info("00ab"), host: run.host)
        server.start()
        // The batch moves 1,000 bytes every 50 ms with no screen; a `ps` (status) client sees the hello's history.
        let deadline = ContinuousClock.now + .seconds(30)
        var rates: [Double] = []
        while ContinuousClock.now < deadline {
            run.current.withLock { $0.progress.bytesSent += 1_000 }
            try await Task.sleep(for: .milliseconds(50))
            rates = try await RunClient.connect(id: "00ab", in: directory, role: .status).recentRates
            if rates.count >= 2 { break }
        }
        // A loaded machine may hold a reading back past a second: that second shows 0, the next one both.
        let sent = run.current.withLock { $0.progress.bytesSent }
        #expect(rates.count >= 2 && rates.contains { $0 > 0 }, "\(rates)")
        #expect(rates.reduce(0, +) <= Double(sent), "\(rates) add up to more than the \(sent) bytes sent")
        server.end(run.current.withLock { $0 }, exitCode: 0)
    }

    @Test("an end a screen watched is seen: one that Ctrl-C'd and waits, one that quit with q and waits; not `stop`'s")
    func endSeenByTheScreenThatStopped() async throws {
        let directory = try folder()
        // Ctrl-C: the stop ends the run as soon as the batch is idle, before any snapshot shows it idle.
        let interrupted = FakeRun(files: 2)
        let first = try RunServer(directory: directory, info: info("00e1"), host: interrupted.host)
        first.start()
        let screen = try await connectPatiently(id: "00e1", in: directory)
        try await waitUntil("a screen counted") { first.screens == 1 }
        screen.interrupt()
        try await waitUntil("the interrupt") { interrupted.interrupts.load(ordering: .relaxed) == 1 }
        interrupted.current.withLock { $0.isIdle = true }
        #expect(first.endSeen)
        first.end(interrupted.current.withLock { $0 }, exitCode: 130)
        #expect(await screen.waitForEnd() == .ended(130))

        // `q` while busy: the screen asks for the stop and leaves its screen, but waits for the end and its summary.
        let quit = FakeRun(files: 2)
        let second = try RunServer(directory: directory, info: info("00e2"), host: quit.host)
        second.start()
        let leaving = try await connectPatiently(id: "00e2", in: directory)
        try await waitUntil("a screen counted") { second.screens == 1 }
        leaving.send(.stop)
        leaving.quit()
        try await waitUntil("the screen gone") { second.screens == 0 }
        quit.current.withLock { $0.isIdle = true }
        try await waitUntil("the idle batch sent") { leaving.latest?.isIdle == true }
        #expect(second.endSeen)
        second.end(quit.current.withLock { $0 }, exitCode: 130)

        // `uploader-tui stop` is no screen: nobody saw that end.
        let stopped = FakeRun(files: 2)
        let third = try RunServer(directory: directory, info: info("00e3"), host: stopped.host)
        third.start()
        let control = try await RunClient.connect(id: "00e3", in: directory, role: .control)
        control.send(.stop)
        try await waitUntil("the stop") { stopped.commands.withLock { $0 } == [.stop] }
        stopped.current.withLock { $0.isIdle = true }
        try await waitUntil("the idle batch sent") { control.latest?.isIdle == true }
        #expect(!third.endSeen)
        third.end(stopped.current.withLock { $0 }, exitCode: 2)
    }

    @Test("each screen learns how many others watch; one that quits while another watches is let go, the run goes on")
    func otherScreens() async throws {
        let directory = try folder()
        let run = FakeRun(files: 2)
        let server = try RunServer(directory: directory, info: info("00c1"), host: run.host)
        server.start()
        let first = try await connectPatiently(id: "00c1", in: directory)
        try await waitUntil("one screen") { server.screens == 1 }
        try await waitUntil("alone") { first.latest != nil && first.otherScreens == 0 }
        let second = try await connectPatiently(id: "00c1", in: directory)
        try await waitUntil("the first sees the second") { first.otherScreens == 1 }
        try await waitUntil("the second sees the first") { second.otherScreens == 1 }
        second.quit()
        #expect(await second.waitForEnd() == .released)
        try await waitUntil("the first alone again") { first.otherScreens == 0 }
        #expect(run.commands.withLock { $0 }.isEmpty)
        server.end(run.current.withLock { $0 }, exitCode: 0)
        #expect(await first.waitForEnd() == .ended(0))
    }

    @Test("a client of another protocol version is refused with one line")
    func versionMismatch() async throws {
        let directory = try folder()
        let server = try RunServer(directory: directory, info: info("00bb"), host: FakeRun(files: 1).host)
        server.start()
        let reply = try await rawExchange(
            directory.socketPath("00bb"), #"{"type":"hello","version":99,"role":"screen"}"#)
        let lines = reply.split(separator: "\n").map { try? RunLine.decode(Data($0.utf8)) }
        #expect(lines.first??.type == .hello)
        #expect(lines.last??.type == .refused, "\(reply)")
        #expect(lines.last??.text == "protocol version 99; this run speaks \(RunProtocol.version)")
        #expect(server.screens == 0)
        server.end(await FakeRun(files: 1).host.snapshot(), exitCode: 0)
    }

    @Test("a run of another protocol version is one clear line on the client's side")
    func clientVersionMismatch() async throws {
        let directory = try folder()
        let path = directory.socketPath("00ee")
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[1])
            s.listen(1)
            print("ready", flush=True)
            c, _ = s.accept()
            c.sendall(b'{"type":"hello","version":2,"run":{"id":7,"shape":"new"}}\\n')
            c.recv(65536)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        defer { process.terminate() }
        // Its "ready" comes after listen(): connecting between bind and listen would find the socket stale.
        let ready = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: pipe.fileHandleForReading.availableData)
            }
        }
        #expect(String(decoding: ready, as: UTF8.self).hasPrefix("ready"))
        do {
            _ = try await RunClient.connect(id: "00ee", in: directory, role: .screen)
            Issue.record("a run of protocol version 2 was accepted")
        } catch {
            #expect(error.code == .versionMismatch)
            #expect(
                error.description
                    == "run 00ee speaks another protocol (protocol version 2; this uploader-tui speaks "
                    + "\(RunProtocol.version)); use the uploader-tui that started it")
        }
    }

    @Test("a socket nobody listens on is found stale and removed; an unknown ID is no such run")
    func stale() throws {
        let directory = try folder()
        let path = directory.socketPath("00cc")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        close(fd)  // a run killed with -9 leaves its socket file behind
        #expect(throws: RunServiceError(.stale, id: "00cc")) {
            try RunClient.connect(id: "00cc", in: directory, role: .screen)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: RunServiceError(.noSuchRun, id: "00dd")) {
            try RunClient.connect(id: "00dd", in: directory, role: .screen)
        }
    }

    @Test("a folder open to others is not used")
    func openFolder() throws {
        let directory = try folder()
        chmod(directory.path, 0o755)
        #expect(throws: RunServiceError.self) { try directory.prepare() }
        do {
            try directory.prepare()
        } catch {
            #expect(error.code == .folderUnusable)
            #expect(error.description.contains("open to others (mode 755); chmod 700 it"), "\(error)")
        }
    }

    /// Sends `line` on a fresh connection and reads until the run closes it.
    func rawExchange(_ path: String, _ line: String) async throws -> String {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            s.sendall((sys.argv[2] + "\\n").encode())
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            sys.stdout.write(data.decode())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path, line]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        // Read on a thread of its own: the run's tasks need the pool's few threads meanwhile.
        let data = await withCheckedContinuation { continuation in
            Thread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: data)
            }.start()
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Checks `condition` until it holds; throws after `timeout`, which is long because in the full suite a hundred
/// suites share two cores and the run's 33 ms snapshot task can wait seconds for a thread.
func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            throw RunServiceError(.connectFailed, detail: "timed out waiting for \(what)")
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
