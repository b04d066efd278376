#!/usr/bin/env bash
# Starts softbody-server on free loopback ports, runs a command with SOFTBODY_SERVER_ADDR set to
# its gRPC address, then stops the server with SIGTERM. Usage:
#   bench/with_server.sh [--pin CPUS] [server flags...] -- command [args...]
# --pin runs the server under `taskset -c CPUS` (e.g. 0, to leave core 1 to a haptic loop).
set -euo pipefail
cd "$(dirname "$0")/.."
server=build/release/server/softbody-server
pin=()
flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  if [ "$1" = "--pin" ]; then pin=(taskset -c "$2"); shift 2; else flags+=("$1"); shift; fi
done
[ "${1:-}" = "--" ] || { echo "usage: $0 [--pin CPUS] [server flags] -- command" >&2; exit 2; }
shift
dir=$(mktemp -d)
trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
"${pin[@]}" "$server" --grpc 127.0.0.1:0 --http 127.0.0.1:0 --scenes scenes --preload "" \
  --log-level warn --ready-file "$dir/ready.json" "${flags[@]}" 2>"$dir/server.log" &
pid=$!
for _ in $(seq 600); do [ -s "$dir/ready.json" ] && break; sleep 0.05; done
[ -s "$dir/ready.json" ] || { echo "server did not start:" >&2; cat "$dir/server.log" >&2; exit 1; }
port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["grpc_port"])' "$dir/ready.json")
export SOFTBODY_SERVER_ADDR="127.0.0.1:$port"
"$@"
