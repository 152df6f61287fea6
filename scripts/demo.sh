#!/usr/bin/env bash
# Runs the main job against the bundled server: a folder of sample images, uploaded as multipart POSTs.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/debug}
work=$(mktemp -d)
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

python3 scripts/make-samples.py "$work/pet" 24
"$BIN/uploader-server" --port 0 --port-file "$work/port" --root "$work/received" \
    --modeling-delay "${MODELING_DELAY:-2}" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "uploader-server did not start:"; cat "$work/server.log"; exit 1; }
port=$(cat "$work/port")
echo "uploader-server on 127.0.0.1:$port, uploading $(ls "$work/pet" | wc -l) images from $work/pet"
status=0
"$BIN/uploader-tui" "$work/pet" --to "http://127.0.0.1:$port/datasets/pet-42/images" \
    --concurrency 4 --journal "$work/journal.sqlite" "$@" || status=$?
echo "uploader-tui exited with $status; the server stored $(find "$work/received" -type f ! -name manifest.json | wc -l) files"
exit $status
