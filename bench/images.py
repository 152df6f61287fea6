"""Comparison 6 (issue 16): 100 phone-sized JPEGs prepared (--max-dimension 2048 --quality 80) and sent, against
curl sending the originals and against `vipsthumbnail` for every file followed by curl sending the results; then
the same photos over a link shaped to 50 Mbit/s against curl sending the originals."""
import os
import random
import shutil
from pathlib import Path

import shaped

PHOTO_COUNT, PHOTO_SIZE = 100, (4000, 3000)
MAX_SIDE, QUALITY = 2048, 80
GOAL_OVERLAP = 1.1  # end to end ≤ 1.1 × the larger of "prepare all" and "send all prepared"
GOAL_RSS_MIB = 150
SHAPED_MBIT, SHAPED_RUNS = 50, 3  # curl of the originals takes over a minute a run at 50 Mbit/s
GOAL_SHAPED = 4.0  # at least 4x faster than curl of the originals over the shaped link


def make_photos(folder: Path) -> list[Path]:
    """Phone-like JPEGs (smooth colour plus grain, about 4 MB each), made once with Pillow."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"IMG_{4000 + i}.jpg" for i in range(PHOTO_COUNT)]
    for index, path in enumerate(paths):
        if path.exists():
            continue
        rng = random.Random(index)
        base = Image.frombytes("RGB", (40, 30), bytes(rng.randrange(256) for _ in range(40 * 30 * 3)))
        base = base.resize(PHOTO_SIZE, Image.BICUBIC)
        grain = Image.effect_noise(PHOTO_SIZE, 40).convert("RGB")
        Image.blend(base, grain, 0.22).save(path, "JPEG", quality=92)
    return paths


def run(bench, b) -> None:
    """Measures the four ways; `b` is the bench module (its helpers), `bench` the running Bench."""
    photos_dir = b.DATA / "photos-100"
    photos = make_photos(photos_dir)
    sink = f"{bench.nginx.url}/sink/"
    prepared_dir = b.WORK / "prepared-photos"
    jobs = str(os.cpu_count() or 2)

    def curl_config(name: str, folder: Path) -> Path:
        config = b.WORK / f"{name}.cfg"
        blocks = [f'url = "{sink}"\nform = "file=@{p}"\noutput = "/dev/null"\n' for p in sorted(folder.iterdir())]
        config.write_text("next\n".join(blocks))
        return config

    curl = ["curl", "-s", "--no-progress-meter", "--parallel", "--parallel-max", str(b.CONCURRENCY)]
    thumbnail = (f"find {photos_dir} -name '*.jpg' -print0 | xargs -0 -P {jobs} -n 10 vipsthumbnail"
                 f" -s {MAX_SIDE} -o '{prepared_dir}/%s.jpg[Q={QUALITY}]'")
    reset = f"rm -rf {prepared_dir} && mkdir -p {prepared_dir}"
    originals = curl_config("photos-originals", photos_dir)

    def checked(name: str, run, count: int) -> object:
        if run.exit_code != 0:
            raise b.BenchError(f"{name}: exit {run.exit_code}")
        return run

    def tui(name: str):
        return tui_run(bench, b, name, photos_dir, bench.nginx, "photos_tui")

    def curl_originals(name: str):
        argv = curl + ["-K", str(originals)]
        bench.remember("photos_curl_originals", argv)
        mark = bench.nginx.mark()
        run = checked(name, b.run_hyperfine(name, argv), PHOTO_COUNT)
        run.extra.update(bench.nginx.check(mark, "POST", PHOTO_COUNT, 1))
        return run

    def vips_then_curl(name: str):
        # The config lists the prepared names, which exist once vipsthumbnail has run.
        config = b.WORK / "photos-prepared.cfg"
        blocks = [f'url = "{sink}"\nform = "file=@{prepared_dir / p.name}"\noutput = "/dev/null"\n'
                  for p in sorted(photos)]
        config.write_text("next\n".join(blocks))
        script = f"{reset} && {thumbnail} && {' '.join(curl)} -K {config}"
        argv = ["sh", "-c", script]
        bench.remember("photos_vips_then_curl", argv)
        mark = bench.nginx.mark()
        run = checked(name, b.run_hyperfine(name, argv), PHOTO_COUNT)
        run.extra.update(bench.nginx.check(mark, "POST", PHOTO_COUNT, 1))
        return run

    b.log(f"6. {PHOTO_COUNT} photos {PHOTO_SIZE[0]}x{PHOTO_SIZE[1]}, --max-dimension {MAX_SIDE} --quality {QUALITY}"
          " -> nginx discard sink")
    bench.results["photos"] = b.alternate(
        "photos", bench.runs,
        [("uploader-tui", tui), ("vips+curl", vips_then_curl), ("curl originals", curl_originals)])

    # The two halves on their own: what perfect overlap would cost.
    def prepare_all(name: str):
        argv = ["sh", "-c", f"{reset} && {thumbnail}"]
        bench.remember("photos_prepare_all", argv)
        return checked(name, b.run_hyperfine(name, argv), PHOTO_COUNT)

    def send_prepared(name: str):
        if not prepared_dir.exists() or len(list(prepared_dir.iterdir())) != PHOTO_COUNT:
            prepare_all(name + "-setup")
        argv = curl + ["-K", str(curl_config("photos-prepared-only", prepared_dir))]
        bench.remember("photos_send_prepared", argv)
        mark = bench.nginx.mark()
        run = checked(name, b.run_hyperfine(name, argv), PHOTO_COUNT)
        run.extra.update(bench.nginx.check(mark, "POST", PHOTO_COUNT, 1))
        return run

    bench.results["photos_halves"] = b.alternate(
        "photo-halves", bench.runs, [("prepare all", prepare_all), ("send prepared", send_prepared)])
    shutil.rmtree(prepared_dir, ignore_errors=True)


def tui_run(bench, b, name: str, photos_dir: Path, nginx, key: str):
    """uploader-tui preparing and sending the photos to `nginx`'s sink, checked from both ends."""
    journal = b.fresh_journal(name)
    argv = [str(bench.tui), str(photos_dir), "--to", f"{nginx.url}/sink/", "--no-tui", "--json", "--concurrency",
            str(b.CONCURRENCY), "--journal", str(journal), "--max-dimension", str(MAX_SIDE), "--quality", str(QUALITY)]
    bench.remember(key, argv)
    mark = nginx.mark()
    run = b.run_hyperfine(name, argv, env={**os.environ, "TMPDIR": str(b.WORK)})
    b.check_summary(run, PHOTO_COUNT, name)
    run.extra.update(nginx.check(mark, "POST", PHOTO_COUNT, 1))
    b.drop_journal(journal)
    return run


