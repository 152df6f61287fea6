#!/usr/bin/env python3
"""`make bench`: uploader-tui against curl, rclone and its own screen, on 127.0.0.1 (issue 6).

Starts an nginx (a discard sink that reads every body, and WebDAV) and the reference server on
loopback, makes the data under bench/data/ (reused across runs), measures each comparison with the
tools alternating run by run (a warm-up round, then N counted rounds; the order flips every round),
prints the table and writes bench/RESULTS.md. Everything it starts is stopped by PID when it ends,
also on Ctrl-C or SIGTERM.

Python 3 standard library only. Needs nginx with the dav-ext module, rclone, hyperfine, GNU time,
tmux and curl (the Makefile's `bench` target installs them).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import struct
import sys
import time
import urllib.request
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import bwlimit  # comparison 7, in bench/bwlimit.py beside this script
import images  # comparison 6, in bench/images.py beside this script

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DATA = BENCH / "data"
WORK = BENCH / "work"
RESULTS = BENCH / "RESULTS.md"

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
SMALL_COUNT, SMALL_SIZE = 300, 512 * KIB
BIG_SIZE, BIG_CHUNK = 2 * GIB, 8 * MIB
TINY_COUNT, TINY_SIZE = 10_000, 2 * KIB
CONCURRENCY = 8
GNU_TIME_FORMAT = "%M %U %S %e"  # peak RSS KiB, user s, system s, elapsed s
RUN_TIMEOUT = 1800.0

# Goals from issue 6.
GOAL_SMALL_RATIO = 1.0
GOAL_BIG_RATIO = 0.95
GOAL_BIG_RSS_MIB = 32
GOAL_TUI_OVERHEAD = 0.05
GOAL_QUEUE_SECONDS = 1.0
GOAL_QUEUE_RSS_MB = 150


def log(message: str) -> None:
    print(message, flush=True)


class BenchError(Exception):
    """A run that did not do what it should (wrong exit code, bytes missing at the server)."""


# MARK: - Processes


class Processes:
    """Every process bench.py starts, so that all of them are stopped by PID.

    Each child leads a process group of its own (the group's ID is the child's PID): stopping it
    signals the group, which also reaches what it started (GNU time does not pass SIGTERM on to the
    tool it measures)."""

    def __init__(self) -> None:
        self.children: dict[int, tuple[str, subprocess.Popen]] = {}
        self.foreign: dict[int, str] = {}  # PIDs not our children (tmux servers daemonise)

    def spawn(self, label: str, argv: list[str], **kwargs) -> subprocess.Popen:
        process = subprocess.Popen(argv, start_new_session=True, **kwargs)
        self.children[process.pid] = (label, process)
        return process

    def adopt(self, label: str, pid: int) -> None:
        self.foreign[pid] = label

    def wait(self, process: subprocess.Popen, timeout: float = RUN_TIMEOUT) -> int:
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            label = self.children.get(process.pid, ("?",))[0]
            self.stop(process.pid)
            raise BenchError(f"{label} took over {timeout:.0f} s")
        self.children.pop(process.pid, None)
        return code

    def stop(self, pid: int) -> None:
        """SIGTERM to the process group, up to 10 s for a clean exit, then SIGKILL."""
        if pid in self.children:
            _, process = self.children.pop(pid)
            signal_group(pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            signal_group(pid, signal.SIGKILL)  # whatever is left of the group
            process.wait()
        elif pid in self.foreign:
            del self.foreign[pid]
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and pid_alive(pid):
                time.sleep(0.02)
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)

    def stop_all(self) -> None:
        for pid in list(self.foreign) + list(self.children):
            try:
                self.stop(pid)
            except Exception as error:  # keep stopping the others
                print(f"bench: could not stop PID {pid}: {error}", file=sys.stderr)


def signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not reaped by its parent) counts as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] != "Z"
    except OSError:
        return False


PROCESSES = Processes()


# MARK: - Data


def make_files(folder: Path, count: int, size: int, stem: str, width: int) -> list[Path]:
    """`count` files of `size` random bytes in `folder`, reused when already there."""
    paths = [folder / f"{stem}{index:0{width}d}.bin" for index in range(count)]
    if folder.is_dir() and len(list(folder.iterdir())) == count and all(
        p.is_file() and p.stat().st_size == size for p in paths
    ):
        return paths
    log(f"making {count} files of {size // KIB} KiB in {folder.relative_to(REPO)}")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for path in paths:
        path.write_bytes(os.urandom(size))
    return paths


def make_photos(folder: Path, count: int, size: int) -> list[Path]:
    """`count` JPEGs of random pixels, each at least `size` bytes, for the screen's previews: PNGs written here,
    encoded by libvips' `vips` command (quality 95; noise compresses little)."""
    width, height = 384, 682
    paths = [folder / f"p{index:03d}.jpg" for index in range(count)]
    if folder.is_dir() and len(list(folder.iterdir())) == count and all(
        p.is_file() and p.stat().st_size >= size for p in paths
    ):
        return paths
    log(f"making {count} JPEGs of {width}x{height} random pixels in {folder.relative_to(REPO)}")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = folder / "source.png"
    for path in paths:
        rows = b"".join(b"\0" + os.urandom(width * 3) for _ in range(height))
        png.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 0))
                        + chunk(b"IEND", b""))
        subprocess.run(["vips", "copy", str(png), f"{path}[Q=95]"], check=True)
        if path.stat().st_size < size:
            raise BenchError(f"{path.name}: {path.stat().st_size} bytes, fewer than {size}")
    png.unlink()
    return paths


