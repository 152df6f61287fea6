#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer package in Fuzz/ with AddressSanitizer and runs each target for FUZZ_SECONDS
# (default 600), one after another, niced. Seeds come from Fuzz/Corpus/TARGET, copied to
# .build-fuzz/work/TARGET/corpus so the fuzzer's finds do not land in the repository. Fails if any target crashed;
# the crashing input is in .build-fuzz/work/TARGET/artifacts.
#
#   scripts/fuzz.sh                  every target
#   scripts/fuzz.sh sanitizer ...    only those
#   FUZZ_SECONDS=30 scripts/fuzz.sh  a quick pass
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-600}
niceness=${FUZZ_NICE:-15}
all_targets=(multipart presign s3-xml refresh-token header-line byte-size sanitizer)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
scratch=.build-fuzz
# Release: ten to a hundred times the executions per second of a debug build (the multipart target ran 25/s in
# debug); -enable-testing lets the targets reach internal parsers with @testable import. lld: gold stops with an
# internal error on the two `main`s (libFuzzer's and SwiftPM's entry point). The first build takes about 15 minutes.
build=(swift build --package-path Fuzz --scratch-path "$scratch" -c release -Xswiftc -enable-testing
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)

nice -n "$niceness" "${build[@]}" --product uploader-fuzz
binary="$("${build[@]}" --show-bin-path)/uploader-fuzz"

failed=()
for target in "${targets[@]}"; do
    [ -d "Fuzz/Corpus/$target" ] || { echo "unknown target '$target' (targets: ${all_targets[*]})" >&2; exit 2; }
    work="$scratch/work/$target"
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    cp Fuzz/Corpus/"$target"/* "$work/corpus/"
    options=(-max_total_time="$seconds" -timeout=10 -print_final_stats=1 -artifact_prefix="$work/artifacts/")
    [ ! -f "Fuzz/Dictionaries/$target.dict" ] || options+=(-dict="Fuzz/Dictionaries/$target.dict")
    echo "==== $target: ${seconds} s, log in $work/log"
    # SWIFT_BACKTRACE: Swift's crash backtracer reads the stack in a way AddressSanitizer reports as an overflow.
    if FUZZ_TARGET="$target" SWIFT_BACKTRACE=enable=no nice -n "$niceness" "$binary" "${options[@]}" "$work/corpus" >"$work/log" 2>&1; then
        # The last status line (executions, coverage, corpus) and the final stats.
        grep -E '^#[0-9]+' "$work/log" | tail -1
        grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$work/log"
    else
        failed+=("$target")
        grep -E -A30 'ERROR: |invariant broken|Fatal error|==[0-9]+==' "$work/log" | head -60
        ls "$work/artifacts"
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "==== crashed: ${failed[*]} (inputs under $scratch/work/TARGET/artifacts)"
    exit 1
fi
echo "==== no crash in: ${targets[*]}"
