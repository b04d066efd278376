#!/usr/bin/env python3
"""Seed 004's Fig. 2 / Table 1 cube (V004-1): a 10 cm cube of ~3,000 tetrahedra, its bottom face
held, its top face anchored and twisted by 90 degrees over 1 s, then pressed down until it lies
30 % of the cube's height below the bottom face (1 s), then released (t = 2 s) and left for 2 s.
Each law (stvk-tl, cnh, snh, corotational) under the paper's "PD" (quasi-newton: L-BFGS with
projective dynamics' matrix) and under plain projective dynamics, 10 iterations per step,
h = 33 ms, with inversion alleviation off and at 3 sweeps. Prints a Markdown table (inverted
elements at release, at the end, the first step after release from which none is inverted, the
shape's distance from rest at the end), writes JSON lines and a plot.
Usage: /usr/bin/python3 docs/validation/seed004/cube.py [OUT_DIR]  (default bench/results)
Needs build/release/engine/cli/softbody-sim (scripts/build.sh softbody-sim) and matplotlib."""
import json
import math
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SIM = ROOT / "build/release/engine/cli/softbody-sim"
OUT = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "bench/results"
CELLS, SIZE = 8, 0.1  # 8^3 cells of 6 tetrahedra: 3,072 (the paper's cube: 2,911)
TWIST, PRESS, RELEASE, END = 1.0, 2.0, 2.0, 4.0


def scene():
    h = SIZE / CELLS
    anchors = []
    for i in range(CELLS + 1):
        for k in range(CELLS + 1):
            x0, z0 = -SIZE / 2 + i * h, -SIZE / 2 + k * h
            # Twist by 90 degrees over [0, 1] s, then press: the top goes down 1.3 H over [1, 2] s.
            theta = f"(pi/2)*min(t/{TWIST},1)"
            dx = f"{x0}*cos({theta})-({z0})*sin({theta})-({x0})"
            dz = f"{x0}*sin({theta})+({z0})*cos({theta})-({z0})"
            dy = f"-{1.3 * SIZE}*max(0,min(t-{TWIST},{PRESS - TWIST}))/{PRESS - TWIST}"
            anchors.append({"nearest": [x0, SIZE, z0], "stiffness": 2e4, "damping": 2,
                            "release": RELEASE,
                            "offset": {"piecewise": [{"from": 0, "to": 100,
                                                      "position": [dx, dy, dz]}]}})
    return {
        "name": "seed004-cube",
        "mesh": {"box": {"cells": [CELLS] * 3, "size": [SIZE] * 3,
                         "origin": [-SIZE / 2, 0, -SIZE / 2]}},
        "material": {"model": "corotational", "E": 5e4, "nu": 0.4, "density": 1000,
                     "pressure": "element"},
        "damping": {"alpha": 0.5, "beta": 0},
        "dt": 0.033, "duration": END,
        "fixed": [{"set": "ymin"}],
        "integrator": {"type": "quasi-newton", "iterations": 10},
        "anchors": anchors,
    }


def run(path, law, integrator, sweeps):
    out = subprocess.run(
        [str(SIM), "run", str(path), "--json", "--threads", "2",
         "--set", f"material.model={law}", "--set", f"integrator.type={integrator}",
         "--set", f"integrator.alleviation.sweeps={sweeps}"],
        check=True, capture_output=True, text=True).stdout
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    steps = [line for line in lines if "step" in line]
    summary = lines[-1]
    inverted = [s["inverted_elements"] for s in steps]
    released = next(k for k, s in enumerate(steps) if s["t"] > RELEASE + 1e-9)
    clean = next((k for k in range(released, len(inverted)) if not any(inverted[k:])), None)
    return {"law": law, "integrator": integrator, "sweeps": sweeps, "tets": summary["tets"],
            "inverted_per_step": inverted, "t": [s["t"] for s in steps],
            "inverted_at_release": inverted[released - 1], "inverted_at_end": inverted[-1],
            "clean_after_release_s": None if clean is None else steps[clean]["t"] - RELEASE,
            "max_inverted": max(inverted),
            "final_distance": summary["final_mean_displacement_over_diagonal"],
            "rollbacks": summary["rollbacks"], "median_step_ms": summary["median_step_ms"]}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scene(), f)
        path = pathlib.Path(f.name)
    for integrator in ("quasi-newton", "projective"):
        for law in ("stvk-tl", "cnh", "snh", "corotational"):
            for sweeps in (0, 3):
                r = run(path, law, integrator, sweeps)
                rows.append(r)
                print(f"  {integrator} {law} {sweeps}", file=sys.stderr)
    path.unlink()
    (OUT / "seed004-cube.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    print("| solver | law | alleviation sweeps | inverted: max / at release / at end | "
          "none inverted from (after release) | distance from rest at end [% of diagonal] | "
          "rollbacks | median step [ms] |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        clean = "never" if r["clean_after_release_s"] is None else \
            f"{r['clean_after_release_s']:.2f} s"
        print(f"| {r['integrator']} | {r['law']} | {r['sweeps']} | {r['max_inverted']} / "
              f"{r['inverted_at_release']} / {r['inverted_at_end']} | {clean} | "
              f"{100 * r['final_distance']:.2f} | {r['rollbacks']} | {r['median_step_ms']:.1f} |")
    plot(rows)


def plot(rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, integrator in zip(axes, ("quasi-newton", "projective")):
        for k, law in enumerate(("stvk-tl", "cnh", "snh", "corotational")):
            for r in rows:
                if r["integrator"] != integrator or r["law"] != law:
                    continue
                counts = [max(c, 0.5) for c in r["inverted_per_step"]]
                ax.semilogy(r["t"], counts, color=f"C{k}", ls="-" if r["sweeps"] else ":",
                            label=f"{law}, " + (f"{r['sweeps']} sweeps" if r["sweeps"]
                                                else "no alleviation"))
        ax.axvline(RELEASE, color="grey", lw=0.8)
        ax.set_title(f"{integrator} (10 iterations): inverted elements")
        ax.set_xlabel("t [s] (twist to 1 s, press to 2 s, released at 2 s)")
    axes[0].set_ylabel("inverted elements (0 drawn at 0.5)")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ROOT / "docs/validation/seed004-cube.png", dpi=110)


if __name__ == "__main__":
    main()
