"""3. One 2 GiB file, PUT to the discard sink, against `curl -T`."""
from harness.common import DATA, MIB, log
from harness.data import BIG_SIZE, make_big_file
from harness.measure import alternate, med, spread
from harness.report import cpu, row, rss_mib, seconds
from harness import tools

KEY = "big"
GOAL_RATIO = 1.0
GOAL_RSS_MIB = 32


def run(bench) -> None:
    big = make_big_file(DATA / "big" / "big.bin")
    sink = f"{bench.nginx.url}/sink/"

    def tui(name: str):
        return tools.tui(bench, name, "big_tui", [str(big), "--put", sink], bench.nginx, "PUT", 1, BIG_SIZE)

    def curl(name: str):
        argv = ["curl", "-s", "-T", str(big), f"{sink}big.bin", "-o", "/dev/null"]
        return tools.peer(bench, name, "big_curl", argv, bench.nginx, "PUT", 1, BIG_SIZE)

    log("3. one 2 GiB file, PUT -> nginx discard sink")
    bench.results[KEY] = alternate("big", bench.big_runs, [("uploader-tui", tui), ("curl", curl)])


def rows(bench):
    tui, curl = bench.results[KEY]["uploader-tui"], bench.results[KEY]["curl"]
    rate = lambda runs: [BIG_SIZE / MIB / run.seconds for run in runs]
    reported = [(run.extra.get("peak_rss_bytes") or 0) / MIB for run in tui]
    table = [
        row("3. one 2 GiB file, PUT → nginx sink; peer: `curl -T`", "MiB/s (higher is better)", rate(tui), rate(curl),
            0),
        row("", "wall time, s", seconds(tui), seconds(curl), 2),
        row("", "CPU user+sys, s", cpu(tui), cpu(curl), 2),
        row("", "peak RSS (GNU time %M), MiB (lower is better)", rss_mib(tui), rss_mib(curl), 1),
        ("", "peak RSS (its own `peak_rss_bytes`), MiB", spread(reported, 1), "—", "—"),
    ]
    value = med(rate(tui)) / med(rate(curl))
    peak = max(rss_mib(tui))
    goals = [
        (f"2 GiB file: ≥ {GOAL_RATIO:.2f}x curl -T's throughput",
         f"{value:.2f}x ({med(rate(tui)):.0f} vs {med(rate(curl)):.0f} MiB/s)", value >= GOAL_RATIO),
        (f"2 GiB file: client peak RSS ≤ {GOAL_RSS_MIB} MiB (highest of the counted runs)", f"{peak:.1f} MiB",
         peak <= GOAL_RSS_MIB),
    ]
    return table, goals
