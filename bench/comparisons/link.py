"""11. A home uplink (issue 20): 50 Mbit/s (tbf) and 40 ms round trip (the delay proxy), 300 photo-sized files PUT to
WebDAV. First a sweep of fixed widths for uploader-tui and curl (one run each), then uploader-tui at
`--concurrency auto` against curl at the best `--parallel-max` the sweep found and rclone at the same width."""
import os

from harness import shaped, tools
from harness.common import WORK, log
from harness.measure import alternate, med, spread

from . import small_post

KEY = "link"
RATE_MBIT, RTT_MS = 50, 40
COUNT, SIZE = small_post.COUNT, small_post.SIZE
WIDTHS = (1, 2, 4, 8, 16, 32)
RUNS = 3  # a run takes about 30 s at the shaped rate
GOAL_SHARE, GOAL_CURL, GOAL_AUTO = 0.95, 1.2, 0.9
# What TCP over Ethernet framing leaves of the shaped rate (tbf counts whole frames): 1448 payload bytes of a
# 1514-byte frame with timestamps on; HTTP's own bytes come off that too.
WIRE_CEILING = 1448 / 1514
GOALS = [f"shaped link: goodput ≥ {GOAL_SHARE:.0%} of the shaped rate",
         f"shaped link: ≥ {GOAL_CURL:.1f}x curl at its best --parallel-max",
         f"shaped link: --concurrency auto ≥ {GOAL_AUTO:.0%} of the best fixed width's rate"]


def run(bench) -> None:
    why = shaped.unavailable()
    if why:
        log(f"11. shaped link: skipped ({why})")
        bench.skipped[KEY] = why
        return
    files = small_post.folder()
    source = str(files[0].parent)
    with shaped.ShapedLink(RATE_MBIT, rtt_ms=RTT_MS) as link:
        dav = f"{link.url}/dav/"

        def stored(run, name: str):
            return tools.take_dav(run, link.nginx, name, files)

        def tui(width: str):
            def measure(name: str):
                args = [source, "--put", f"{dav}{name}/", "--concurrency", width]
                return stored(tools.tui(bench, name, f"link_tui_{width}", args, link.nginx, "PUT", COUNT, SIZE), name)
            return measure

        def curl(width: int):
            def measure(name: str):
                config = tools.curl_config(f"curl-link-{name}", f"{dav}{name}/", files, form=False)
                argv = tools.CURL_PARALLEL + ["--parallel-max", str(width), "-K", str(config)]
                return stored(tools.peer(bench, name, f"link_curl_{width}", argv, link.nginx, "PUT", COUNT, SIZE),
                              name)
            return measure

        def rclone(width: int):
            def measure(name: str):
                argv = ["rclone", "copy", source, f":webdav:{name}", "--webdav-url", dav, "--transfers", str(width)]
                env = dict(os.environ, RCLONE_CONFIG=str(WORK / "rclone.conf"))
                return stored(tools.peer(bench, name, f"link_rclone_{width}", argv, link.nginx, "PUT", COUNT, SIZE,
                                         env), name)
            return measure

        log(f"11. {COUNT} x {SIZE >> 10} KiB PUT over {link.describe()}: sweeping widths {WIDTHS}")
        sweep = {}  # one run per tool and width, no warm-up: the ranking, not the figure, is what is used
        for width in WIDTHS:
            sweep[width] = {"uploader-tui": tui(str(width))(f"link-sweep-tui-{width}"),
                            "curl": curl(width)(f"link-sweep-curl-{width}")}
            log(f"  width {width:>2}: uploader-tui {sweep[width]['uploader-tui'].seconds:6.2f} s, curl"
                f" {sweep[width]['curl'].seconds:6.2f} s")
        best = {tool: min(WIDTHS, key=lambda w: sweep[w][tool].seconds) for tool in ("uploader-tui", "curl")}
        log(f"  best widths: uploader-tui {best['uploader-tui']}, curl {best['curl']}")
        bench.results[KEY + ":sweep"] = (sweep, best)
        bench.results[KEY] = alternate("link", min(bench.runs, RUNS), [
            ("uploader-tui", tui("auto")), ("curl", curl(best["curl"])), ("rclone", rclone(best["curl"]))])


def rows(bench):
    sweep, best = bench.results[KEY + ":sweep"]
    r = bench.results[KEY]
    secs = lambda runs: [run.seconds for run in runs]
    shaped_rate = RATE_MBIT * 1e6 / 8
    share = lambda runs: [COUNT * SIZE / run.seconds / shaped_rate for run in runs]
    tui, curl, rclone = r["uploader-tui"], r["curl"], r["rclone"]
    title = (f"11. {COUNT} × {SIZE >> 10} KiB PUT → nginx WebDAV over {RATE_MBIT} Mbit/s and {RTT_MS} ms round trip;"
             f" uploader-tui at `--concurrency auto`, peers at curl's best width ({best['curl']})")
    table = [
        (title, "goodput ÷ shaped rate (higher is better)", spread(share(tui), 3), spread(share(curl), 3),
         f"{med(share(tui)) / med(share(curl)):.2f}x"),
        ("", "wall time vs curl, s", spread(secs(tui), 2), spread(secs(curl), 2),
         f"{med(secs(tui)) / med(secs(curl)):.2f}x"),
        ("", f"wall time vs `rclone copy --transfers {best['curl']}`, s", spread(secs(tui), 2), spread(secs(rclone), 2),
         f"{med(secs(tui)) / med(secs(rclone)):.2f}x"),
    ]
    for width in WIDTHS:
        a, b = sweep[width]["uploader-tui"].seconds, sweep[width]["curl"].seconds
        table.append(("", f"sweep, width {width} (one run each), s", f"{a:.2f}", f"{b:.2f}", f"{a / b:.2f}x"))
    best_fixed = sweep[best["uploader-tui"]]["uploader-tui"].seconds
    auto = best_fixed / med(secs(tui))
    possible = WIRE_CEILING / med(share(curl))
    goals = [
        (GOALS[0], f"{med(share(tui)):.1%} (curl {med(share(curl)):.1%}; TCP framing leaves {WIRE_CEILING:.1%})",
         med(share(tui)) >= GOAL_SHARE),
        (GOALS[1], f"{med(secs(curl)) / med(secs(tui)):.2f}x (the framing ceiling allows {possible:.2f}x at most)",
         med(secs(curl)) / med(secs(tui)) >= GOAL_CURL),
        (GOALS[2], f"{auto:.2f}x (best fixed: {best['uploader-tui']} in flight, {best_fixed:.2f} s)", auto >= GOAL_AUTO),
    ]
    return table, goals


SETUP = [
    "- Comparisons 6b and 11: a network namespace the bench makes, joined by a veth pair (10.213.77.1/30), nginx",
    "  inside it, a `tbf` qdisc on the client's side of the pair (`bench/harness/shaped.py`). This kernel has no",
    "  `sch_netem`, so comparison 11's 40 ms round trip comes from a TCP proxy inside the namespace",
    "  (`bench/harness/delay_proxy.py`) that holds every byte 20 ms each way and a new connection's first bytes one",
    "  round trip more, as a handshake would.",
]
