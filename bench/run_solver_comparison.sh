#!/usr/bin/env bash
# The solver comparison of issue 23 (bench/RESULTS.md, "Solver comparison"): for each integrator
# (linearized and Newton backward Euler, vbd, projective, quasi-newton, xpbd) and iteration count, the
# distance to converged implicit Euler on the same energy (softbody-sim
# run --reference: the exact reference, Newton to 1e-10) against the median wall time per step,
# on one thread. Scenes: the knight sagging on its base (stiff, E = 200 kPa, and soft, 20 kPa),
# the default scene's sphere pushing a body (a tool) and the knight's head grabbed, pulled aside
# and let go (bench/scenes/knight-grab.json: a grab tool's anchors), all with the per-element StVK law
# (stvk-tl: the fast solvers need per-element energies). Takes about 10 minutes; run on a quiet
# machine. JSON lines go to $RESULTS_DIR (default build/bench-results)/solver-comparison.jsonl;
# bench/summarize_solver_comparison.py prints the table. ONLY=REGEX runs only the labels it
# matches (e.g. ONLY=xpbd) and CASES="a b" only those cases; either appends to the results instead
# of starting them afresh. bench/plot_solver_comparison.py draws the work-precision plot.
# xpbd takes no volumetric term (its constraints are the law's whole energy): its rows drop it,
# and with substeps its reference is implicit Euler with the same substeps.
# Two larger meshes, not in the default CASES (about 20 and 40 minutes): bunny-stiff (the bunny of
# bench/scenes/bunny-step.json, 34,055 tetrahedra, standing on its anchored base) and hand-soft
# (bench/scenes/hand-sag.json, 29,998 tetrahedra, ../shared's hand sagging from its fixed wrist)
# run a shorter list of rows over 0.6 s, each against the exact reference only (--reference
# --exact-only: one reference, its Newton directions through a reused factor). The bunny's soft
# and grabbed variants are left out: their exact reference falls back (its slivers, docs/solvers.md).
# armadillo-stiff (about 45 minutes at DURATION=0.3; needs ../shared/meshes/armadillo.node,
# 144,153 tetrahedra) is bunny-stiff's scene with the armadillo standing on its anchored feet.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh softbody-sim >/dev/null
sim=build/release/engine/cli/softbody-sim
out=${RESULTS_DIR:-build/bench-results}
mkdir -p "$out"
result="$out/solver-comparison.jsonl"
duration=${DURATION:-1}
only=${ONLY:-}
cases=${CASES:-knight-stiff knight-soft default-push knight-grab}
[[ -z $only && -z ${CASES:-} ]] && : >"$result"

run() {  # run LABEL SCENE-NAME SCENE-FILE [--set ...]
  local label=$1 name=$2 scene=$3
  shift 3
  [[ -n $only && ! $label =~ $only ]] && return 0
  "$sim" run "$scene" --threads 1 --reference "${reference[@]}" --json --duration "$duration" \
    --set material.model=stvk-tl "$@" | tail -n 1 |
    python3 -c "import json,sys; d=json.load(sys.stdin); d['label']='$label'; d['case']='$name'; print(json.dumps(d))" >>"$result"
  echo "  $name $label" >&2
}

# A larger mesh: a shorter list of rows, 0.6 s, each against the exact reference alone.
large_case() {  # large_case NAME SCENE-FILE [--set ...]
  local name=$1 scene=$2 row sets s
  shift 2
  duration=${DURATION:-0.6}
  reference=(--exact-only)
  for row in "linearized-backward-euler|integrator.type=linearized-backward-euler" \
    "implicit-euler|integrator.type=implicit-euler" \
    "vbd 10|integrator.type=vbd integrator.iterations=10" \
    "vbd 40|integrator.type=vbd integrator.iterations=40" \
    "projective 10|integrator.type=projective integrator.iterations=10" \
    "projective 40|integrator.type=projective integrator.iterations=40" \
    "quasi-newton 10|integrator.type=quasi-newton integrator.iterations=10" \
    "quasi-newton 40|integrator.type=quasi-newton integrator.iterations=40" \
    "xpbd 10 substeps x 1|material.volumetric=none integrator.type=xpbd integrator.substeps=10 integrator.iterations=1" \
    "xpbd 40 substeps x 1|material.volumetric=none integrator.type=xpbd integrator.substeps=40 integrator.iterations=1"; do
    sets=()
    for s in ${row#*|}; do sets+=(--set "$s"); done
    run "${row%%|*}" "$name" "$scene" "$@" "${sets[@]}"
  done
  duration=${DURATION:-1}
  reference=()
}

reference=()
for case in $cases; do
  case $case in
    bunny-stiff) large_case "$case" bench/scenes/bunny-step.json --set solver.type=auto \
      --set solver.max_iterations=100 --set solver.tolerance=1e-6; continue ;;
    hand-soft) large_case "$case" bench/scenes/hand-sag.json; continue ;;
    armadillo-stiff) large_case "$case" bench/scenes/bunny-step.json --set solver.type=auto \
      --set solver.max_iterations=100 --set solver.tolerance=1e-6 \
      --set "mesh.file=$(pwd)/../shared/meshes/armadillo.node"; continue ;;
    knight-stiff) scene=scenes/knight.json; extra=() ;;
    knight-soft) scene=scenes/knight.json; extra=(--set material.E=2e4) ;;
    default-push) scene=scenes/default.json; extra=() ;;
    knight-grab) scene=bench/scenes/knight-grab.json; extra=() ;;
    *) echo "unknown case $case" >&2; exit 2 ;;
  esac
  run linearized-backward-euler "$case" "$scene" "${extra[@]}" --set integrator.type=linearized-backward-euler
  run implicit-euler "$case" "$scene" "${extra[@]}" --set integrator.type=implicit-euler
  # BDF's trajectory is a different discretization of the same equations: its distance to implicit
  # Euler is the first-order method's error as much as its own.
  run bdf2 "$case" "$scene" "${extra[@]}" --set integrator.type=bdf2
  run bdf3 "$case" "$scene" "${extra[@]}" --set integrator.type=bdf3
  for n in 5 10 20 40 80; do
    run "vbd $n" "$case" "$scene" "${extra[@]}" --set integrator.type=vbd --set integrator.iterations=$n
  done
  for n in 10 40; do
    run "vbd $n, chebyshev 0.9" "$case" "$scene" "${extra[@]}" --set integrator.type=vbd \
      --set integrator.iterations=$n --set integrator.chebyshev=0.9
  done
  for n in 5 10 20 40; do
    run "projective $n" "$case" "$scene" "${extra[@]}" --set integrator.type=projective \
      --set integrator.iterations=$n
  done
  run "projective 20, chebyshev 0.9" "$case" "$scene" "${extra[@]}" \
    --set integrator.type=projective --set integrator.iterations=20 --set integrator.chebyshev=0.9
  for n in 2 5 10 20 40; do
    run "quasi-newton $n" "$case" "$scene" "${extra[@]}" --set integrator.type=quasi-newton \
      --set integrator.iterations=$n
  done
  for si in 1x10 1x40 5x2 10x1 20x1 40x1; do
    run "xpbd ${si%x*} substeps x ${si#*x}" "$case" "$scene" "${extra[@]}" \
      --set material.volumetric=none --set integrator.type=xpbd \
      --set integrator.substeps=${si%x*} --set integrator.iterations=${si#*x}
  done
done
python3 bench/summarize_solver_comparison.py "$result"
