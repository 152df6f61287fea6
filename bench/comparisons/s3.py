"""12. S3 to moto (issue 20): 100 × 512 KiB, and one 300 MiB file by multipart, against `rclone copy` and
`aws s3 cp --recursive`, each with its own defaults for part size and part concurrency; over plain HTTP, then (12b)
over HTTPS through an nginx TLS front, as S3 itself is reached."""

from harness import moto
from harness.common import CONCURRENCY, DATA, KIB, MIB, WORK, BenchError, log
from harness.data import make_files
from harness.measure import alternate, check_summary, drop_journal, fresh_journal, med, run_hyperfine, spread
from harness.servers import Nginx
from harness.tls import make_certificates

KEY = "s3"
BUCKET = "bench"
SMALL_COUNT, SMALL_SIZE = 100, 512 * KIB
BIG_SIZE = 300 * MIB
GOAL_RCLONE, GOAL_AWS = 1.0, 1.5
GOALS = [f"S3{over}, {what}: ≥ {GOAL_RCLONE:.1f}x rclone and ≥ {GOAL_AWS:.1f}x aws"
         for over in ("", " over HTTPS") for what in ("100 files", "one 300 MiB file")]


def run(bench) -> None:
    why = moto.unavailable()
    if why:
        log(f"12. S3: skipped ({why})")
        bench.skipped[KEY] = why
        return
    small = make_files(DATA / "s3-100", SMALL_COUNT, SMALL_SIZE, "p", 3)
    big = make_files(DATA / "s3-big", 1, BIG_SIZE, "big", 1)
    server = moto.Moto()
    server.start()
    front = None
    try:
        server.make_bucket(BUCKET)
        log(f"12. S3 to moto: {SMALL_COUNT} x {SMALL_SIZE >> 10} KiB, then one {BIG_SIZE >> 20} MiB file")
        race(bench, server, server.endpoint, small, big, "", ca=None)
        certificates = make_certificates()
        front = Nginx(name="nginx-s3", tls=certificates, upstream=server.port)
        front.start()
        log("12b. the same over HTTPS, through an nginx TLS front")
        race(bench, server, front.url, small, big, ":tls", ca=str(certificates.ca))
    finally:
        if front:
            front.stop()
        server.stop()


def race(bench, server, endpoint: str, small, big, suffix: str, ca: str | None) -> None:
    """Both sets of files to `endpoint`, the three tools alternated; `ca` is the CA each is given to trust."""
    rclone_env = {**server.env, "RCLONE_CONFIG": str(WORK / "rclone.conf"), "RCLONE_CONFIG_MOTO_TYPE": "s3",
                  "RCLONE_CONFIG_MOTO_PROVIDER": "Other", "RCLONE_CONFIG_MOTO_ENDPOINT": endpoint,
                  "RCLONE_CONFIG_MOTO_ENV_AUTH": "true", "RCLONE_CONFIG_MOTO_REGION": "us-east-1",
                  "RCLONE_CONFIG_MOTO_FORCE_PATH_STYLE": "true"}
    # rclone 1.60's AWS SDK cannot apply AWS_CA_BUNDLE to its own HTTP transport and fails every remote with
    # "unsupported transport"; it is given the CA by --ca-cert instead.
    rclone_env.pop("AWS_CA_BUNDLE", None)

    def tools_for(label: str, files, expected: dict[str, int]):
        source = str(files[0].parent) if len(files) > 1 else str(files[0])

        def checked(name: str, run):
            if run.exit_code != 0:
                raise BenchError(f"{name}: exit {run.exit_code} ({run.extra['stdout']})")
            stored = server.take(BUCKET, f"{name}/")
            if stored != expected:
                raise BenchError(f"{name}: {len(stored)} objects of the right names and sizes, expected"
                                 f" {len(expected)}")
            return run

        def tui(name: str):
            journal = fresh_journal(name)
            argv = [str(bench.tui), source, "--to", f"s3://{BUCKET}/{name}/", "--endpoint-url", endpoint,
                    "--no-tui", "--json", "--concurrency", str(CONCURRENCY), "--journal", str(journal)]
            argv += ["--cacert", ca] if ca else []
            bench.remember(f"s3_{label}_tui", argv)
            run = run_hyperfine(name, argv, env=server.env)
            check_summary(run, len(files), name)
            drop_journal(journal)
            return checked(name, run)

        def rclone(name: str):
            argv = ["rclone", "copy", source, f"moto:{BUCKET}/{name}", "--transfers", str(CONCURRENCY)]
            argv += ["--ca-cert", ca] if ca else []
            bench.remember(f"s3_{label}_rclone", argv)
            return checked(name, run_hyperfine(name, argv, env=rclone_env))

        def aws(name: str):
            argv = ["aws", "s3", "cp", source, f"s3://{BUCKET}/{name}/", "--endpoint-url", endpoint,
                    "--only-show-errors"] + (["--recursive"] if len(files) > 1 else [])
            argv += ["--ca-bundle", ca] if ca else []
            bench.remember(f"s3_{label}_aws", argv)
            return checked(name, run_hyperfine(name, argv, env=server.env))

        return [("uploader-tui", tui), ("rclone", rclone), ("aws", aws)]

    tag = suffix.replace(":", "-")
    bench.results[KEY + suffix] = alternate(f"s3-small{tag}", bench.runs, tools_for(
        f"small{tag}", small, {p.name: SMALL_SIZE for p in small}))
    bench.results[KEY + ":big" + suffix] = alternate(f"s3-big{tag}", bench.runs, tools_for(
        f"big{tag}", big, {big[0].name: BIG_SIZE}))