def make_big_file(path: Path) -> Path:
    if path.is_file() and path.stat().st_size == BIG_SIZE:
        return path
    log(f"making {BIG_SIZE // GIB} GiB of random bytes in {path.relative_to(REPO)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with partial.open("wb") as out:
        for _ in range(BIG_SIZE // BIG_CHUNK):
            out.write(os.urandom(BIG_CHUNK))
    partial.rename(path)
    return path


# MARK: - Servers


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, label: str, timeout: float = 15, host: str = "127.0.0.1") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError(f"{label} exited with {process.returncode} while starting")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise BenchError(f"{label} is not listening on {host}:{port} after {timeout:.0f} s")


class Nginx:
    """The discard sink at /sink/ and WebDAV at /dav/, on 127.0.0.1 only; or, given `netns`, on `host` inside that
    network namespace (bench/shaped.py), with `received` counting the bytes that reach it."""

    def __init__(self, name: str = "nginx", host: str = "127.0.0.1", netns: str | None = None,
                 received: Callable[[], int] | None = None) -> None:
        self.dir = WORK / name
        self.davroot = WORK / ("davroot" if name == "nginx" else f"{name}-davroot")
        self.host, self.netns = host, netns
        self.port = free_port()
        self.url = f"http://{host}:{self.port}"
        self.access_log = self.dir / "access.log"
        self.received = received or loopback_rx_bytes
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.davroot, ignore_errors=True)
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (self.dir / "tmp" / sub).mkdir(parents=True)
        (self.davroot / "dav").mkdir(parents=True)
        # As root the workers would run as `nobody`, which may not reach bench/work/ (a checkout
        # under /root); as any other user the `user` directive is ignored.
        user = "user root;" if os.geteuid() == 0 else ""
        config = (BENCH / "nginx.conf.template").read_text()
        for name, value in (("@DIR@", self.dir), ("@DAVROOT@", self.davroot), ("@WORK@", WORK), ("@HOST@", self.host),
                            ("@PORT@", self.port), ("@USER@", user)):
            config = config.replace(name, str(value))
        conf = self.dir / "nginx.conf"
        conf.write_text(config)
        argv = ["nginx", "-p", str(self.dir), "-c", str(conf), "-e", str(self.dir / "error.log")]
        if self.netns:
            argv = ["ip", "netns", "exec", self.netns] + argv
        subprocess.run(argv + ["-t", "-q"], check=True)
        self.process = PROCESSES.spawn(
            "nginx", argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.dir / "stderr.log", "wb"))
        wait_for_port(self.port, self.process, "nginx", host=self.host)

    def stop(self) -> None:
        if self.process:
            PROCESSES.stop(self.process.pid)  # SIGTERM: nginx's fast shutdown
            self.process = None

    def mark(self) -> tuple[int, int]:
        """Where the access log and the loopback byte counter stand before a run."""
        offset = self.access_log.stat().st_size if self.access_log.exists() else 0
        return offset, self.received()

    def check(self, mark: tuple[int, int], method: str, count: int, min_bytes: int) -> dict:
        """Checks a run from nginx's side: `count` requests of `method` logged after `mark`, each
        answered 2xx and declaring a body of at least `min_bytes`, and at least `count * min_bytes`
        bytes received on the loopback interface meanwhile.

        nginx's `$request_length` leaves out a body it discards, so the bytes read are counted on
        `lo`: TCP moves no more than a socket buffer's worth that the server has not read, and
        nginx reads a discarded body to its end before the connection can carry the next request.
        Other loopback traffic can only add to the counter, so it is a lower bound.
        Waits up to 10 s, as nginx logs a request once its body has been read."""
        offset, rx_before = mark
        deadline = time.monotonic() + 10
        while True:
            with self.access_log.open("rb") as f:
                f.seek(offset)
                logged = [line.split() for line in f.read().decode().splitlines()]
            logged = [row for row in logged if len(row) >= 8]
            rows = [row for row in logged if row[0] == method]
            if len(rows) >= count or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if len(rows) != count:
            raise BenchError(f"nginx logged {len(rows)} {method} requests, expected {count}")
        for _, uri, status, declared, *_ in rows:
            if not status.startswith("2"):
                raise BenchError(f"nginx answered {method} {uri} with {status}")
            if not declared.isdigit() or int(declared) < min_bytes:
                raise BenchError(f"{method} {uri} declared a body of {declared} bytes, expected at least {min_bytes}")
        received = self.received() - rx_before
        if rx_before >= 0 and received < count * min_bytes:
            raise BenchError(f"only {received} bytes reached nginx for {count * min_bytes} bytes of uploads")
        ends = [float(row[-1]) for row in rows]
        return {"requests": len(logged), "connections": len({row[5] for row in logged}), "loopback_bytes": received,
                "span": max(ends) - min(ends)}


def loopback_rx_bytes() -> int:
    try:
        return int(Path("/sys/class/net/lo/statistics/rx_bytes").read_text())
    except OSError:
        return -1


class ReferenceServer:
    """`uploader-server` on a free loopback port; one per run, so its statistics are the run's."""

    def __init__(self, binary: Path, name: str) -> None:
        self.binary = binary
        self.root = WORK / "refroot" / name
        self.port_file = WORK / "refroot" / f"{name}.port"
        self.process: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        self.root.mkdir(parents=True)
        self.port_file.unlink(missing_ok=True)
        self.process = PROCESSES.spawn(
            "uploader-server",
            [str(self.binary), "--port", "0", "--port-file", str(self.port_file), "--root", str(self.root)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.root.parent / f"{self.root.name}.log", "wb"))
        deadline = time.monotonic() + 30
        while not (self.port_file.exists() and self.port_file.read_text().strip()):
            if self.process.poll() is not None:
                raise BenchError(f"uploader-server exited with {self.process.returncode} while starting")
            if time.monotonic() > deadline:
                raise BenchError("uploader-server wrote no port file in 30 s")
            time.sleep(0.01)
        # No HTTP request here: the first request the server sees must be the client's.
        self.url = f"http://127.0.0.1:{int(self.port_file.read_text().strip())}"

    def statistics(self) -> dict:
        with urllib.request.urlopen(self.url + "/_stats", timeout=10) as response:
            return json.load(response)

    def stop(self) -> None:
        if self.process:
            PROCESSES.stop(self.process.pid)
            self.process = None
        shutil.rmtree(self.root, ignore_errors=True)


