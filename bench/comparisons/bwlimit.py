"""Comparison 7 (issue 17): a total bandwidth cap. uploader-tui --bwlimit 20M against rclone copy --bwlimit 20M, both
PUTting 8 files of 32 MiB, 4 at a time, to nginx's WebDAV; each measured as the rate nginx saw over the cap."""
import os
import shutil
from pathlib import Path

from harness import tools
from harness.common import DATA, MIB, WORK, BenchError, log
from harness.data import make_files
from harness.measure import alternate, med, spread

KEY = "bwlimit"
FILE_COUNT, FILE_MIB = 8, 32
TRANSFERS = 4
CAP = "20M"
CAP_BYTES = 20 << 20
GOAL_LOW, GOAL_HIGH = 0.9, 1.1  # achieved / cap


def served_rate(log: Path, offset: int) -> tuple[float, float, int]:
    """Bytes per second of the PUTs nginx logged after `offset`: their declared bodies over the span from the first
    body's first byte ($msec - $request_time) to the last body's end ($msec); also the span and the PUT count."""
    with log.open("rb") as f:
        f.seek(offset)
        rows = [line.split() for line in f.read().decode().splitlines()]
    puts = [row for row in rows if len(row) >= 9 and row[0] == "PUT" and row[2].startswith("2")]
    if not puts:
        return 0.0, 0.0, 0
    start = min(float(row[8]) - float(row[7]) for row in puts)
    end = max(float(row[8]) for row in puts)
    body = sum(int(row[3]) for row in puts if row[3].isdigit())
    return body / max(end - start, 1e-3), end - start, len(puts)


def run(bench) -> None:
    """Measures both tools; `b` is the bench module (its helpers), `bench` the running Bench."""
    folder = DATA / f"bwlimit-{FILE_COUNT}x{FILE_MIB}M"
    make_files(folder, FILE_COUNT, FILE_MIB * MIB, "b", 1)
    dav = f"{bench.nginx.url}/dav/"

    def measured(name: str, run):
        rate, span, _ = served_rate(bench.nginx.access_log, run.extra["log_offset"])
        run.extra.update({"ratio": rate / CAP_BYTES, "served_span": span})
        stored = bench.nginx.davroot / "dav" / name
        sizes = sorted(p.stat().st_size for p in stored.iterdir()) if stored.is_dir() else []
        if sizes != [FILE_MIB * MIB] * FILE_COUNT:
            raise BenchError(f"{name}: {len(sizes)} files of the right size in {stored}, expected {FILE_COUNT}")
        shutil.rmtree(stored)  # keeps the disk small; outside the timed part
        return run

    def tui(name: str):
        args = [str(folder), "--put", f"{dav}{name}/", *tools.concurrency(TRANSFERS), "--bwlimit", CAP]
        return measured(name, tools.tui(bench, name, "bwlimit_tui", args, bench.nginx, "PUT", FILE_COUNT,
                                        FILE_MIB * MIB))

    def rclone(name: str):
        argv = ["rclone", "copy", str(folder), f":webdav:{name}", "--webdav-url", dav, "--transfers", str(TRANSFERS),
                "--bwlimit", CAP]
        env = dict(os.environ, RCLONE_CONFIG=str(WORK / "rclone.conf"))
        return measured(name, tools.peer(bench, name, "bwlimit_rclone", argv, bench.nginx, "PUT", FILE_COUNT,
                                         FILE_MIB * MIB, env))

    log(f"7. {FILE_COUNT} x {FILE_MIB} MiB PUT, {TRANSFERS} at a time, --bwlimit {CAP} -> nginx WebDAV")
    bench.results[KEY] = alternate("bwlimit", bench.runs, [("uploader-tui", tui), ("rclone", rclone)])


def rows(bench) -> tuple[list[tuple], list[tuple]]:
    """The report's rows and goals for comparison 7."""
    tui, rclone = bench.results[KEY]["uploader-tui"], bench.results[KEY]["rclone"]
    ratio = lambda runs: [run.extra["ratio"] for run in runs]
    span = lambda runs: [run.extra["served_span"] for run in runs]
    title = (f"7. total cap `--bwlimit {CAP}`, {FILE_COUNT} × {FILE_MIB} MiB PUT, {TRANSFERS} in flight → nginx"
             f" WebDAV; peer: `rclone copy --bwlimit {CAP}`")
    table = [
        (title, "achieved rate ÷ cap, on nginx's clock (1.00 is exact)", spread(ratio(tui), 3),
         spread(ratio(rclone), 3), "—"),
        ("", "first body byte to last, on nginx's clock, s", spread(span(tui), 2), spread(span(rclone), 2),
         f"{med(span(tui)) / med(span(rclone)):.2f}x"),
    ]
    worst = max(ratio(tui), key=lambda value: abs(value - 1))
    goals = [(f"--bwlimit {CAP}: every run's total within {GOAL_LOW:.1f}–{GOAL_HIGH:.1f}x the cap",
              f"{worst:.3f}x at worst (rclone: {med(ratio(rclone)):.3f}x median)", GOAL_LOW <= worst <= GOAL_HIGH)]
    return table, goals
