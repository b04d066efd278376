#!/usr/bin/env bash
# The native client's haptic loop at 1 kHz (issue 5 §7) and the load tester on the server issue's
# scenario. Results: haptic-*.json, load-*.json; summary on stdout.
# JSON goes to $RESULTS_DIR (default build/bench-results); RESULTS_DIR=bench/results replaces the
# recorded (tracked) results that bench/RESULTS.md quotes.
#
# Jitter: the server and the client's other threads are pinned to core 0, the loop to core 1.
# Four configurations, each run ROUNDS times interleaved (the machine is a shared VM: quote
# medians): the session paused (nothing else runs) or running with the pen pressing into the
# knight, with the default 0.5 ms spin or 0.15 ms, at normal priority or SCHED_FIFO.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${RESULTS_DIR:-build/bench-results}
mkdir -p "$out"
client=build/release/client-cpp/softbody-client
load=build/release/client-cpp/softbody-load
duration=${DURATION:-10}
rounds=${ROUNDS:-3}

jitter() {  # $1: name, $2: create flags, rest: extra haptic flags
  local name=$1 create=$2; shift 2
  bench/with_server.sh --pin 0 --workers 1 -- bash -c '
    id=$('"$client"' --server "$SOFTBODY_SERVER_ADDR" create --scene knight '"$create"')
    taskset -c 0 '"$client"' --server "$SOFTBODY_SERVER_ADDR" haptic "$id" --device sim \
      --duration '"$duration"' --cpu 1 --json '"$*"' 2>/dev/null' > "$out/haptic-$name.json"
}
for r in $(seq "$rounds"); do
  jitter "idle-r$r" --paused
  jitter "idle-spin150-r$r" --paused --spin 0.00015
  jitter "busy-r$r" ""
  jitter "busy-fifo-spin150-r$r" "" --realtime --spin 0.00015
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
print("configuration          jitter p50 / p99 / p99.9 us (median of %d runs)   round trip p50 / p99 ms   model age p50 ms" % rounds)
for name in ["idle", "idle-spin150", "busy", "busy-fifo-spin150"]:
    runs = [json.load(open("%s/haptic-%s-r%d.json" % (out, name, r))) for r in range(1, rounds + 1)]
    med = lambda f: statistics.median(f(x) for x in runs)
    print("%-22s %6.1f / %6.1f / %7.1f            %5.2f / %5.2f             %5.2f" % (
        name, med(lambda x: x["jitter_us"]["p50"]), med(lambda x: x["jitter_us"]["p99"]),
        med(lambda x: x["jitter_us"]["p999"]), med(lambda x: x["round_trip_ms"]["p50"]),
        med(lambda x: x["round_trip_ms"]["p99"]), med(lambda x: x["model_age_ms"]["p50"])))
PY

# The server issue's scenario: knight sessions, one 1 kHz haptic client and one 60 Hz subscriber
# each, server with 2 workers; everything on this machine.
for n in 4 8; do
  bench/with_server.sh --workers 2 --max-sessions 20 -- bash -c \
    "$load --server \$SOFTBODY_SERVER_ADDR --scene knight --sessions $n --rate 1000 \
       --frame-rate 60 --duration 10 --warmup 2 --json" > "$out/load-$n-haptic.json" || true
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); l=r["force_reply_latency_ms"]; \
print(sys.argv[2], "sessions: reply p50 %.2f p99 %.2f ms, missing %d, rtf min %.2f" % (l["p50"], l["p99"], r["replies_missing"], r["real_time_factor"]["min"]))' \
    "$out/load-$n-haptic.json" "$n"
done
