#!/usr/bin/env python3
"""Seed 004's dropped letters (Table 1, V004-3): three soft bodies of the clamped Neo-Hooke law
(cnh) with the paper's Lame parameters, mu = 357 / 337 / 208 Pa and lambda = 16442 / 1428 / 138 Pa
(stiffest / medium / softest; nu = 0.489 / 0.405 / 0.199), dropped from 30 cm onto a penalty floor.
The paper gives no meshes or densities: each "letter" here is an I-shaped slab, 4 x 12 x 2 cm of
6 x 18 x 6 cells (3,888 tetrahedra), density 100 kg/m^3, gravity 9.81 m/s^2, 2 s.
- Projective dynamics (the paper's PD): h = 6.6 ms, 10 iterations, alleviation 0 and 5 sweeps;
  at h = 11.1 ms 2 and 3 sweeps.
- XPBD: h = 3.3 ms, 40 / 20 / 5 iterations for the stiffest / medium / softest, alleviation 0 and
  5 sweeps.
"Recovered" here: no failed step and no element inverted during the last 0.5 s (a letter left
tangled keeps inverted elements; the letters fall over and wobble, so a bounding box says
nothing of their shape).
Prints a Markdown table; writes JSON lines (bench/results/seed004-letters.jsonl) and
docs/validation/seed004-letters.png.
Usage: /usr/bin/python3 docs/validation/seed004/letters.py  (needs build/release/engine/cli/softbody-sim)"""
import json
import pathlib

from sim_run import run  # beside this script

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
OUT = ROOT / "bench/results"
HEIGHT = 0.12
# Light (foam-like): rho g H = 118 Pa, a third of the stiffest letter's mu, so the letters keep a
# shape under their own weight (at 1000 kg/m^3 rho g H = 1,180 Pa flattens every one of them).
DENSITY = 100.0

# (name, mu, lambda, xpbd iterations)
LETTERS = [("stiffest", 357.0, 16442.0, 40), ("medium", 337.0, 1428.0, 20),
           ("softest", 208.0, 138.0, 5)]


def material(mu, lam):
    return {"model": "cnh", "E": mu * (3 * lam + 2 * mu) / (lam + mu),
            "nu": lam / (2 * (lam + mu)), "density": DENSITY, "volumetric": "none",
            "pressure": "element"}


def scene(mu, lam):
    return {"name": "seed004-letter",
            "mesh": {"box": {"cells": [6, 18, 6], "size": [0.04, HEIGHT, 0.02],
                             "origin": [-0.02, 0.3, -0.01]}},
            "material": material(mu, lam), "gravity": [0, -9.81, 0], "duration": 2.0,
            "obstacles": [{"type": "halfspace", "normal": [0, 1, 0], "position": [0, 0, 0],
                           "contact": {"stiffness": 2e3, "damping": 5, "friction": 50}}]}


def cases():
    for name, mu, lam, xpbd_iterations in LETTERS:
        for sweeps in (0, 5):
            yield name, mu, lam, f"projective 10, h = 6.6 ms, {sweeps} sweeps", sweeps, [
                "integrator.type=projective", "integrator.iterations=10", "dt=0.0066"]
        for sweeps in (2, 3):
            yield name, mu, lam, f"projective 10, h = 11.1 ms, {sweeps} sweeps", sweeps, [
                "integrator.type=projective", "integrator.iterations=10", "dt=0.0111"]
        for sweeps in (0, 5):
            yield name, mu, lam, f"xpbd {xpbd_iterations}, h = 3.3 ms, {sweeps} sweeps", sweeps, [
                "integrator.type=xpbd", f"integrator.iterations={xpbd_iterations}", "dt=0.0033"]


def main():
    rows = []
    print("| letter | solver | inverted: max / most in the last 0.5 s | failed steps, rollbacks | "
          "recovered |")
    print("|---|---|---|---|---|")
    for name, mu, lam, label, sweeps, overrides in cases():
        steps, summary = run(scene(mu, lam), *overrides,
                             f"integrator.alleviation.sweeps={sweeps}")
        inverted = [s["inverted_elements"] for s in steps]
        late = max(s["inverted_elements"] for s in steps if s["t"] > 1.5)
        failed = sum(1 for s in steps if s.get("failed"))
        stable = failed == 0 and late == 0
        r = {"letter": name, "solver": label, "sweeps": sweeps, "t": [s["t"] for s in steps],
             "inverted_per_step": inverted, "inverted_late": late, "failed": failed,
             "rollbacks": summary["rollbacks"], "stable": stable}
        rows.append(r)
        print(f"| {name} | {label} | {max(inverted)} / {late} | "
              f"{failed}, {r['rollbacks']} | {'yes' if stable else 'no'} |", flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "seed004-letters.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    plot(rows)


def plot(rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), sharey=True)
    for ax, (name, *_rest) in zip(axes, LETTERS):
        for k, r in enumerate(r for r in rows if r["letter"] == name):
            ax.semilogy(r["t"], [max(c, 0.5) for c in r["inverted_per_step"]], label=r["solver"],
                        color=f"C{k}")
        ax.set_title(f"{name} letter: inverted elements (0 at 0.5)")
        ax.set_xlabel("t [s]")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ROOT / "docs/validation/seed004-letters.png", dpi=110)


if __name__ == "__main__":
    main()