def run_shaped(bench, b) -> None:
    """The photos over a link shaped to SHAPED_MBIT: uploader-tui preparing them against curl of the originals."""
    why = shaped.unavailable()
    if why:
        b.log(f"6b. photos over a shaped link: skipped ({why})")
        bench.results["photos_shaped_skipped"] = why
        return
    photos_dir = b.DATA / "photos-100"
    make_photos(photos_dir)
    with shaped.ShapedLink(b, SHAPED_MBIT) as link:
        b.log(f"6b. {PHOTO_COUNT} photos over {link.describe()} -> nginx discard sink")
        sink = f"{link.nginx.url}/sink/"
        config = b.WORK / "photos-shaped.cfg"
        blocks = [f'url = "{sink}"\nform = "file=@{p}"\noutput = "/dev/null"\n' for p in sorted(photos_dir.iterdir())]
        config.write_text("next\n".join(blocks))

        def tui(name: str):
            return tui_run(bench, b, name, photos_dir, link.nginx, "photos_shaped_tui")

        def curl_originals(name: str):
            argv = ["curl", "-s", "--no-progress-meter", "--parallel", "--parallel-max", str(b.CONCURRENCY), "-K",
                    str(config)]
            bench.remember("photos_shaped_curl_originals", argv)
            mark = link.nginx.mark()
            run = b.run_hyperfine(name, argv)
            if run.exit_code != 0:
                raise b.BenchError(f"{name}: exit {run.exit_code}")
            run.extra.update(link.nginx.check(mark, "POST", PHOTO_COUNT, 1))
            return run

        bench.results["photos_shaped"] = b.alternate(
            "photos-shaped", min(bench.runs, SHAPED_RUNS), [("uploader-tui", tui), ("curl originals", curl_originals)])