# MARK: - Measuring


@dataclass
class Run:
    """One measured run of one tool."""

    seconds: float
    rss_kib: int
    user: float
    system: float
    exit_code: int
    extra: dict = field(default_factory=dict)


def parse_gnu_time(path: Path) -> tuple[int, float, float, int]:
    """(peak RSS KiB, user s, system s, exit code) from `/usr/bin/time -f GNU_TIME_FORMAT -o path`."""
    lines = path.read_text().strip().splitlines()
    exit_code = 0
    for line in lines[:-1]:
        if line.startswith("Command exited with non-zero status"):
            exit_code = int(line.rsplit(" ", 1)[1])
        elif line.startswith("Command terminated by signal"):
            exit_code = 128 + int(line.rsplit(" ", 1)[1])
    rss, user, system, _ = lines[-1].split()
    return int(rss), float(user), float(system), exit_code


def timed(argv: list[str], time_file: Path) -> list[str]:
    return ["/usr/bin/time", "-f", GNU_TIME_FORMAT, "-o", str(time_file)] + argv


def run_hyperfine(name: str, argv: list[str], env: dict | None = None) -> Run:
    """One run of `argv` under GNU time, timed by `hyperfine --runs 1 -N`; its stdout goes to
    WORK/out/<name>.out."""
    out = WORK / "out"
    out.mkdir(parents=True, exist_ok=True)
    time_file, json_file, stdout_file = out / f"{name}.time", out / f"{name}.hyperfine.json", out / f"{name}.out"
    for path in (time_file, json_file, stdout_file):
        path.unlink(missing_ok=True)
    command = shlex.join(timed(argv, time_file))
    hyperfine = [
        "hyperfine", "--runs", "1", "-N", "--style", "none", "--ignore-failure",
        "--output", str(stdout_file), "--export-json", str(json_file), command,
    ]
    process = PROCESSES.spawn(
        name, hyperfine, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=open(out / f"{name}.hyperfine.err", "wb"), env=env)
    if PROCESSES.wait(process) != 0:
        raise BenchError(f"hyperfine failed for {name}: see {out / (name + '.hyperfine.err')}")
    result = json.loads(json_file.read_text())["results"][0]
    rss, user, system, exit_code = parse_gnu_time(time_file)
    return Run(seconds=result["times"][0], rss_kib=rss, user=user, system=system, exit_code=exit_code,
               extra={"stdout": stdout_file})


def summary_line(stdout_file: Path) -> dict:
    """The last NDJSON line of uploader-tui --json: the summary."""
    lines = stdout_file.read_text().strip().splitlines()
    summary = json.loads(lines[-1]) if lines else {}
    if summary.get("event") != "summary":
        raise BenchError(f"no summary line at the end of {stdout_file}")
    return summary


def check_summary(run: Run, files: int, name: str) -> dict:
    summary = summary_line(run.extra["stdout"])
    if run.exit_code != 0 or summary.get("done") != files:
        raise BenchError(f"{name}: exit {run.exit_code}, {summary.get('done')} of {files} done ({run.extra['stdout']})")
    run.extra["peak_rss_bytes"] = summary.get("peak_rss_bytes")
    return summary


def fresh_journal(name: str) -> Path:
    folder = WORK / "journals"
    folder.mkdir(parents=True, exist_ok=True)
    journal = folder / f"{name}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(journal) + suffix).unlink(missing_ok=True)
    return journal


def drop_journal(journal: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(journal) + suffix).unlink(missing_ok=True)


def alternate(label: str, rounds: int, tools: list[tuple[str, Callable[[str], Run]]]) -> dict[str, list[Run]]:
    """A warm-up round (not counted), then `rounds` counted rounds; the tools' order flips every round
    (A B, B A, A B, ...) so neither always goes first. Each tool is called with a unique run name."""
    results: dict[str, list[Run]] = {name: [] for name, _ in tools}
    for round_index in range(rounds + 1):
        order = tools if round_index % 2 == 0 else list(reversed(tools))
        for name, measure in order:
            tag = "warm-up" if round_index == 0 else f"{round_index}/{rounds}"
            run = measure(f"{label}-{name}-{round_index}")
            log(f"  {label} {tag:>7} {name:<16} {run.seconds:8.3f} s  RSS {run.rss_kib / KIB:7.1f} MiB"
                f"  user {run.user:6.2f} s  sys {run.system:6.2f} s")
            if round_index > 0:
                results[name].append(run)
    return results


# MARK: - The comparisons


