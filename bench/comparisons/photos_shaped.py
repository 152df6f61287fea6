"""6b. The photos of comparison 6 over a link shaped to 50 Mbit/s (issue 16): uploader-tui preparing them against curl
sending the originals."""
from harness import shaped
from harness.common import CONCURRENCY, DATA, WORK, BenchError, log
from harness.measure import alternate, med, run_hyperfine, spread

from .photos import PHOTO_COUNT, make_photos, tui_run

KEY = "shaped"
SHAPED_MBIT, SHAPED_RUNS = 50, 3  # curl of the originals takes over a minute a run at 50 Mbit/s
GOAL_SHAPED = 4.0  # at least 4x faster than curl of the originals over the shaped link
GOALS = [f"photos over {SHAPED_MBIT} Mbit/s: ≥ {GOAL_SHAPED:.0f}x faster than curl of the originals"]


def run(bench) -> None:
    """The photos over a link shaped to SHAPED_MBIT: uploader-tui preparing them against curl of the originals."""
    why = shaped.unavailable()
    if why:
        log(f"6b. photos over a shaped link: skipped ({why})")
        bench.skipped[KEY] = why
        return
    photos_dir = DATA / "photos-100"
    make_photos(photos_dir)
    with shaped.ShapedLink(SHAPED_MBIT) as link:
        log(f"6b. {PHOTO_COUNT} photos over {link.describe()} -> nginx discard sink")
        sink = f"{link.url}/sink/"
        config = WORK / "photos-shaped.cfg"
        blocks = [f'url = "{sink}"\nform = "file=@{p}"\noutput = "/dev/null"\n' for p in sorted(photos_dir.iterdir())]
        config.write_text("next\n".join(blocks))

        def tui(name: str):
            return tui_run(bench, name, photos_dir, link.nginx, "photos_shaped_tui", link.url)

        def curl_originals(name: str):
            argv = ["curl", "-s", "--no-progress-meter", "--parallel", "--parallel-max", str(CONCURRENCY), "-K",
                    str(config)]
            bench.remember("photos_shaped_curl_originals", argv)
            mark = link.nginx.mark()
            run = run_hyperfine(name, argv)
            if run.exit_code != 0:
                raise BenchError(f"{name}: exit {run.exit_code}")
            run.extra.update(link.nginx.check(mark, "POST", PHOTO_COUNT, 1))
            return run

        bench.results[KEY] = alternate(
            "photos-shaped", min(bench.runs, SHAPED_RUNS), [("uploader-tui", tui), ("curl originals", curl_originals)])


def rows(bench):
    r = bench.results[KEY]
    secs = lambda runs: [run.seconds for run in runs]
    tui, curl = r["uploader-tui"], r["curl originals"]
    title = (f"6b. the same photos over a link shaped to {SHAPED_MBIT} Mbit/s (tbf, network namespace) → nginx sink; "
             "peer: curl of the originals")
    speedup = med(secs(curl)) / med(secs(tui))
    table = [(title, "wall time, s (lower is better)", spread(secs(tui), 2), spread(secs(curl), 2),
              f"{med(secs(tui)) / med(secs(curl)):.2f}x")]
    return table, [(GOALS[0], f"{speedup:.1f}x", speedup >= GOAL_SHAPED)]
