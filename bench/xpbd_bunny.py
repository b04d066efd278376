#!/usr/bin/env python3
"""XPBD on the bunny: what its iteration budget buys (bench/RESULTS.md, "XPBD on the bunny").

The issue-23 target times a 10-iteration step of bench/scenes/bunny-step.json; this runs XPBD at
several substeps x iterations on that scene and on a softer variant, two threads, and reports
each setting's median step beside what the body did: the elements inverted at the end, the top of
the bunny and the mean displacement from rest over the bounding-box diagonal. Converged implicit
Euler (solver auto) keeps this bunny standing where it is (its rows give the yardstick), so a
setting that sags or folds it is that far from the exact step, whatever it costs.

  /usr/bin/python3 bench/xpbd_bunny.py [--duration S] [--sim PATH] > rows.jsonl

One JSON line per run on stdout, a markdown table on stderr.
"""
import argparse
import json
import subprocess
import sys

SCENE = "bench/scenes/bunny-step.json"
MATERIALS = {"stiff": [], "soft": ["--set", "material.E=0.01", "--set", "material.nu=0.45"]}
LAWS = ["stvk-tl", "snh"]
# (substeps, iterations): equal products cost about the same.
XPBD_SETTINGS = [(1, 10), (10, 1), (2, 5), (1, 40), (40, 1), (10, 10)]


def run(sim, duration, args):
    command = [sim, "run", SCENE, "--threads", "2", "--duration", str(duration), "--json"] + args
    lines = subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()
    rows = [json.loads(line) for line in lines if line.startswith("{")]
    summary = rows[-1]
    last = [r for r in rows if "step" in r][-1]
    return {
        "median_step_ms": summary["median_step_ms"],
        "inverted_elements": last["inverted_elements"],
        "top_m": last["bbox_max"][1],
        "mean_displacement_over_diagonal": summary["final_mean_displacement_over_diagonal"],
        "rollbacks": summary["rollbacks"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=0.6)
    parser.add_argument("--sim", default="build/release/engine/cli/softbody-sim")
    options = parser.parse_args()
    table = ["| material | law | integrator | median step [ms] | inverted at end | top [m] | "
             "mean displacement / diagonal |", "|---|---|---|---|---|---|---|"]
    for material, material_args in MATERIALS.items():
        for law in LAWS:
            cases = [("implicit-euler (auto)", ["--set", "integrator.type=implicit-euler",
                                                "--set", "solver.type=auto"])]
            cases += [(f"xpbd {s} x {i}", ["--set", "integrator.type=xpbd", "--set",
                                           f"integrator.substeps={s}", "--set",
                                           f"integrator.iterations={i}"])
                      for s, i in XPBD_SETTINGS]
            for label, integrator_args in cases:
                args = material_args + ["--set", f"material.model={law}", "--set",
                                        "material.volumetric=none"] + integrator_args
                row = {"material": material, "law": law, "integrator": label}
                row.update(run(options.sim, options.duration, args))
                print(json.dumps(row), flush=True)
                table.append(f"| {material} | {law} | {label} | {row['median_step_ms']:.1f} | "
                             f"{row['inverted_elements']} | {row['top_m']:.3f} | "
                             f"{row['mean_displacement_over_diagonal']:.3g} |")
                print(f"  {material} {law} {label}", file=sys.stderr, flush=True)
    print("\n".join(table), file=sys.stderr)


if __name__ == "__main__":
    main()
