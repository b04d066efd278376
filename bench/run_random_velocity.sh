#!/usr/bin/env bash
# Seed 004's random-velocity start (issue 23's target, bench/RESULTS.md "Random-velocity start"):
# every mesh of ../shared/meshes scaled to 15 cm, free (no gravity, nothing held), each vertex
# given velocity components uniform in [-5, 5] m/s (seed 1), stepped 1 s at 10 ms by the vbd
# integrator at 10 sweeps, with the stable (snh) and the clamped (cnh) Neo-Hooke laws (E = 100
# kPa, nu = 0.45), inversion alleviation off and at 30 sweeps. Prints, per run, the inverted
# elements after the first step, their maximum, after the last step, and the first step from
# which none is inverted any more. Needs ../shared/meshes (not in a user's clone). Takes about
# 10 minutes on two cores. JSON lines in $RESULTS_DIR (default build/bench-results).
# INTEGRATOR (default vbd) and ITERATIONS (default 10) choose the solver; MESH_LIST, LAWS and
# SWEEPS (space-separated) narrow the runs, e.g. INTEGRATOR=implicit-euler LAWS=snh (Newton on
# the armadillo takes 3-5 s a step).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh softbody-sim >/dev/null
sim=$PWD/build/release/engine/cli/softbody-sim
meshes=${MESHES_DIR:-$PWD/../shared/meshes}
out=${RESULTS_DIR:-build/bench-results}
mkdir -p "$out"
result="$out/random-velocity.jsonl"
: >"$result"
scene=$(mktemp --suffix=.json)
trap 'rm -f "$scene"' EXIT
integrator=${INTEGRATOR:-vbd}
iterations=${ITERATIONS:-10}
for mesh in ${MESH_LIST:-octopus-low.mesh knight.node hand.mesh bunny.mesh armadillo.node}; do
  cat >"$scene" <<JSON
{"name": "random-velocity", "units": "m",
 "mesh": {"file": "$meshes/$mesh", "fit_height": 0.15, "center_xz": true},
 "material": {"model": "snh", "E": 1e5, "nu": 0.45, "density": 1000, "pressure": "element"},
 "dt": 0.01, "duration": 1, "gravity": [0, 0, 0],
 "integrator": {"type": "$integrator", "iterations": $iterations},
 "initial_velocity": {"random": 5, "seed": 1}}
JSON
  for law in ${LAWS:-snh cnh}; do
    for sweeps in ${SWEEPS:-0 30}; do
      "$sim" run "$scene" --json --threads 2 --set material.model=$law \
        --set integrator.alleviation.sweeps=$sweeps |
        python3 -c "
import json, sys
lines = [json.loads(l) for l in sys.stdin]
steps = [l for l in lines if 'step' in l]
inv = [s['inverted_elements'] for s in steps]
clean = next((k + 1 for k in range(len(inv)) if not any(inv[k:])), None)
print(json.dumps({'mesh': '$mesh', 'tets': lines[-1]['tets'], 'law': '$law', 'sweeps': $sweeps,
                  'integrator': '$integrator', 'iterations': $iterations,
                  'inverted_first': inv[0], 'inverted_max': max(inv), 'inverted_last': inv[-1],
                  'clean_from_step': clean,
                  'predicted_inverted': sum(s['inverted_before_alleviation'] for s in steps),
                  'median_step_ms': lines[-1]['median_step_ms'],
                  'rollbacks': lines[-1]['rollbacks'], 'inverted_per_step': inv}))" >>"$result"
      echo "  $mesh $law sweeps=$sweeps $integrator" >&2
    done
  done
done
python3 - "$result" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| mesh (tets) | integrator | law | alleviation sweeps | inverted after step 1 / max / after 1 s | none inverted from step | median step [ms] | rollbacks |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    clean = r["clean_from_step"] if r["clean_from_step"] is not None else "never"
    integrator = r.get("integrator", "vbd")  # rows written before these columns: vbd 10
    solver = integrator if integrator == "implicit-euler" else f"{integrator} {r.get('iterations', 10)}"
    print(f"| {r['mesh']} ({r['tets']}) | {solver} | {r['law']} | {r['sweeps']} | {r['inverted_first']} / "
          f"{r['inverted_max']} / {r['inverted_last']} | {clean} | {r['median_step_ms']:.1f} | {r['rollbacks']} |")
PY
