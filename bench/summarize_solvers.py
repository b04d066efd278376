#!/usr/bin/env python3
"""Prints the Markdown tables of bench/RESULTS.md's solver section from bench/results/*.json."""
import json
import os
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "bench/results"


def load(name):
    path = os.path.join(d, name)
    return json.load(open(path)) if os.path.exists(path) else None


print("| matrix | unknowns | factor | nnz(L) | fill | factor ms | solve ms | product ms | rate ratio |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
for name in ("knight", "bunny"):
    s = load(f"solver-{name}.json")
    if not s:
        continue
    f = s["factor"]
    print(f"| {s['scene']} ({s['threads']} thr.) | {s['unknowns']} | {f['kind']} | {f['nnz_factor']} | "
          f"{f['fill']:.1f} | {f['factor_ms']:.2f} | {f['solve_ms']:.3f} | {s['matvec_ms']:.3f} | "
          f"{f['rate_ratio']:.2f} |")
print()
for name in ("knight", "bunny"):
    s = load(f"solver-{name}.json")
    if not s:
        continue
    print(f"{s['scene']}: to {s['tolerance']:g} from the step's warm start")
    print()
    print("| method | iterations | residual | ms |")
    print("|---|---:|---:|---:|")
    for m in s["methods"]:
        flag = "" if m["converged"] else " (not converged)"
        print(f"| {m['method']} | {m['iterations']}{flag} | {m['relative_residual']:.1e} | {m['ms']:.2f} |")
    print()

print("| scene, threads | solver | step median / mean (amortized) ms | iterations per step | "
      "factorizations | max residual | steps missing the tolerance |")
print("|---|---|---:|---:|---:|---:|---:|")
for name in ("knight-auto-t1", "knight-qmr30-t1", "default-auto-t1", "crush-auto-t1", "bunny-auto-t2"):
    s = load(f"step-{name}.json")
    if not s:
        continue
    print(f"| {s['scene']}, {s['threads']} | {s['solver']} (tol {s['tolerance']:g}, cap {s['max_iterations']}) | "
          f"{s['step_ms']['median']:.2f} / {s['step_ms']['mean']:.2f} | {s['iterations_per_step']:.1f} | "
          f"{s['factorizations']} | {s['max_residual']:.1e} | {s['steps_tolerance_unmet']} |")
print()

print("| scene | solver | max residual | mean / max distance to the converged run | "
      "mean / max spread of two converged runs | median step ms |")
print("|---|---|---:|---|---|---:|")
for name in ("default", "knight", "octopus-push"):
    for kind in ("auto", "capped"):
        s = load(f"fidelity-{name}-{kind}.json")
        if not s:
            continue
        print(f"| {s['scene']} | {s['solver']}{'' if kind == 'auto' else ' (iteration cap)'} | "
              f"{s['max_residual']:.1e} | {100 * s['mean_distance_to_reference']:.2g} % / "
              f"{100 * s['max_distance_to_reference']:.2g} % | {100 * s['mean_reference_spread']:.2g} % / "
              f"{100 * s['max_reference_spread']:.2g} % | {s['median_step_ms']:.2f} |")
print()

for n in (16, 24):
    s = load(f"load-{n}-knight-auto.json")
    if s:
        r = s["real_time_factor"]
        print(f"load {n} knight sessions: RTF min {r['min']:.3f} p50 {r['p50']:.3f}, frames "
              f"{s['frames_received']} / {s['frames_expected']:.0f}, errors {s['errors']['total']}")
