"""A link shaped like a home uplink, made by the bench and removed after it: a network namespace of its own joined
to this one by a veth pair on a private /30, nginx listening inside it, and a `tbf` qdisc on the veth's egress, so
what the client sends is held to the rate. Given a round-trip time, the client talks to nginx through the delay
proxy (harness/delay_proxy.py) inside the namespace. Nothing outside the machine is touched.

Needs root (`ip netns`, `tc`), iproute2 and the sch_tbf kernel module."""
import os
import sys
import shutil
import subprocess
from pathlib import Path

from .common import BenchError
from .processes import PROCESSES
from .servers import Nginx, free_port, wait_for_port

ROOT_ADDRESS, NS_ADDRESS = "10.213.77.1", "10.213.77.2"


def unavailable() -> str | None:
    """Why no shaped link can be made here, or None."""
    if os.geteuid() != 0:
        return "needs root for ip netns and tc"
    for tool in ("ip", "tc"):
        if not shutil.which(tool):
            return f"{tool} is not installed (iproute2)"
    return None


class ShapedLink:
    """`with ShapedLink(rate_mbit=50) as link:` gives `link.nginx` (the bench's Nginx inside the namespace),
    started and reachable at `link.url` through the shaped veth (and the delay proxy, given `rtt_ms`)."""

    def __init__(self, rate_mbit: int, rtt_ms: int = 0) -> None:
        self.rate_mbit, self.rtt_ms = rate_mbit, rtt_ms
        suffix = os.getpid()
        self.netns, self.veth, self.peer = f"ut-bench-{suffix}", f"utb{suffix % 100000}a", f"utb{suffix % 100000}b"
        counter = Path(f"/sys/class/net/{self.veth}/statistics/tx_bytes")
        self.proxy = None
        self.url = ""
        self.nginx = Nginx(name="nginx-shaped", host=NS_ADDRESS, netns=self.netns,
                             received=lambda: int(counter.read_text()))

    def __enter__(self) -> "ShapedLink":
        try:
            self._make()
            self.nginx.start()
            self.url = self.nginx.url
            if self.rtt_ms:
                self._start_proxy()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _make(self) -> None:
        ns = ["ip", "netns", "exec", self.netns]
        self._run(["ip", "netns", "add", self.netns])
        self._run(["ip", "link", "add", self.veth, "type", "veth", "peer", "name", self.peer])
        self._run(["ip", "link", "set", self.peer, "netns", self.netns])
        self._run(["ip", "addr", "add", f"{ROOT_ADDRESS}/30", "dev", self.veth])
        self._run(["ip", "link", "set", self.veth, "up"])
        self._run(ns + ["ip", "addr", "add", f"{NS_ADDRESS}/30", "dev", self.peer])
        self._run(ns + ["ip", "link", "set", self.peer, "up"])
        self._run(ns + ["ip", "link", "set", "lo", "up"])
        # The client's direction, where uploads go. A burst of 64 KiB and a queue of 100 ms, like a modem's buffer.
        self._run(["tc", "qdisc", "add", "dev", self.veth, "root", "tbf", "rate", f"{self.rate_mbit}mbit", "burst",
                   "64kb", "latency", "100ms"])

    def _start_proxy(self) -> None:
        port = free_port()
        argv = ["ip", "netns", "exec", self.netns, sys.executable, str(Path(__file__).parent / "delay_proxy.py"),
                NS_ADDRESS, str(port), NS_ADDRESS, str(self.nginx.port), str(self.rtt_ms)]
        self.proxy = PROCESSES.spawn("delay proxy", argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        wait_for_port(port, self.proxy, "delay proxy", host=NS_ADDRESS)
        self.url = f"http://{NS_ADDRESS}:{port}"

    def __exit__(self, *_exc) -> None:
        if self.proxy:
            PROCESSES.stop(self.proxy.pid)
            self.proxy = None
        self.nginx.stop()
        # Deleting one end of a veth pair deletes both; deleting the namespace too, but not always at once.
        subprocess.run(["ip", "link", "del", self.veth], stderr=subprocess.DEVNULL)
        subprocess.run(["ip", "netns", "del", self.netns], stderr=subprocess.DEVNULL)

    def describe(self) -> str:
        delay = f" and {self.rtt_ms} ms round trip (delay proxy)" if self.rtt_ms else ""
        return f"{self.rate_mbit} Mbit/s (tbf){delay} over a veth pair into a network namespace"

    def _run(self, argv: list[str]) -> None:
        result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if result.returncode != 0:
            raise BenchError(f"shaped link: {' '.join(argv)}: {result.stderr.strip()}")
