#!/usr/bin/env bash
# Soak at capacity (issue 14): one server, SESSIONS knight sessions with a 1 kHz haptic client and
# a 60 Hz subscriber each, driven by softbody-load in consecutive WINDOW-second windows for
# DURATION seconds in all (sessions are made and deleted per window: churn included). Between
# windows it samples the server's resident memory, thread count and open files. Prints one JSON
# line per window and a summary: memory growth from the first window to the last, reply and frame
# percentiles per window, errors, and whether the server stayed healthy. Not in CI (an hour).
#   DURATION=3600 WINDOW=60 SESSIONS=3 bench/soak.sh > build/bench-results/soak.jsonl
# SESSIONS=3 is this 2-core machine's capacity with the load generator beside the server
# (bench/RESULTS.md); more sessions than a host takes are refused by its CPU admission.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${DURATION:-3600} window=${WINDOW:-60} sessions=${SESSIONS:-3}
scripts/build.sh softbody-server softbody-load >/dev/null
dir=$(mktemp -d)
trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
build/release/server/softbody-server --scenes scenes --preload "" --log-level warn \
  --grpc 127.0.0.1:0 --http 127.0.0.1:0 --ready-file "$dir/ready.json" 2>"$dir/server.log" &
pid=$!
for _ in $(seq 600); do [ -s "$dir/ready.json" ] && break; sleep 0.05; done
read -r grpc http < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["grpc_port"], d["http_port"])' "$dir/ready.json")
sample() {  # rss_kb threads fds healthz
  local rss threads fds health
  rss=$(awk '/^VmRSS/ {print $2}' /proc/"$pid"/status)
  threads=$(awk '/^Threads/ {print $2}' /proc/"$pid"/status)
  fds=$(ls /proc/"$pid"/fd | wc -l)
  health=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http/healthz")
  echo "$rss $threads $fds $health"
}
start=$(date +%s)
w=0
while [ $(( $(date +%s) - start )) -lt "$duration" ]; do
  w=$((w + 1))
  build/release/client-cpp/softbody-load --server "127.0.0.1:$grpc" --scene knight \
    --sessions "$sessions" --subscribers-per-session 1 --haptic-per-session 1 --rate 1000 \
    --frame-rate 60 --duration "$window" --warmup 2 --json >"$dir/report.json" 2>"$dir/load.err" || true
  read -r rss threads fds health < <(sample)
  python3 - "$w" "$rss" "$threads" "$fds" "$health" "$dir/report.json" "$dir/load.err" <<'PY'
import json, sys
w, rss, threads, fds, health, path, err = sys.argv[1:8]
try:
    r = json.load(open(path))
except Exception:
    r = {}
# What softbody-load said when it made no report (its last line on stderr).
failure = None if r else ([l.strip() for l in open(err) if l.strip()] or ["no output"])[-1]
lat = r.get("force_reply_latency_ms", {})
fr = r.get("frame_interval_ms", {})
rtf = r.get("real_time_factor", {})
print(json.dumps({"window": int(w), "rss_mb": int(rss) / 1024, "threads": int(threads),
                  "open_files": int(fds), "healthz": int(health),
                  "reply_ms": {k: lat.get(k) for k in ("p50", "p99", "p999", "max")},
                  "frame_interval_ms": {k: fr.get(k) for k in ("p50", "p99")},
                  "rtf_min": rtf.get("min"), "errors": r.get("errors", {}).get("total"),
                  "replies_missing": r.get("replies_missing"),
                  "frames_received": r.get("frames_received"),
                  "frames_expected": r.get("frames_expected"), "failure": failure}), flush=True)
PY
done | tee "$dir/windows.jsonl"
python3 - "$dir/windows.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
first, last = rows[0], rows[-1]
p99 = [r["reply_ms"]["p99"] for r in rows if r["reply_ms"]["p99"] is not None]
print(json.dumps({"summary": {
    "windows": len(rows), "rss_mb_first": first["rss_mb"], "rss_mb_last": last["rss_mb"],
    "rss_growth_mb": last["rss_mb"] - first["rss_mb"], "threads_first": first["threads"],
    "threads_last": last["threads"], "open_files_first": first["open_files"],
    "open_files_last": last["open_files"],
    "healthy": all(r["healthz"] == 200 for r in rows),
    "errors": sum(r["errors"] or 0 for r in rows),
    "reply_p99_ms_median": statistics.median(p99) if p99 else None,
    "reply_p99_ms_max": max(p99) if p99 else None}}))
PY