def rows(bench):
    table, goals = [], []
    secs = lambda runs: [run.seconds for run in runs]
    rss = lambda runs: [run.rss_kib / KIB for run in runs]
    sets = [(KEY, f"{SMALL_COUNT} × {SMALL_SIZE >> 10} KiB"), (KEY + ":big", f"one {BIG_SIZE >> 20} MiB file (multipart)")]
    cases = [(number, over, key + suffix, what)
             for number, over, suffix in (("12", "", ""), ("12b", " over HTTPS (nginx TLS front)", ":tls"))
             for key, what in sets]
    for (number, over, key, what), goal in zip(cases, GOALS):
        if key not in bench.results:
            continue
        r = bench.results[key]
        tui, rclone, aws = r["uploader-tui"], r["rclone"], r["aws"]
        title = f"{number}. S3 to moto{over}, {what}; peers: `rclone copy --transfers 8`, `aws s3 cp`"
        table += [
            (title, "wall time vs rclone, s", spread(secs(tui), 2), spread(secs(rclone), 2),
             f"{med(secs(tui)) / med(secs(rclone)):.2f}x"),
            ("", "wall time vs aws, s", spread(secs(tui), 2), spread(secs(aws), 2),
             f"{med(secs(tui)) / med(secs(aws)):.2f}x"),
            ("", "peak RSS vs rclone / aws, MiB", spread(rss(tui), 1),
             f"{med(rss(rclone)):.1f} / {med(rss(aws)):.1f}", "—"),
        ]
        vs_rclone, vs_aws = med(secs(rclone)) / med(secs(tui)), med(secs(aws)) / med(secs(tui))
        goals.append((goal, f"{vs_rclone:.2f}x rclone, {vs_aws:.2f}x aws",
                      vs_rclone >= GOAL_RCLONE and vs_aws >= GOAL_AWS))
    return table, goals


SETUP = [
    "- Comparison 12: moto's S3 server (`python3 -m moto.server`) on 127.0.0.1, path-style addressing, static",
    "  credentials in the environment. rclone is configured by `RCLONE_CONFIG_MOTO_*` variables, and run without",
    "  `AWS_CA_BUNDLE` (set on these machines; rclone 1.60 fails every S3 remote with \"unsupported transport\"",
    "  when it is set). After every run the bucket is listed with boto3 (every name and size",
    "  checked) and emptied, outside the timed part. Each tool keeps its own part size and part concurrency.",
    "  rclone's check of a multipart object (`HEAD ?versionId=null`) is refused by moto (400); its second attempt",
    "  finds the object in place and ends without sending it again (`--s3-no-head` timed the same).",
    "- Comparison 12b: the same moto behind nginx over TLS (the certificate of comparisons 8 and 9, one worker,",
    "  bodies streamed on as they arrive); uploader-tui gets the CA by `--cacert`, rclone by `--ca-cert`, aws by",
    "  `--ca-bundle`. Over HTTPS uploader-tui and aws send the body unsigned with its CRC-32 checksum.",
]