class Bench:
    def __init__(self, binaries: Path, runs: int, big_runs: int, queue_route: str) -> None:
        self.tui = binaries / "uploader-tui"
        self.server = binaries / "uploader-server"
        self.runs, self.big_runs = runs, big_runs
        self.queue_route = queue_route
        self.nginx = Nginx()
        self.commands: dict[str, str] = {}
        self.results: dict[str, dict[str, list[Run]]] = {}
        self.small_dir = DATA / "small-300"
        self.big_file = DATA / "big" / "big.bin"
        self.tiny_dir = DATA / "tiny-10k"
        self.photo_dir = DATA / "photos-300"

    def remember(self, key: str, argv: list[str]) -> None:
        if key not in self.commands:
            text = shlex.join(argv).replace(str(REPO) + "/", "")
            self.commands[key] = text.replace(f"127.0.0.1:{self.nginx.port}", "127.0.0.1:$PORT")

    def prepare(self, selected: set[str]) -> None:
        """Makes the data of the selected comparisons (the 2 GiB file only when `big` runs) and starts nginx."""
        if selected & {"post", "put", "tui"}:
            make_files(self.small_dir, SMALL_COUNT, SMALL_SIZE, "f", 3)
        if "tui" in selected:
            make_photos(self.photo_dir, SMALL_COUNT, SMALL_SIZE)
        if "big" in selected:
            make_big_file(self.big_file)
        if "queue" in selected:
            make_files(self.tiny_dir, TINY_COUNT, TINY_SIZE, "s", 5)
        self.nginx.start()
        log(f"nginx on {self.nginx.url} (sink /sink/, WebDAV /dav/)")

    # 1. 300 files, multipart POST, 8 in flight, to the discard sink.
    def small_post(self) -> None:
        sink = f"{self.nginx.url}/sink/"
        config = WORK / "curl-small-post.cfg"
        blocks = []
        for path in sorted(self.small_dir.iterdir()):
            blocks.append(f'url = "{sink}"\nform = "file=@{path}"\noutput = "/dev/null"\n')
        config.write_text("next\n".join(blocks))

        def tui(name: str) -> Run:
            journal = fresh_journal(name)
            argv = [str(self.tui), str(self.small_dir), "--to", sink, "--no-tui", "--json",
                    "--concurrency", str(CONCURRENCY), "--journal", str(journal)]
            self.remember("small_post_tui", argv)
            mark = self.nginx.mark()
            run = run_hyperfine(name, argv)
            check_summary(run, SMALL_COUNT, name)
            run.extra.update(self.nginx.check(mark, "POST", SMALL_COUNT, SMALL_SIZE))
            drop_journal(journal)
            return run

        def curl(name: str) -> Run:
            # curl 7.88's -s leaves the parallel progress meter on; --no-progress-meter turns it off.
            argv = ["curl", "-s", "--no-progress-meter", "--parallel", "--parallel-max", str(CONCURRENCY),
                    "-K", str(config)]
            self.remember("small_post_curl", argv)
            mark = self.nginx.mark()
            run = run_hyperfine(name, argv)
            if run.exit_code != 0:
                raise BenchError(f"{name}: curl exited with {run.exit_code}")
            run.extra.update(self.nginx.check(mark, "POST", SMALL_COUNT, SMALL_SIZE))
            return run

        log("1. 300 x 512 KiB, multipart POST, 8 in flight -> nginx discard sink")
        self.results["small_post"] = alternate("post", self.runs, [("uploader-tui", tui), ("curl", curl)])

    # 2. The same files by PUT to WebDAV, against rclone.
    def small_put(self) -> None:
        dav = f"{self.nginx.url}/dav/"

        def verify(folder: str, name: str) -> None:
            stored = self.nginx.davroot / "dav" / folder
            sizes = {p.name: p.stat().st_size for p in stored.iterdir()} if stored.is_dir() else {}
            expected = {p.name: SMALL_SIZE for p in self.small_dir.iterdir()}
            if sizes != expected:
                raise BenchError(f"{name}: {len(sizes)} files in {stored}, expected {SMALL_COUNT} of {SMALL_SIZE} B")
            shutil.rmtree(stored)  # keeps the disk small; outside the timed part

        def tui(name: str) -> Run:
            journal = fresh_journal(name)
            argv = [str(self.tui), str(self.small_dir), "--put", f"{dav}{name}/", "--no-tui", "--json",
                    "--concurrency", str(CONCURRENCY), "--journal", str(journal)]
            self.remember("small_put_tui", argv)
            mark = self.nginx.mark()
            run = run_hyperfine(name, argv)
            check_summary(run, SMALL_COUNT, name)
            run.extra.update(self.nginx.check(mark, "PUT", SMALL_COUNT, SMALL_SIZE))
            verify(name, name)
            drop_journal(journal)
            return run

        def rclone(name: str) -> Run:
            argv = ["rclone", "copy", str(self.small_dir), f":webdav:{name}", "--webdav-url", dav,
                    "--transfers", str(CONCURRENCY)]
            self.remember("small_put_rclone", argv)
            # No rclone.conf: the remote is given on the command line.
            env = dict(os.environ, RCLONE_CONFIG=str(WORK / "rclone.conf"))
            mark = self.nginx.mark()
            run = run_hyperfine(name, argv, env=env)
            if run.exit_code != 0:
                raise BenchError(f"{name}: rclone exited with {run.exit_code}")
            run.extra.update(self.nginx.check(mark, "PUT", SMALL_COUNT, SMALL_SIZE))
            verify(name, name)
            return run

        log("2. the same 300 files by PUT -> nginx WebDAV")
        self.results["small_put"] = alternate("put", self.runs, [("uploader-tui", tui), ("rclone", rclone)])

    # 3. One 2 GiB file, PUT to the discard sink.
    def big_put(self) -> None:
        sink = f"{self.nginx.url}/sink/"

        def tui(name: str) -> Run:
            journal = fresh_journal(name)
            argv = [str(self.tui), str(self.big_file), "--put", sink, "--no-tui", "--json",
                    "--journal", str(journal)]
            self.remember("big_tui", argv)
            mark = self.nginx.mark()
            run = run_hyperfine(name, argv)
            check_summary(run, 1, name)
            run.extra.update(self.nginx.check(mark, "PUT", 1, BIG_SIZE))
            drop_journal(journal)
            return run

        def curl(name: str) -> Run:
            argv = ["curl", "-s", "-T", str(self.big_file), f"{sink}big.bin", "-o", "/dev/null"]
            self.remember("big_curl", argv)
            mark = self.nginx.mark()
            run = run_hyperfine(name, argv)
            if run.exit_code != 0:
                raise BenchError(f"{name}: curl exited with {run.exit_code}")
            run.extra.update(self.nginx.check(mark, "PUT", 1, BIG_SIZE))
            return run

        log("3. one 2 GiB file, PUT -> nginx discard sink")
        self.results["big"] = alternate("big", self.big_runs, [("uploader-tui", tui), ("curl", curl)])

    # 4. The screen in tmux against headless, on 300 photos (JPEG) to the sink. At 130 columns the screen draws the selected
    # image's preview beside the list, and a key moves the selection every 0.2 s, so previews are decoded all along
    # (headless is sent the same keys and ignores them).
    def tui_overhead(self) -> None:
        sink = f"{self.nginx.url}/sink/"
        socket_name = f"bench-{os.getpid()}"
        tmux = ["tmux", "-L", socket_name]
        quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        # A placeholder session keeps this private server up, so its start-up is not timed.
        subprocess.run(tmux + ["-f", "/dev/null", "new-session", "-d", "-s", "idle", "-x", "100", "-y", "30",
                               "sleep 86400"], check=True, **quiet)
        server_pid = int(subprocess.run(tmux + ["display-message", "-p", "-t", "idle", "#{pid}"],
                                        check=True, capture_output=True, text=True).stdout.strip())
        PROCESSES.adopt("tmux server", server_pid)

        def measure(name: str, headless: bool) -> Run:
            journal = fresh_journal(name)
            out = WORK / "out"
            out.mkdir(parents=True, exist_ok=True)
            exit_file, time_file = out / f"{name}.exit", out / f"{name}.time"
            exit_file.unlink(missing_ok=True)
            argv = [str(self.tui), str(self.photo_dir), "--to", sink, "--concurrency", str(CONCURRENCY),
                    "--journal", str(journal), "--exit-when-done"] + (["--no-tui"] if headless else [])
            self.remember("tui_headless" if headless else "tui_screen", argv)
            command = f"{shlex.join(timed(argv, time_file))}; echo $? > {shlex.quote(str(exit_file))}"
            mark = self.nginx.mark()
            started = time.perf_counter()
            subprocess.run(tmux + ["new-session", "-d", "-s", name, "-x", "130", "-y", "30",
                                   "-e", "TERM=xterm-256color", "-e", "LANG=C.UTF-8", command],
                           check=True, **quiet)
            deadline = time.monotonic() + RUN_TIMEOUT
            next_key = time.monotonic() + 0.2
            while not (exit_file.exists() and exit_file.read_text().strip()):
                if time.monotonic() > deadline:
                    raise BenchError(f"{name}: no exit file after {RUN_TIMEOUT:.0f} s")
                # Both runs get the keys (headless ignores them), so the tmux clients they take are in both.
                if time.monotonic() >= next_key:
                    next_key += 0.2
                    subprocess.run(tmux + ["send-keys", "-t", name, "j"], **quiet)
                time.sleep(0.01)
            seconds = time.perf_counter() - started
            code = int(exit_file.read_text().strip())
            rss, user, system, _ = parse_gnu_time(time_file)
            if code != 0:
                raise BenchError(f"{name}: uploader-tui exited with {code}")
            checked = self.nginx.check(mark, "POST", SMALL_COUNT, SMALL_SIZE)
            drop_journal(journal)
            return Run(seconds=seconds, rss_kib=rss, user=user, system=system, exit_code=code, extra=checked)

        log("4. the screen (tmux, 130x30, previews and graph) against --no-tui, 300 photos -> sink")
        try:
            self.results["tui"] = alternate("tui", self.runs, [
                ("screen", lambda name: measure(name, headless=False)),
                ("no-tui", lambda name: measure(name, headless=True)),
            ])
        finally:
            subprocess.run(tmux + ["kill-server"], **quiet)
            PROCESSES.stop(server_pid)

    # 5. 10,000 small files queued: start-up to the first request, and peak RSS.
    def queue_10k(self) -> None:
        def measure(name: str) -> Run:
            server = ReferenceServer(self.server, name)
            server.start()
            try:
                journal = fresh_journal(name)
                out = WORK / "out"
                out.mkdir(parents=True, exist_ok=True)
                time_file, stdout_file = out / f"{name}.time", out / f"{name}.out"
                if self.queue_route == "post":
                    destination = ["--to", f"{server.url}/datasets/bench/images"]
                else:
                    destination = ["--put", f"{server.url}/files/bench/"]
                argv = [str(self.tui), str(self.tiny_dir), *destination,
                        "--no-tui", "--json", "--concurrency", str(CONCURRENCY), "--journal", str(journal)]
                self.remember("queue_tui", [a.replace(server.url, "http://127.0.0.1:$REF_PORT") for a in argv])
                # Launched directly (no hyperfine in between) so the launch time is the client's own.
                launched = time.time()
                started = time.perf_counter()
                process = PROCESSES.spawn(name, timed(argv, time_file), stdin=subprocess.DEVNULL,
                                          stdout=open(stdout_file, "wb"), stderr=open(out / f"{name}.err", "wb"))
                PROCESSES.wait(process)
                seconds = time.perf_counter() - started
                rss, user, system, code = parse_gnu_time(time_file)
                run = Run(seconds=seconds, rss_kib=rss, user=user, system=system, exit_code=code,
                          extra={"stdout": stdout_file})
                check_summary(run, TINY_COUNT, name)
                stats = server.statistics()
                if stats.get("filesStored", 0) < TINY_COUNT:
                    raise BenchError(f"{name}: the server stored {stats.get('filesStored')} of {TINY_COUNT} files")
                first = stats.get("firstRequestAt")
                if first is None:
                    raise BenchError("the reference server has no firstRequestAt: rebuild uploader-server")
                run.extra["first_request"] = first - launched
                drop_journal(journal)
                return run
            finally:
                server.stop()

        def measure_logged(name: str) -> Run:
            run = measure(name)
            log(f"  {name}: first request after {run.extra['first_request'] * 1000:.0f} ms")
            return run

        log(f"5. 10,000 x 2 KiB queued -> reference server ({self.queue_route.upper()})")
        self.results["queue"] = alternate("queue", self.runs, [("uploader-tui", measure_logged)])


