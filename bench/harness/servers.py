"""The servers the clients upload to: nginx (sink, WebDAV; plain, TLS or HTTP/2) and the reference server."""
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Callable

from .common import BENCH, WORK, BenchError
from .processes import PROCESSES


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
    network namespace (the shaped link), with `received` counting the bytes that reach it. Given `tls` (a
    harness.tls.Certificates), it speaks HTTPS, and with `http2` also HTTP/2 by ALPN. Given `upstream` (a port on
    127.0.0.1), every other path is passed on to that server: the TLS front of the S3 comparison."""

    def __init__(self, name: str = "nginx", host: str = "127.0.0.1", netns: str | None = None,
                 received: Callable[[], int] | None = None, tls=None, http2: bool = False,
                 upstream: int | None = None) -> None:
        self.dir = WORK / name
        self.davroot = WORK / ("davroot" if name == "nginx" else f"{name}-davroot")
        self.host, self.netns = host, netns
        self.tls, self.http2, self.upstream = tls, http2, upstream
        self.port = free_port()
        self.url = f"{'https' if tls else 'http'}://{host}:{self.port}"
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
        flags, tls = "", ""
        if self.tls:
            flags = " ssl http2" if self.http2 else " ssl"
            # Session resumption (tickets and a cache) is on, as on any real server.
            tls = (f"        ssl_certificate {self.tls.server_cert};\n        ssl_certificate_key {self.tls.server_key};\n"
                   "        ssl_protocols TLSv1.2 TLSv1.3;\n        ssl_session_cache shared:bench:1m;\n"
                   "        ssl_session_tickets on;")
        proxy = ""
        if self.upstream:
            # Streamed on as it arrives, with the client's Host header, over which S3 signatures are computed.
            proxy = ("        location / {\n            client_max_body_size 0;\n            proxy_request_buffering off;\n"
                     "            proxy_http_version 1.1;\n            proxy_set_header Host $http_host;\n"
                     f"            proxy_pass http://127.0.0.1:{self.upstream};\n        }}")
        for name, value in (("@DIR@", self.dir), ("@DAVROOT@", self.davroot), ("@WORK@", WORK), ("@HOST@", self.host),
                            ("@PORT@", self.port), ("@USER@", user), ("@LISTEN_FLAGS@", flags), ("@TLS@", tls),
                            ("@PROXY@", proxy)):
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
                "span": max(ends) - min(ends), "log_offset": offset}


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
