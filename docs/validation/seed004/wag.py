#!/usr/bin/env python3
"""Seed 004's wagged bunny (Table 1, V004-2): the bunny (tests/meshes/bunny.mesh, 34,055
tetrahedra: the paper's has ~6k; no coarser bunny is at hand) 15 cm tall, its base (the vertices
within 6 mm of the floor) held by anchors whose targets wag, 2 s at h = 33 ms.
- Horizontally: x = 4 cm sin(2 pi 2 t); laws snh, cnh, stvk-tl under quasi-newton 10 (the
  paper's "PD" for laws that are not projective), alleviation 0 and 30 sweeps.
- Vertically: y = 3 cm sin(2 pi f t) at f = 1, 2, 4 Hz; corotational under projective dynamics
  with 5 iterations, alleviation 0 and 30 sweeps.
E = 5 kPa, nu = 0.4, density 1000 kg/m^3, no gravity (the wag alone deforms it).
Prints a Markdown table (inverted elements: the most in one step, the sum over steps, at the end);
writes JSON lines (bench/results/seed004-wag.jsonl) and docs/validation/seed004-wag.png.
Usage: /usr/bin/python3 docs/validation/seed004/wag.py  (needs build/release/engine/cli/softbody-sim)"""
import json
import pathlib

from sim_run import run  # beside this script

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
OUT = ROOT / "bench/results"


def scene(offset):
    return {"name": "seed004-wag",
            "mesh": {"file": str(ROOT / "tests/meshes/bunny.mesh"), "fit_height": 0.15,
                     "lowest_y": 0, "center_xz": True},
            "material": {"model": "snh", "E": 5e3, "nu": 0.4, "density": 1000,
                         "volumetric": "none", "pressure": "element"},
            "dt": 0.033, "duration": 2.0, "gravity": [0, 0, 0],
            "anchors": [{"select": {"plane": {"point": [0, 0, 0], "normal": [0, 1, 0],
                                              "distance": 0.006}},
                         "stiffness": 100, "damping": 1,
                         "offset": {"piecewise": [{"from": 0, "to": 100,
                                                   "position": offset}]}}]}


def cases():
    horizontal = ["0.04*sin(2*pi*2*t)", "0", "0"]
    for law in ("snh", "cnh", "stvk-tl"):
        for sweeps in (0, 30):
            yield (f"horizontal, {law}, quasi-newton 10", sweeps, scene(horizontal),
                   [f"material.model={law}", "integrator.type=quasi-newton",
                    "integrator.iterations=10"])
    for f in (1, 2, 4):
        vertical = ["0", f"0.03*sin(2*pi*{f}*t)", "0"]
        for sweeps in (0, 30):
            yield (f"vertical {f} Hz, corotational, projective 5", sweeps, scene(vertical),
                   ["material.model=corotational", "integrator.type=projective",
                    "integrator.iterations=5"])


def main():
    rows = []
    print("| wag, law, solver | sweeps | inverted: most in a step / summed over steps / at 2 s | "
          "before alleviation: most in a step | rollbacks |")
    print("|---|---|---|---|---|")
    for label, sweeps, doc, overrides in cases():
        steps, summary = run(doc, *overrides, f"integrator.alleviation.sweeps={sweeps}")
        inverted = [s["inverted_elements"] for s in steps]
        before = [s.get("inverted_before_alleviation", 0) for s in steps]
        r = {"case": label, "sweeps": sweeps, "t": [s["t"] for s in steps],
             "inverted_per_step": inverted, "before_alleviation": before,
             "rollbacks": summary["rollbacks"]}
        rows.append(r)
        print(f"| {label} | {sweeps} | {max(inverted)} / {sum(inverted)} / {inverted[-1]} | "
              f"{max(before)} | {r['rollbacks']} |", flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "seed004-wag.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    plot(rows)


def plot(rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.4), sharey=True)
    for k, r in enumerate(rows):
        ax = axes[0] if r["case"].startswith("horizontal") else axes[1]
        ax.semilogy(r["t"], [max(c, 0.5) for c in r["inverted_per_step"]],
                    label=f"{r['case']}, {r['sweeps']} sweeps", color=f"C{k // 2}",
                    linestyle="-" if r["sweeps"] else ":")
    axes[0].set_title("wagged horizontally: inverted elements per step (0 at 0.5)")
    axes[1].set_title("wagged vertically: inverted elements per step (0 at 0.5)")
    for ax in axes:
        ax.set_xlabel("t [s]")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ROOT / "docs/validation/seed004-wag.png", dpi=110)


if __name__ == "__main__":
    main()
