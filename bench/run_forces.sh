#!/usr/bin/env bash
# Runs the force benchmarks recorded in bench/RESULTS.md (box generator, bunny, armadillo; 1 and
# 2 threads) and prints the Markdown tables. Run on a quiet machine. The armadillo (7 MB) is not
# in the repository: it is read from the developers' ../shared/meshes/ beside the checkout (set
# MESHES to leave it out).
# JSON goes to $RESULTS_DIR (default build/bench-results); RESULTS_DIR=bench/results replaces the
# recorded (tracked) results that bench/RESULTS.md quotes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh softbody-bench >/dev/null
bench=build/release/bench/softbody-bench
meshes=${MESHES:-"box:20,20,20 tests/meshes/bunny.mesh ../shared/meshes/armadillo.node"}
results=${RESULTS_DIR:-build/bench-results}
mkdir -p "$results"
files=()
for mesh in $meshes; do
  name=$(basename "$mesh" | tr ':,' '__')
  for threads in 1 2; do
    out="$results/forces-${name}-t${threads}.json"
    "$bench" forces --mesh "$mesh" --threads "$threads" --json >"$out"
    files+=("$out")
  done
done
python3 bench/summarize_forces.py "${files[@]}"
