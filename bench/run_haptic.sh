#!/usr/bin/env bash
# The native client's haptic loop at 1 kHz (issue 5 §7): period jitter with the loop on its own
# core (server and the client's other threads pinned to core 0, the loop to core 1), once at
# normal priority (with the default and a shorter spin) and once with SCHED_FIFO; then the load tester on the server issue's scenario.
# Results: bench/results/haptic-*.json and load-*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results
client=build/release/client-cpp/softbody-client
load=build/release/client-cpp/softbody-load
duration=${DURATION:-20}

jitter() {  # $1: name, rest: extra haptic flags
  local name=$1; shift
  bench/with_server.sh --pin 0 --workers 1 -- bash -c '
    id=$('"$client"' --server "$SOFTBODY_SERVER_ADDR" create --scene knight)
    taskset -c 0 '"$client"' --server "$SOFTBODY_SERVER_ADDR" haptic "$id" --device sim \
      --duration '"$duration"' --cpu 1 --json '"$*"' 2>/dev/null' > "$out/haptic-$name.json"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); j=r["jitter_us"]; \
print(sys.argv[2], "jitter p50 %.1f p99 %.1f p99.9 %.1f max %.1f us" % (j["p50"], j["p99"], j["p999"], j["max"]))' \
    "$out/haptic-$name.json" "$name"
}
jitter idle-core                               # default: spin the last 0.5 ms of each period
jitter idle-core-spin150 --spin 0.00015        # less spinning: sleep overshoot shows
jitter idle-core-fifo-spin150 --realtime --spin 0.00015

# The server issue's scenario: 8 knight sessions, one 1 kHz haptic client and one 60 Hz
# subscriber each, server with 2 workers; everything on this machine.
for n in 4 8; do
  bench/with_server.sh --workers 2 --max-sessions 20 -- bash -c \
    "$load --server \$SOFTBODY_SERVER_ADDR --scene knight --sessions $n --rate 1000 \
       --frame-rate 60 --duration 10 --warmup 2 --json" > "$out/load-$n-haptic.json" || true
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); l=r["force_reply_latency_ms"]; \
print(sys.argv[2], "sessions: reply p50 %.2f p99 %.2f ms, missing %d, rtf min %.2f" % (l["p50"], l["p99"], r["replies_missing"], r["real_time_factor"]["min"]))' \
    "$out/load-$n-haptic.json" "$n"
done
