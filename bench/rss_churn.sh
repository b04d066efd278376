#!/usr/bin/env bash
# Resident memory after session churn (issue 24 §5): starts a server (SERVER, default the built
# one; extra environment such as MALLOC_ARENA_MAX passes through), samples its RSS once warm (one
# knight session made and deleted), then ROUNDS times creates SESSIONS knight sessions that run
# for a second and deletes them, and samples RSS 2 s after the last deletion. Prints one JSON
# line: rss_mb at start and after churn, and the difference.
#   ROUNDS=20 SESSIONS=4 bench/rss_churn.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-20} sessions=${SESSIONS:-4} server=${SERVER:-build/release/server/softbody-server}
client=build/release/client-cpp/softbody-client
dir=$(mktemp -d)
trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
"$server" --scenes scenes --preload "" --log-level warn --max-cpu-load 0 \
  --grpc 127.0.0.1:0 --http 127.0.0.1:0 --ready-file "$dir/ready.json" 2>"$dir/server.log" &
pid=$!
for _ in $(seq 600); do [ -s "$dir/ready.json" ] && break; sleep 0.05; done
grpc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["grpc_port"])' "$dir/ready.json")
rss_mb() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' /proc/"$pid"/status; }
churn() {
  local ids=()
  for _ in $(seq "$1"); do ids+=("$("$client" --server "127.0.0.1:$grpc" create --scene knight)"); done
  sleep 1
  for id in "${ids[@]}"; do "$client" --server "127.0.0.1:$grpc" delete "$id" >/dev/null; done
}
churn 1
sleep 2
start=$(rss_mb)
for _ in $(seq "$rounds"); do churn "$sessions"; done
sleep 2
after=$(rss_mb)
python3 -c 'import json,sys; s,a=float(sys.argv[1]),float(sys.argv[2]); print(json.dumps({"server": sys.argv[3], "malloc_arena_max": sys.argv[4] or None, "rounds": int(sys.argv[5]), "sessions": int(sys.argv[6]), "rss_mb_start": s, "rss_mb_after_churn": a, "growth_mb": round(a - s, 1)}))' \
  "$start" "$after" "$server" "${MALLOC_ARENA_MAX:-}" "$rounds" "$sessions"
