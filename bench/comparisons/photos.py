"""6. 100 phone-sized JPEGs prepared (--max-dimension 2048 --quality 80) and sent (issue 16), against curl sending
the originals and against `vipsthumbnail` for every file followed by curl sending the results."""
import os
import random
import shutil
from pathlib import Path

from harness.common import CONCURRENCY, DATA, KIB, WORK, BenchError, log
from harness import tools
from harness.measure import alternate, med, run_hyperfine, spread

KEY = "photos"
PHOTO_COUNT, PHOTO_SIZE = 100, (4000, 3000)
MAX_SIDE, QUALITY = 2048, 80
GOAL_OVERLAP = 1.1  # end to end ≤ 1.1 × the larger of "prepare all" and "send all prepared"
GOAL_RSS_MIB = 150


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


def run(bench) -> None:
    """Measures the four ways; `b` is the bench module (its helpers), `bench` the running Bench."""
    photos_dir = DATA / "photos-100"
    photos = make_photos(photos_dir)
    sink = f"{bench.nginx.url}/sink/"
    prepared_dir = WORK / "prepared-photos"
    jobs = str(os.cpu_count() or 2)

    def curl_config(name: str, folder: Path) -> Path:
        config = WORK / f"{name}.cfg"
        blocks = [f'url = "{sink}"\nform = "file=@{p}"\noutput = "/dev/null"\n' for p in sorted(folder.iterdir())]
        config.write_text("next\n".join(blocks))
        return config

    curl = ["curl", "-s", "--no-progress-meter", "--parallel", "--parallel-max", str(CONCURRENCY)]
    thumbnail = (f"find {photos_dir} -name '*.jpg' -print0 | xargs -0 -P {jobs} -n 10 vipsthumbnail"
                 f" -s {MAX_SIDE} -o '{prepared_dir}/%s.jpg[Q={QUALITY}]'")
    reset = f"rm -rf {prepared_dir} && mkdir -p {prepared_dir}"
    originals = curl_config("photos-originals", photos_dir)

    def checked(name: str, run, count: int) -> object:
        if run.exit_code != 0:
            raise BenchError(f"{name}: exit {run.exit_code}")
        return run

    def tui(name: str):
        return tui_run(bench, name, photos_dir, bench.nginx, "photos_tui")

    def curl_originals(name: str):
        argv = curl + ["-K", str(originals)]
        bench.remember("photos_curl_originals", argv)
        mark = bench.nginx.mark()
        run = checked(name, run_hyperfine(name, argv), PHOTO_COUNT)
        run.extra.update(bench.nginx.check(mark, "POST", PHOTO_COUNT, 1))
        return run

    def vips_then_curl(name: str):
        # The config lists the prepared names, which exist once vipsthumbnail has run.
        config = WORK / "photos-prepared.cfg"
        blocks = [f'url = "{sink}"\nform = "file=@{prepared_dir / p.name}"\noutput = "/dev/null"\n'
                  for p in sorted(photos)]
        config.write_text("next\n".join(blocks))
        script = f"{reset} && {thumbnail} && {' '.join(curl)} -K {config}"
        argv = ["sh", "-c", script]
        bench.remember("photos_vips_then_curl", argv)
        mark = bench.nginx.mark()
        run = checked(name, run_hyperfine(name, argv), PHOTO_COUNT)
        run.extra.update(bench.nginx.check(mark, "POST", PHOTO_COUNT, 1))
        return run

    log(f"6. {PHOTO_COUNT} photos {PHOTO_SIZE[0]}x{PHOTO_SIZE[1]}, --max-dimension {MAX_SIDE} --quality {QUALITY}"
          " -> nginx discard sink")
    bench.results[KEY] = alternate(
        "photos", bench.runs,
        [("uploader-tui", tui), ("vips+curl", vips_then_curl), ("curl originals", curl_originals)])

    # The two halves on their own: what perfect overlap would cost.
    def prepare_all(name: str):
        argv = ["sh", "-c", f"{reset} && {thumbnail}"]
        bench.remember("photos_prepare_all", argv)
        return checked(name, run_hyperfine(name, argv), PHOTO_COUNT)

    def send_prepared(name: str):
        if not prepared_dir.exists() or len(list(prepared_dir.iterdir())) != PHOTO_COUNT:
            prepare_all(name + "-setup")
        argv = curl + ["-K", str(curl_config("photos-prepared-only", prepared_dir))]
        bench.remember("photos_send_prepared", argv)
        mark = bench.nginx.mark()
        run = checked(name, run_hyperfine(name, argv), PHOTO_COUNT)
        run.extra.update(bench.nginx.check(mark, "POST", PHOTO_COUNT, 1))
        return run

    bench.results[KEY + ":halves"] = alternate(
        "photo-halves", bench.runs, [("prepare all", prepare_all), ("send prepared", send_prepared)])
    shutil.rmtree(prepared_dir, ignore_errors=True)


def tui_run(bench, name: str, photos_dir: Path, nginx, key: str, url: str | None = None):
    """uploader-tui preparing and sending the photos to the sink at `url` (default `nginx`'s), checked from both
    ends."""
    args = [str(photos_dir), "--to", f"{url or nginx.url}/sink/", *tools.concurrency(), "--max-dimension",
            str(MAX_SIDE), "--quality", str(QUALITY)]
    return tools.tui(bench, name, key, args, nginx, "POST", PHOTO_COUNT, 1, env={**os.environ, "TMPDIR": str(WORK)})


def rows(bench) -> tuple[list[tuple], list[tuple]]:
    r, halves = bench.results[KEY], bench.results.get(KEY + ":halves", {})
    secs = lambda runs: [run.seconds for run in runs]
    rss = lambda runs: [run.rss_kib / KIB for run in runs]
    tui, vips, curl = r["uploader-tui"], r["vips+curl"], r["curl originals"]
    title = (f"6. {PHOTO_COUNT} photos {PHOTO_SIZE[0]}×{PHOTO_SIZE[1]} (~4 MB), `--max-dimension {MAX_SIDE}"
             f" --quality {QUALITY}` → nginx sink; peers: vipsthumbnail then `curl --parallel`, curl of the originals")
    table = [
        (title, "wall time vs vipsthumbnail+curl, s (lower is better)", spread(secs(tui), 2), spread(secs(vips), 2),
         f"{med(secs(tui)) / med(secs(vips)):.2f}x"),
        ("", "wall time vs curl of the originals, s", spread(secs(tui), 2), spread(secs(curl), 2),
         f"{med(secs(tui)) / med(secs(curl)):.2f}x"),
        ("", "peak RSS, MiB", spread(rss(tui), 1), spread(rss(vips), 1), "—"),
    ]
    goals = []
    faster = med(secs(tui)) / med(secs(vips))
    goals.append(("photos: faster than vipsthumbnail then curl", f"{faster:.2f}x the time", faster < 1))
    if halves:
        prepare, send = med(secs(halves["prepare all"])), med(secs(halves["send prepared"]))
        table.append(("", "prepare all alone / send all prepared alone, s", f"{prepare:.2f}", f"{send:.2f}", "—"))
        bound = max(prepare, send)
        value = med(secs(tui)) / bound
        goals.append((f"photos: end to end ≤ {GOAL_OVERLAP}x the larger half (the overlap works)",
                      f"{value:.2f}x ({med(secs(tui)):.2f} s vs {bound:.2f} s)", value <= GOAL_OVERLAP))
    peak = max(rss(tui))
    goals.append((f"photos: client peak RSS ≤ {GOAL_RSS_MIB} MiB", f"{peak:.1f} MiB", peak <= GOAL_RSS_MIB))
    return table, goals