# MARK: - Report


def med(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float], digits: int) -> str:
    return f"{med(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def machine() -> dict[str, str]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "unknown")
    mem_kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:"))
    release = Path("/etc/os-release").read_text()
    distro = next((line.split("=", 1)[1].strip('"') for line in release.splitlines()
                   if line.startswith("PRETTY_NAME=")), "unknown")
    return {
        "CPUs (nproc)": str(os.cpu_count()),
        "CPU": cpu,
        "RAM": f"{mem_kib / KIB / KIB:.1f} GiB",
        "kernel": f"{platform.system()} {platform.release()}",
        "OS": distro,
    }


def first_line(argv: list[str]) -> str:
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=REPO)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unavailable ({error})"
    text = (result.stdout or "") + (result.stderr or "")
    return next((line.strip() for line in text.splitlines() if line.strip()), "unknown")


def versions() -> dict[str, str]:
    commit = first_line(["git", "rev-parse", "--short", "HEAD"])
    # RESULTS.md itself is rewritten by every run, so it does not count as a change to what is measured.
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                            ":(exclude)bench/RESULTS.md"], capture_output=True, text=True, cwd=REPO).stdout.strip()
    if dirty:
        commit += " (working tree with uncommitted changes)"
    return {
        "uploader-tui": commit,
        "swift": first_line(["swift", "--version"]),
        "curl": first_line(["curl", "--version"]),
        "rclone": first_line(["rclone", "version"]),
        "nginx": first_line(["nginx", "-v"]),
        "hyperfine": first_line(["hyperfine", "--version"]),
        "tmux": first_line(["tmux", "-V"]),
    }


