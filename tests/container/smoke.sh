#!/usr/bin/env bash
# Container smoke test (run by ./test.sh when podman is installed): builds the images with
# docker/build-local.sh, runs the server image on loopback, waits for its HEALTHCHECK, checks it
# runs as the non-root user, runs a short softbody-load from the tools image against it (a session
# created, stepped in real time, subscribed to and poked at 1 kHz), and stops it with SIGTERM
# within the grace period. Prints "container smoke: N passed, N failed" (or "skipped: why") last;
# the exit status is non-zero when a check failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/docker/containers.conf}

if ! command -v podman >/dev/null; then
  echo "container smoke: skipped: podman is not installed (scripts/install-deps.sh installs it)"
  exit 0
fi
passed=0
failed=0
check() {  # check LABEL COMMAND...: runs the command, counts and reports it
  local label=$1
  shift
  if "$@"; then
    echo "  ok    $label"
    passed=$((passed + 1))
  else
    echo "  FAIL  $label"
    failed=$((failed + 1))
  fi
}
finish() {
  echo "container smoke: ${passed} passed, ${failed} failed"
  [ "$failed" -eq 0 ]
  exit
}

tag=smoke
log=$(mktemp)
if ! docker/build-local.sh "$tag" >"$log" 2>&1; then
  tail -n 40 "$log"
  failed=$((failed + 1))
  echo "  FAIL  images build (docker/build-local.sh; log above)"
  finish
fi
echo "  ok    images build (localhost/softbody-server:$tag, localhost/softbody-tools:$tag)"
passed=$((passed + 1))
rm -f "$log"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
grpc_port=$(free_port)
http_port=$(free_port)
name=softbody-smoke-$$
podman rm -f "$name" >/dev/null 2>&1
trap 'podman rm -f "$name" >/dev/null 2>&1' EXIT
podman run -d --name "$name" --network host -e SOFTBODY_HTTP_PORT="$http_port" \
  "localhost/softbody-server:$tag" \
  --grpc "127.0.0.1:$grpc_port" --http "127.0.0.1:$http_port" --preload default \
  --shutdown-grace 2 >/dev/null 2>&1

healthy() {
  for _ in $(seq 1 150); do
    if podman healthcheck run "$name" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  podman logs "$name" | tail -n 20
  return 1
}
# Podman runs HEALTHCHECKs from systemd timers, which this machine class lacks: run it on demand.
check "HEALTHCHECK (/healthz) passes" healthy
check "runs as the non-root user 10001" test "$(podman exec "$name" id -u)" = 10001
check "serves the browser client" \
  bash -c "curl -fsS http://127.0.0.1:$http_port/ | grep -q '<canvas'"
check "/readyz and /status answer" \
  bash -c "curl -fsS http://127.0.0.1:$http_port/readyz >/dev/null &&
           curl -fsS http://127.0.0.1:$http_port/status | grep -q '\"accepting\": true'"

load_report=$(mktemp)
# The image's load tester reaches the server and frames arrive: a frame ratio of 0.01 is a few
# frames of the 360 expected. Not capacity (bench/, "Capacity"): at 0.5 this failed a fresh-clone
# run whose machine was compiling on both cores beside it (0.2).
podman run --rm --network host "localhost/softbody-tools:$tag" softbody-load \
  --server "127.0.0.1:$grpc_port" --scene knight --sessions 2 --duration 3 --warmup 1 \
  --json --max-errors 0 --min-frame-ratio 0.01 >"$load_report" 2>&1
load_status=$?
check "softbody-load from the tools image: 2 sessions, 0 errors, frames arrive" test "$load_status" -eq 0
[ "$load_status" -eq 0 ] || tail -n 20 "$load_report"
rm -f "$load_report"

stop_start=$(date +%s.%N)
podman stop -t 10 "$name" >/dev/null 2>&1
stop_s=$(echo "$(date +%s.%N) - $stop_start" | bc)
exit_code=$(podman inspect --format '{{.State.ExitCode}}' "$name")
check "SIGTERM stops it cleanly (exit 0, within the 10 s grace: ${stop_s} s)" \
  bash -c "[ '$exit_code' = 0 ] && (( \$(echo '$stop_s < 10' | bc) ))"
check "its log shows the graceful shutdown" \
  bash -c "podman logs '$name' 2>&1 | grep -q event=shutdown_complete"
finish
