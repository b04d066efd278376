#!/usr/bin/env bash
# Runs the solver benchmarks recorded in bench/RESULTS.md (issue 12) and prints the Markdown tables:
# the solvers on one step matrix (knight, bunny), step times at real-time settings against the
# iteration-capped settings they replace, fidelity against converged runs, and (with --load) the
# server's capacity in knight sessions. Takes about 5 minutes (8 more with --load). Run on a quiet
# machine.
# JSON goes to $RESULTS_DIR (default build/bench-results); RESULTS_DIR=bench/results replaces the
# recorded (tracked) results that bench/RESULTS.md quotes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh softbody-bench softbody-sim >/dev/null
bench=build/release/bench/softbody-bench
sim=build/release/engine/cli/softbody-sim
out=${RESULTS_DIR:-build/bench-results}
mkdir -p "$out"
capped_knight=(--set solver.type=qmr --set solver.preconditioner=block-jacobi --set solver.max_iterations=30)
capped_default=(--set solver.type=qmr --set solver.preconditioner=block-jacobi --set solver.max_iterations=60)

"$bench" solver --scene scenes/knight.json --threads 1 >"$out/solver-knight.json"
"$bench" solver --scene bench/scenes/bunny-step.json --set solver.type=auto --set solver.tolerance=1e-6 \
  --threads 2 --steps 6 --drift 5 --seconds 0.2 >"$out/solver-bunny.json"

"$bench" step --scene scenes/knight.json --threads 1 --steps 1000 --json >"$out/step-knight-auto-t1.json"
"$bench" step --scene scenes/knight.json --threads 1 --steps 1000 --json "${capped_knight[@]}" >"$out/step-knight-qmr30-t1.json"
"$bench" step --scene scenes/default.json --threads 1 --steps 200 --json >"$out/step-default-auto-t1.json"
"$bench" step --scene scenes/crush.json --threads 1 --steps 328 --json --set solver.type=auto >"$out/step-crush-auto-t1.json"
"$bench" step --scene bench/scenes/bunny-step.json --threads 2 --steps 200 --json \
  --set solver.type=auto --set solver.tolerance=1e-6 >"$out/step-bunny-auto-t2.json"

for scene in scenes/default.json scenes/knight.json bench/scenes/octopus-push.json; do
  name=$(basename "$scene" .json)
  "$sim" run "$scene" --threads 1 --reference --json | tail -n 1 >"$out/fidelity-$name-auto.json"
  capped=("${capped_knight[@]}")
  [ "$name" = default ] && capped=("${capped_default[@]}")
  "$sim" run "$scene" --threads 1 --reference --json "${capped[@]}" | tail -n 1 >"$out/fidelity-$name-capped.json"
done

if [ "${1:-}" = "--load" ]; then
  for n in 16 24; do
    bench/with_server.sh --workers 2 -- bash -c "build/release/client-cpp/softbody-load \
      --server \$SOFTBODY_SERVER_ADDR --scene knight --sessions $n --haptic-per-session 0 \
      --frame-rate 60 --duration 10 --warmup 2 --json" >"$out/load-$n-knight-auto.json"
  done
fi
python3 bench/summarize_solvers.py "$out"