def report(bench: Bench, started: datetime.datetime, elapsed: float, load: float, tools: dict[str, str]) -> str:
    r = bench.results
    rows: list[tuple[str, str, str, str, str]] = []
    goals: list[tuple[str, str, bool]] = []

    def mib_rss(runs: list[Run]) -> list[float]:
        return [run.rss_kib / KIB for run in runs]

    def cpu(runs: list[Run]) -> list[float]:
        return [run.user + run.system for run in runs]

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}x"

    def traffic(runs: list[Run]) -> str:
        return f"{med([run.extra['requests'] for run in runs]):.0f} / {med([run.extra['connections'] for run in runs]):.0f}"

    fps = lambda runs: [SMALL_COUNT / run.seconds for run in runs]
    mbs = lambda runs: [SMALL_COUNT * SMALL_SIZE / run.seconds / 1e6 for run in runs]

    def small_rows(title: str, tui: list[Run], peer: list[Run]) -> list[tuple]:
        """The rows of a 300-file comparison."""
        seconds = lambda runs: [x.seconds for x in runs]
        span = lambda runs: [x.extra["span"] for x in runs]
        outside = lambda runs: [x.seconds - x.extra["span"] for x in runs]
        return [
            (title, "files/s (higher is better)", spread(fps(tui), 1), spread(fps(peer), 1), ratio(med(fps(tui)), med(fps(peer)))),
            ("", "MB/s (10⁶ B; higher is better)", spread(mbs(tui), 1), spread(mbs(peer), 1), ratio(med(mbs(tui)), med(mbs(peer)))),
            ("", "wall time, s", spread(seconds(tui), 3), spread(seconds(peer), 3), ratio(med(seconds(tui)), med(seconds(peer)))),
            ("", "first to last request done, on nginx's clock, s", spread(span(tui), 3), spread(span(peer), 3), ratio(med(span(tui)), med(span(peer)))),
            ("", "wall time outside that span (start-up, first request, last answer, exit), s", spread(outside(tui), 3), spread(outside(peer), 3), ratio(med(outside(tui)), med(outside(peer)))),
            ("", "CPU user+sys, s", spread(cpu(tui), 2), spread(cpu(peer), 2), ratio(med(cpu(tui)), med(cpu(peer)))),
            ("", "peak RSS, MiB", spread(mib_rss(tui), 1), spread(mib_rss(peer), 1), ratio(med(mib_rss(tui)), med(mib_rss(peer)))),
            ("", "HTTP requests / TCP connections (nginx log, median)", traffic(tui), traffic(peer), "—"),
        ]

    if "small_post" in r:
        tui, curl = r["small_post"]["uploader-tui"], r["small_post"]["curl"]
        rows += small_rows("1. 300 × 512 KiB, multipart POST, 8 in flight → nginx sink; peer: `curl --parallel`", tui, curl)
        value = med(fps(tui)) / med(fps(curl))
        goals.append((f"300 small files: ≥ {GOAL_SMALL_RATIO:.2f}x curl's files/s",
                      f"{value:.2f}x ({med(fps(tui)):.1f} vs {med(fps(curl)):.1f} files/s)", value >= GOAL_SMALL_RATIO))
    if "small_put" in r:
        tui, rclone = r["small_put"]["uploader-tui"], r["small_put"]["rclone"]
        rows += small_rows(
            "2. the same 300 files, PUT, 8 in flight → nginx WebDAV; peer: `rclone copy --transfers 8`", tui, rclone)
    if "big" in r:
        tui, curl = r["big"]["uploader-tui"], r["big"]["curl"]
        rate = lambda runs: [BIG_SIZE / MIB / run.seconds for run in runs]
        title = "3. one 2 GiB file, PUT → nginx sink; peer: `curl -T`"
        reported = [run.extra.get("peak_rss_bytes") or 0 for run in tui]
        rows += [
            (title, "MiB/s (higher is better)", spread(rate(tui), 0), spread(rate(curl), 0), ratio(med(rate(tui)), med(rate(curl)))),
            ("", "wall time, s", spread([x.seconds for x in tui], 2), spread([x.seconds for x in curl], 2), ratio(med([x.seconds for x in tui]), med([x.seconds for x in curl]))),
            ("", "CPU user+sys, s", spread(cpu(tui), 2), spread(cpu(curl), 2), ratio(med(cpu(tui)), med(cpu(curl)))),
            ("", "peak RSS (GNU time %M), MiB (lower is better)", spread(mib_rss(tui), 1), spread(mib_rss(curl), 1), ratio(med(mib_rss(tui)), med(mib_rss(curl)))),
            ("", "peak RSS (its own `peak_rss_bytes`), MiB", spread([b / MIB for b in reported], 1), "—", "—"),
        ]
        value = med(rate(tui)) / med(rate(curl))
        goals.append((f"2 GiB file: ≥ {GOAL_BIG_RATIO:.2f}x curl -T's throughput",
                      f"{value:.2f}x ({med(rate(tui)):.0f} vs {med(rate(curl)):.0f} MiB/s)", value >= GOAL_BIG_RATIO))
        peak = max(mib_rss(tui))
        goals.append((f"2 GiB file: client peak RSS ≤ {GOAL_BIG_RSS_MIB} MiB (highest of the counted runs)",
                      f"{peak:.1f} MiB", peak <= GOAL_BIG_RSS_MIB))
    if "tui" in r:
        screen, headless = r["tui"]["screen"], r["tui"]["no-tui"]
        secs = lambda runs: [run.seconds for run in runs]
        title = ("4. the screen in tmux (130×30, graph and image previews, the selection moving) vs `--no-tui`, "
                 "300 photos (JPEG) → sink; peer: itself headless")
        rows += [
            (title, "wall time, s (lower is better)", spread(secs(screen), 3), spread(secs(headless), 3), ratio(med(secs(screen)), med(secs(headless)))),
            ("", "CPU user+sys, s", spread(cpu(screen), 2), spread(cpu(headless), 2), ratio(med(cpu(screen)), med(cpu(headless)))),
            ("", "peak RSS, MiB", spread(mib_rss(screen), 1), spread(mib_rss(headless), 1), ratio(med(mib_rss(screen)), med(mib_rss(headless)))),
        ]
        overhead = med(secs(screen)) / med(secs(headless)) - 1
        goals.append((f"screen within {GOAL_TUI_OVERHEAD:.0%} of headless (median wall time)",
                      f"{overhead:+.1%}", overhead <= GOAL_TUI_OVERHEAD))
    photo_rows, photo_goals = images.rows(r, sys.modules[__name__])
    rows += photo_rows
    goals += photo_goals
    cap_rows, cap_goals = bwlimit.rows(r, sys.modules[__name__])
    rows += cap_rows
    goals += cap_goals
    if "queue" in r:
        runs = r["queue"]["uploader-tui"]
        first = [run.extra["first_request"] for run in runs]
        reported = [run.extra.get("peak_rss_bytes") or 0 for run in runs]
        route = "PUT /files/" if bench.queue_route == "put" else "multipart POST /datasets/…/images"
        title = f"5. 10,000 × 2 KiB queued, 8 in flight → reference server, {route} (no peer)"
        rows += [
            (title, "launch → first request at the server, s", spread(first, 3), "—", "—"),
            ("", "whole run, s", spread([run.seconds for run in runs], 2), "—", "—"),
            ("", "files/s", spread([TINY_COUNT / run.seconds for run in runs], 0), "—", "—"),
            ("", "CPU user+sys, s", spread(cpu(runs), 2), "—", "—"),
            ("", "peak RSS (GNU time %M), MB (10⁶ B)", spread([run.rss_kib * KIB / 1e6 for run in runs], 1), "—", "—"),
            ("", "peak RSS (its own `peak_rss_bytes`), MB", spread([b / 1e6 for b in reported], 1), "—", "—"),
        ]
        goals.append((f"10,000 files queued: first request in < {GOAL_QUEUE_SECONDS:.0f} s (median)",
                      f"{med(first):.3f} s", med(first) < GOAL_QUEUE_SECONDS))
        peak = max(run.rss_kib * KIB / 1e6 for run in runs)
        goals.append((f"10,000 files queued: peak RSS < {GOAL_QUEUE_RSS_MB} MB (highest of the counted runs)",
                      f"{peak:.1f} MB", peak < GOAL_QUEUE_RSS_MB))

    lines = [
        "# `make bench` results",
        "",
        f"Date: {started.strftime('%Y-%m-%d %H:%M %Z')}. The whole run took {elapsed / 60:.1f} min.",
        "",
        "Generated by `bench/bench.py` (`make bench`). Every figure is the median of the counted runs with",
        "the minimum–maximum in brackets; ratio = uploader-tui ÷ peer, of the medians. For rates higher is",
        "better, for times, CPU and memory lower is better. Each comparison ran a warm-up round (not",
        "counted), then alternated the tools run by run, flipping the order every round (A B, B A, …).",
        f"Counted rounds: {bench.runs} (the 2 GiB file: {bench.big_runs}).",
        "",
        "## Machine",
        "",
    ]
    lines += [f"- {key}: {value}" for key, value in machine().items()]
    lines += [f"- load average (1 min) before the first run: {load:.2f}"]
    lines += ["", "## Versions", ""]
    lines += [f"- {key}: {value}" for key, value in tools.items()]
    lines += [
        "",
        "## Results",
        "",
        "| comparison | metric | uploader-tui | peer | ratio |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    lines += ["", "## Goals (issue 6)", "", "| goal | measured | |", "|---|---|---|"]
    lines += [f"| {goal} | {value} | {'met' if ok else '**missed**'} |" for goal, value, ok in goals]
    lines += [
        "",
        "## Setup",
        "",
        f"- nginx {first_line(['nginx', '-v']).split('/')[-1]} on 127.0.0.1, `worker_processes 1` (2 cores: one",
        "  for the server, one for the client), `keepalive_requests 100000`. `/sink/` is `return 200` with",
        "  `client_max_body_size 0` and `lingering_time 60s`: nginx answers at once, then reads every body",
        "  to its end and drops it, and logs the request only then. After every run bench.py checks the",
        "  access log (the right number of requests, each 2xx, each declaring a body of at least the",
        "  file's size) and the loopback interface's received bytes (at least the files' bytes; nginx's",
        "  `$request_length` leaves out a discarded body, so it cannot show them). `/dav/` is WebDAV",
        "  (`dav_methods`, `dav_ext_methods PROPFIND OPTIONS`, `create_full_put_path on`); after every run",
        "  all 300 files are checked for name and size, then deleted (outside the timed part). Config:",
        "  `bench/nginx.conf.template`. nginx logs `$msec` as it writes each line, once the body is read: the",
        "  first-to-last span is the transfers as the server saw them, and wall time minus it is everything",
        "  else (start-up, the first request's own time, the last answer, exit).",
        "- The reference server (`uploader-server --port 0`) is started fresh for every run of",
        "  comparison 5 and gets no request before the client's: its `/_stats` `firstRequestAt` minus the",
        "  time taken just before spawning the client is the start-up time. The whole run's time includes",
        "  the server's modeling step for every file (`--queue-route put` uses `PUT /files/` instead).",
        f"- Data (random bytes, `bench/data/`): {SMALL_COUNT} × {SMALL_SIZE // KIB} KiB, one"
        f" {BIG_SIZE // GIB} GiB file, {TINY_COUNT:,} × {TINY_SIZE // KIB} KiB; all in the page cache.",
        "- Comparisons 1–3: one `hyperfine --runs 1 -N` per run (wall time), the tool under",
        "  `/usr/bin/time -f '%M %U %S %e'` (peak RSS, CPU). Comparison 4: both modes in one private tmux",
        "  server (`tmux -L`, started beforehand with a placeholder session, so its start-up is not",
        "  timed), a new 100×30 session per run (`TERM=xterm-256color`, `LANG=C.UTF-8`); time from",
        "  launching the session to its exit file (polled every 10 ms), so hyperfine is not used there.",
        "  Comparison 5: spawned directly and timed with `time.perf_counter` (no hyperfine in between,",
        "  so the launch time is the client's own).",
        "- uploader-tui runs with its journal on (a fresh `--journal` file per run, so nothing is",
        "  skipped).",
        "- Comparison 7: the achieved rate is the PUT bodies' bytes over the span nginx saw, from the",
        "  first body's first byte (`$msec - $request_time`) to the last body's end; ÷ the cap (MiB/s).",
        "",
        "## Commands",
        "",
        "`$PORT` is nginx's port, `$REF_PORT` the reference server's. Shown as run in the warm-up round;",
        "every run gets its own journal file and, for WebDAV, its own remote folder.",
        "",
    ]
    for key, command in bench.commands.items():
        lines += [f"- {key}: `{command}`"]
    if "small_post_curl" in bench.commands:
        lines += ["", "curl's config holds one block per file, separated by `next`:", "",
                  "```", 'url = "http://127.0.0.1:$PORT/sink/"', 'form = "file=@bench/data/small-300/f000.bin"',
                  'output = "/dev/null"', "next", "…", "```"]
    return "\n".join(lines) + "\n"


# MARK: - Main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, type=Path,
                        help="folder with release uploader-tui and uploader-server (swift build -c release --show-bin-path)")
    parser.add_argument("--runs", type=int, default=5, help="counted rounds per comparison (default 5)")
    parser.add_argument("--big-runs", type=int, help="counted rounds for the 2 GiB file (default: --runs)")
    parser.add_argument("--only", default="post,put,big,tui,queue,photos,shaped,bwlimit",
                        help="comma-separated subset of post,put,big,tui,queue,photos,shaped,bwlimit (default: all)")
    parser.add_argument("--queue-route", choices=("post", "put"), default="post",
                        help="comparison 5's route on the reference server: post (multipart POST "
                             "/datasets/bench/images, the default) or put (PUT /files/bench/, no modeling step)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where to write the Markdown report")
    args = parser.parse_args()
    binaries = args.bin.resolve()
    for name in ("uploader-tui", "uploader-server"):
        if not os.access(binaries / name, os.X_OK):
            parser.error(f"{binaries / name} is missing: build it with `swift build -c release --product {name}`")
    for tool in ("nginx", "curl", "rclone", "hyperfine", "tmux"):
        if not shutil.which(tool):
            parser.error(f"{tool} is not installed: `make bench` installs it")
    if not os.access("/usr/bin/time", os.X_OK):
        parser.error("/usr/bin/time (GNU time) is not installed: `make bench` installs it")
    if not Path("/usr/lib/nginx/modules/ngx_http_dav_ext_module.so").exists():
        parser.error("nginx's dav-ext module is missing: apt-get install libnginx-mod-http-dav-ext")

    # SIGINT, SIGTERM and SIGHUP unwind through the `finally` that stops every child. SIGINT is set
    # too because a shell starts background jobs with it ignored, and Python then leaves it so.
    def terminate(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, terminate)

    started = datetime.datetime.now(datetime.timezone.utc)
    clock = time.monotonic()
    load_before = os.getloadavg()[0]
    if load_before > 0.5:
        log(f"bench: the load average is {load_before:.2f}; other work on the machine skews the figures")
    tools = versions()  # before measuring: the commit the binaries were just built from
    WORK.mkdir(parents=True, exist_ok=True)
    bench = Bench(binaries, args.runs, args.big_runs or args.runs, args.queue_route)
    selected = set(args.only.split(","))
    try:
        bench.prepare(selected)
        steps = [("post", bench.small_post), ("put", bench.small_put), ("big", bench.big_put),
                 ("tui", bench.tui_overhead), ("queue", bench.queue_10k),
                 ("photos", lambda: images.run(bench, sys.modules[__name__])),
                 ("shaped", lambda: images.run_shaped(bench, sys.modules[__name__])),
                 ("bwlimit", lambda: bwlimit.run(bench, sys.modules[__name__]))]
        for key, step in steps:
            if key in selected:
                step()
    except BenchError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench: interrupted; stopping what it started", file=sys.stderr)
        return 130
    finally:
        bench.nginx.stop()
        PROCESSES.stop_all()
    text = report(bench, started, time.monotonic() - clock, load_before, tools)
    args.results.write_text(text)
    log("")
    log(text)
    log(f"wrote {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
