"""5. 10,000 small files queued to the reference server: launch to the first request, and peak RSS (no peer)."""
import subprocess
import time

from harness.common import CONCURRENCY, DATA, KIB, WORK, BenchError, log
from harness.data import make_files
from harness.measure import Run, alternate, check_summary, drop_journal, fresh_journal, med, parse_gnu_time, spread, timed
from harness.processes import PROCESSES
from harness.report import cpu
from harness.servers import ReferenceServer

KEY = "queue"
COUNT, SIZE = 10_000, 2 * KIB
GOAL_SECONDS = 1.0
GOAL_RSS_MB = 150


def folder():
    return make_files(DATA / "tiny-10k", COUNT, SIZE, "s", 5)


def run(bench) -> None:
    tiny_dir = folder()[0].parent

    def measure(name: str) -> Run:
        server = ReferenceServer(bench.server, name)
        server.start()
        try:
            journal = fresh_journal(name)
            out = WORK / "out"
            out.mkdir(parents=True, exist_ok=True)
            time_file, stdout_file = out / f"{name}.time", out / f"{name}.out"
            if bench.queue_route == "post":
                destination = ["--to", f"{server.url}/datasets/bench/images"]
            else:
                destination = ["--put", f"{server.url}/files/bench/"]
            argv = [str(bench.tui), str(tiny_dir), *destination,
                    "--no-tui", "--json", "--concurrency", str(CONCURRENCY), "--journal", str(journal)]
            bench.remember("queue_tui", [a.replace(server.url, "http://127.0.0.1:$REF_PORT") for a in argv])
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
            check_summary(run, COUNT, name)
            stats = server.statistics()
            if stats.get("filesStored", 0) < COUNT:
                raise BenchError(f"{name}: the server stored {stats.get('filesStored')} of {COUNT} files")
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

    log(f"5. 10,000 x 2 KiB queued -> reference server ({bench.queue_route.upper()})")
    bench.results[KEY] = alternate("queue", bench.runs, [("uploader-tui", measure_logged)])


def rows(bench):
    runs = bench.results[KEY]["uploader-tui"]
    first = [run.extra["first_request"] for run in runs]
    reported = [run.extra.get("peak_rss_bytes") or 0 for run in runs]
    route = "PUT /files/" if bench.queue_route == "put" else "multipart POST /datasets/…/images"
    title = f"5. 10,000 × 2 KiB queued, 8 in flight → reference server, {route} (no peer)"
    table = [
        (title, "launch → first request at the server, s", spread(first, 3), "—", "—"),
        ("", "whole run, s", spread([run.seconds for run in runs], 2), "—", "—"),
        ("", "files/s", spread([COUNT / run.seconds for run in runs], 0), "—", "—"),
        ("", "CPU user+sys, s", spread(cpu(runs), 2), "—", "—"),
        ("", "peak RSS (GNU time %M), MB (10⁶ B)", spread([run.rss_kib * KIB / 1e6 for run in runs], 1), "—", "—"),
        ("", "peak RSS (its own `peak_rss_bytes`), MB", spread([b / 1e6 for b in reported], 1), "—", "—"),
    ]
    peak = max(run.rss_kib * KIB / 1e6 for run in runs)
    goals = [
        (f"10,000 files queued: first request in < {GOAL_SECONDS:.0f} s (median)", f"{med(first):.3f} s",
         med(first) < GOAL_SECONDS),
        (f"10,000 files queued: peak RSS < {GOAL_RSS_MB} MB (highest of the counted runs)", f"{peak:.1f} MB",
         peak < GOAL_RSS_MB),
    ]
    return table, goals


SETUP = [
    "- Comparison 5: the reference server (`uploader-server --port 0`) is started fresh for every run and gets no",
    "  request before the client's: its `/_stats` `firstRequestAt` minus the time taken just before spawning the",
    "  client is the start-up time. The client is spawned directly (no hyperfine in between). The whole run",
    "  includes the server's modeling step for every file (`--queue-route put` uses `PUT /files/` instead).",
]
