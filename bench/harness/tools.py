"""One run of uploader-tui, curl or another peer against nginx, checked from both ends."""
import shutil
from pathlib import Path

from .common import CONCURRENCY, WORK, BenchError
from .measure import Run, alternate, check_summary, drop_journal, fresh_journal, run_hyperfine

CURL_PARALLEL = ["curl", "-s", "--no-progress-meter", "--parallel"]  # curl 7.88's -s leaves the meter on


def curl_config(name: str, url: str, files: list[Path], form: bool = True, options: tuple[str, ...] = ()) -> Path:
    """A curl config with one block per file (`next` between them): a multipart POST of `file=@…` to `url`, or a
    PUT of it to `url` + its name. `options` (config lines such as `cacert = "…"` or `http2`) go in every block, as
    `next` resets per-transfer options."""
    config = WORK / f"{name}.cfg"
    extra = "".join(line + "\n" for line in options)
    if form:
        blocks = [f'url = "{url}"\nform = "file=@{p}"\noutput = "/dev/null"\n{extra}' for p in files]
    else:
        blocks = [f'url = "{url}{p.name}"\nupload-file = "{p}"\noutput = "/dev/null"\n{extra}' for p in files]
    config.write_text("next\n".join(blocks))
    return config


def tui(bench, name: str, key: str, args: list[str], nginx, method: str, count: int, min_bytes: int,
        env: dict | None = None) -> Run:
    """uploader-tui headless with `args` (source, destination, options) and a fresh journal; its summary must say
    `count` done, and nginx must have logged `count` requests of `method`."""
    journal = fresh_journal(name)
    argv = [str(bench.tui), *args, "--no-tui", "--json", "--journal", str(journal)]
    bench.remember(key, argv)
    mark = nginx.mark()
    run = run_hyperfine(name, argv, env=env)
    check_summary(run, count, name)
    run.extra.update(nginx.check(mark, method, count, min_bytes))
    drop_journal(journal)
    return run


def peer(bench, name: str, key: str, argv: list[str], nginx, method: str, count: int, min_bytes: int,
         env: dict | None = None) -> Run:
    """A peer's run, which must exit 0, checked at nginx like uploader-tui's."""
    bench.remember(key, argv)
    mark = nginx.mark()
    run = run_hyperfine(name, argv, env=env)
    if run.exit_code != 0:
        raise BenchError(f"{name}: {argv[0]} exited with {run.exit_code} ({run.extra['stdout']})")
    run.extra.update(nginx.check(mark, method, count, min_bytes))
    return run


def concurrency(value: int = CONCURRENCY) -> list[str]:
    return ["--concurrency", str(value)]


def take_dav(run: Run, nginx, folder: str, files: list[Path]) -> Run:
    """Checks that nginx's WebDAV folder `folder` holds exactly `files` (names and sizes), then deletes it (keeps the
    disk small; outside the timed part)."""
    stored = nginx.davroot / "dav" / folder
    sizes = {p.name: p.stat().st_size for p in stored.iterdir()} if stored.is_dir() else {}
    expected = {p.name: p.stat().st_size for p in files}
    if sizes != expected:
        raise BenchError(f"{folder}: {len(sizes)} files in {stored}, expected {len(expected)} of the right sizes")
    shutil.rmtree(stored)
    return run


def sink_race(bench, key: str, files: list[Path], nginx, tui_args: tuple[str, ...] = (),
              curl_options: tuple[str, ...] = ()) -> dict:
    """uploader-tui and `curl --parallel`, both POSTing `files` as multipart to `nginx`'s sink with CONCURRENCY in
    flight, alternating; `tui_args` and `curl_options` (config lines for every block) add to both commands."""
    sink = f"{nginx.url}/sink/"
    config = curl_config(f"curl-{key}", sink, files, options=curl_options)
    size = files[0].stat().st_size

    def tui_run(name: str) -> Run:
        args = [str(files[0].parent), "--to", sink, *concurrency(), *tui_args]
        return tui(bench, name, f"{key}_tui", args, nginx, "POST", len(files), size)

    def curl_run(name: str) -> Run:
        argv = CURL_PARALLEL + ["--parallel-max", str(CONCURRENCY), "-K", str(config)]
        return peer(bench, name, f"{key}_curl", argv, nginx, "POST", len(files), size)

    return alternate(key, bench.runs, [("uploader-tui", tui_run), ("curl", curl_run)])
