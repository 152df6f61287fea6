"""A link shaped like a home uplink, made by the bench and removed after it: a network namespace of its own joined
to this one by a veth pair on a private /30, nginx listening inside it, and a `tbf` qdisc (plus `netem` delay when
asked) on the veth's egress, so what the client sends is held to the rate. Nothing outside the machine is touched.

Needs root (`ip netns`, `tc`), iproute2 and the sch_tbf (and sch_netem) kernel modules."""
import os
import shutil
import subprocess
from pathlib import Path

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
    """`with ShapedLink(b, rate_mbit=50) as link:` gives `link.nginx` (the bench's Nginx inside the namespace),
    started and reachable at `link.nginx.url` through the shaped veth."""

    def __init__(self, b, rate_mbit: int, delay_ms: int = 0) -> None:
        self.b = b
        self.rate_mbit, self.delay_ms = rate_mbit, delay_ms
        suffix = os.getpid()
        self.netns, self.veth, self.peer = f"ut-bench-{suffix}", f"utb{suffix % 100000}a", f"utb{suffix % 100000}b"
        counter = Path(f"/sys/class/net/{self.veth}/statistics/tx_bytes")
        self.nginx = b.Nginx(name="nginx-shaped", host=NS_ADDRESS, netns=self.netns,
                             received=lambda: int(counter.read_text()))

    def __enter__(self) -> "ShapedLink":
        try:
            self._make()
            self.nginx.start()
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
        tbf = ["tbf", "rate", f"{self.rate_mbit}mbit", "burst", "64kb", "latency", "100ms"]
        if self.delay_ms:
            self._run(["tc", "qdisc", "add", "dev", self.veth, "root", "handle", "1:", "netem", "delay",
                       f"{self.delay_ms}ms"])
            self._run(["tc", "qdisc", "add", "dev", self.veth, "parent", "1:1", "handle", "10:"] + tbf)
        else:
            self._run(["tc", "qdisc", "add", "dev", self.veth, "root"] + tbf)

    def __exit__(self, *_exc) -> None:
        self.nginx.stop()
        # Deleting one end of a veth pair deletes both; deleting the namespace too, but not always at once.
        subprocess.run(["ip", "link", "del", self.veth], stderr=subprocess.DEVNULL)
        subprocess.run(["ip", "netns", "del", self.netns], stderr=subprocess.DEVNULL)

    def describe(self) -> str:
        delay = f", {self.delay_ms} ms delay" if self.delay_ms else ""
        return f"{self.rate_mbit} Mbit/s (tbf{delay}) over a veth pair into a network namespace"

    def _run(self, argv: list[str]) -> None:
        result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if result.returncode != 0:
            raise self.b.BenchError(f"shaped link: {' '.join(argv)}: {result.stderr.strip()}")
