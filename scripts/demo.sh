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
# The phone photos are shrunk to 1600 px, turned upright and sent without their GPS location.
"$BIN/uploader-tui" "$work/pet" --to "http://127.0.0.1:$port/datasets/pet-42/images" \
    --concurrency 4 --journal "$work/journal.sqlite" --max-dimension 1600 --strip-metadata "$@" || status=$?
echo "uploader-tui exited with $status; the server stored $(find "$work/received" -type f ! -name manifest.json | wc -l) files"
# The server writes its manifest shortly after the last answer.
for _ in $(seq 1 50); do [ -s "$work/received/datasets/pet-42/manifest.json" ] && break; sleep 0.1; done
python3 - "$work/received/datasets/pet-42/manifest.json" <<'PY' || true
import json, sys
files = json.load(open(sys.argv[1]))["files"].values()
jpegs = [f for f in files if f.get("signature") == "jpeg"]
largest = max((max(f["width"] or 0, f["height"] or 0) for f in files), default=0)
print(f"its manifest: {len(jpegs)} JPEGs, {sum(f.get('gps', False) for f in files)} with a GPS location, "
      f"{sum(f.get('orientation') not in (None, 1) for f in files)} with a rotation tag, longest side {largest} px")
PY
exit $status