def rows(results: dict, b) -> tuple[list[tuple], list[tuple]]:
    """The report's rows and goals for comparison 6."""
    table, goals = local_rows(results, b) if "photos" in results else ([], [])
    shaped_table, shaped_goals = shaped_rows(results, b)
    return table + shaped_table, goals + shaped_goals


def local_rows(results: dict, b) -> tuple[list[tuple], list[tuple]]:
    r, halves = results["photos"], results.get("photos_halves", {})
    secs = lambda runs: [run.seconds for run in runs]
    rss = lambda runs: [run.rss_kib / b.KIB for run in runs]
    tui, vips, curl = r["uploader-tui"], r["vips+curl"], r["curl originals"]
    title = (f"6. {PHOTO_COUNT} photos {PHOTO_SIZE[0]}×{PHOTO_SIZE[1]} (~4 MB), `--max-dimension {MAX_SIDE}"
             f" --quality {QUALITY}` → nginx sink; peers: vipsthumbnail then `curl --parallel`, curl of the originals")
    table = [
        (title, "wall time vs vipsthumbnail+curl, s (lower is better)", b.spread(secs(tui), 2), b.spread(secs(vips), 2),
         f"{b.med(secs(tui)) / b.med(secs(vips)):.2f}x"),
        ("", "wall time vs curl of the originals, s", b.spread(secs(tui), 2), b.spread(secs(curl), 2),
         f"{b.med(secs(tui)) / b.med(secs(curl)):.2f}x"),
        ("", "peak RSS, MiB", b.spread(rss(tui), 1), b.spread(rss(vips), 1), "—"),
    ]
    goals = []
    faster = b.med(secs(tui)) / b.med(secs(vips))
    goals.append(("photos: faster than vipsthumbnail then curl", f"{faster:.2f}x the time", faster < 1))
    if halves:
        prepare, send = b.med(secs(halves["prepare all"])), b.med(secs(halves["send prepared"]))
        table.append(("", "prepare all alone / send all prepared alone, s", f"{prepare:.2f}", f"{send:.2f}", "—"))
        bound = max(prepare, send)
        value = b.med(secs(tui)) / bound
        goals.append((f"photos: end to end ≤ {GOAL_OVERLAP}x the larger half (the overlap works)",
                      f"{value:.2f}x ({b.med(secs(tui)):.2f} s vs {bound:.2f} s)", value <= GOAL_OVERLAP))
    peak = max(rss(tui))
    goals.append((f"photos: client peak RSS ≤ {GOAL_RSS_MIB} MiB", f"{peak:.1f} MiB", peak <= GOAL_RSS_MIB))
    return table, goals


def shaped_rows(results: dict, b) -> tuple[list[tuple], list[tuple]]:
    goal = f"photos over {SHAPED_MBIT} Mbit/s: ≥ {GOAL_SHAPED:.0f}x faster than curl of the originals"
    if "photos_shaped_skipped" in results:
        return [], [(goal, f"not measured: {results['photos_shaped_skipped']}", False)]
    if "photos_shaped" not in results:
        return [], []
    r = results["photos_shaped"]
    secs = lambda runs: [run.seconds for run in runs]
    tui, curl = r["uploader-tui"], r["curl originals"]
    title = (f"6b. the same photos over a link shaped to {SHAPED_MBIT} Mbit/s (tbf, network namespace) → nginx sink; "
             "peer: curl of the originals")
    speedup = b.med(secs(curl)) / b.med(secs(tui))
    table = [(title, "wall time, s (lower is better)", b.spread(secs(tui), 2), b.spread(secs(curl), 2),
              f"{b.med(secs(tui)) / b.med(secs(curl)):.2f}x")]
    return table, [(goal, f"{speedup:.1f}x", speedup >= GOAL_SHAPED)]
