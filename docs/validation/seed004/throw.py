#!/usr/bin/env python3
"""Seed 004's thrown body (Table 1, V004-5) and the momentum a spinning body loses to inversion
alleviation.
- Wall: a 10 cm box of 3,456 tetrahedra (the paper's body: ~3.5k), corotational, E = 50 kPa,
  nu = 0.4, thrown at 10 m/s against a penalty wall (K_N = 1e5 N/m, no friction, no gravity),
  h = 6.6 ms, 10 quasi-newton iterations (the paper's "PD 10"), alleviation 0/1/5/15/50 sweeps,
  and converged implicit Euler (Newton) as the reference. The rebound momentum and the inverted
  elements per step.
- Spin: the same box spinning at 60 rad/s about z with random velocity components up to 3 m/s
  (seed 1), free, 1 s; angular momentum about the centre of mass over time with alleviation off
  and at 30 sweeps (quasi-newton 10), and Newton's.
Prints two Markdown tables; writes JSON lines (bench/results/seed004-throw.jsonl) and
docs/validation/seed004-throw.png.
Usage: /usr/bin/python3 docs/validation/seed004/throw.py  (needs build/release/engine/cli/softbody-sim)"""
import json
import pathlib

from sim_run import run  # beside this script

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
OUT = ROOT / "bench/results"
SPEED, MASS = 10.0, 1000 * 0.1 * 0.1 * 0.1125

BOX = {"name": "seed004-throw",
       "mesh": {"box": {"cells": [8, 8, 9], "size": [0.1, 0.1, 0.1125],
                        "origin": [-0.05, 0, -0.05625]}},
       "material": {"model": "corotational", "E": 5e4, "nu": 0.4, "density": 1000,
                    "pressure": "element"},
       "dt": 0.0066, "gravity": [0, 0, 0],
       "integrator": {"type": "quasi-newton", "iterations": 10}}
WALL = dict(BOX, duration=0.6, initial_velocity={"linear": [SPEED, 0, 0]},
            obstacles=[{"type": "halfspace", "normal": [-1, 0, 0], "position": [0.3, 0, 0],
                        "contact": {"stiffness": 1e5, "damping": 0, "friction": 0}}])
SPIN = dict(BOX, duration=1.0, initial_velocity={"angular": [0, 0, 60], "random": 3, "seed": 1})


def label(sweeps):
    return "implicit-euler (Newton)" if sweeps is None else f"quasi-newton 10, {sweeps} sweeps"


def overrides(sweeps):
    if sweeps is None:
        return ["integrator.type=implicit-euler", "solver.type=auto"]
    return [f"integrator.alleviation.sweeps={sweeps}"]


def main():
    rows = []
    print("| solver | inverted: max / after the last step | rebound momentum [kg m/s] "
          "(thrown with +11.25) | rollbacks |")
    print("|---|---|---|---|")
    for sweeps in (None, 0, 1, 5, 15, 50):
        steps, summary = run(WALL, *overrides(sweeps))
        inverted = [s["inverted_elements"] for s in steps]
        r = {"case": "wall", "sweeps": sweeps, "t": [s["t"] for s in steps],
             "inverted_per_step": inverted, "momentum_x": [s["momentum"][0] for s in steps],
             "rollbacks": summary["rollbacks"]}
        rows.append(r)
        print(f"| {label(sweeps)} | {max(inverted)} / {inverted[-1]} | "
              f"{r['momentum_x'][-1]:.2f} | {r['rollbacks']} |")
    print()
    print("| solver | inverted after step 1 / max / at 1 s | angular momentum L_z [kg m^2/s]: "
          "after step 1 / at 1 s (start: the spin's) | rollbacks |")
    print("|---|---|---|---|")
    for sweeps in (None, 0, 30):
        steps, summary = run(SPIN, *overrides(sweeps))
        inverted = [s["inverted_elements"] for s in steps]
        r = {"case": "spin", "sweeps": sweeps, "t": [s["t"] for s in steps],
             "inverted_per_step": inverted,
             "angular_momentum_z": [s["angular_momentum"][2] for s in steps],
             "rollbacks": summary["rollbacks"]}
        rows.append(r)
        print(f"| {label(sweeps)} | {inverted[0]} / {max(inverted)} / {inverted[-1]} | "
              f"{r['angular_momentum_z'][0]:.4f} / {r['angular_momentum_z'][-1]:.4f} | "
              f"{r['rollbacks']} |")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "seed004-throw.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    plot(rows)


def plot(rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for k, r in enumerate(r for r in rows if r["case"] == "wall"):
        style = {"color": "k" if r["sweeps"] is None else f"C{k}"}
        axes[0].semilogy(r["t"], [max(c, 0.5) for c in r["inverted_per_step"]],
                         label=label(r["sweeps"]), **style)
        axes[1].plot(r["t"], r["momentum_x"], label=label(r["sweeps"]), **style)
    for k, r in enumerate(r for r in rows if r["case"] == "spin"):
        axes[2].plot(r["t"], r["angular_momentum_z"], label=label(r["sweeps"]),
                     color="k" if r["sweeps"] is None else f"C{k}")
    axes[0].set_title("thrown at a wall: inverted elements (0 at 0.5)")
    axes[1].set_title("thrown at a wall: momentum along the throw [kg m/s]")
    axes[2].set_title("spinning, random start: angular momentum L_z [kg m²/s]")
    for ax in axes:
        ax.set_xlabel("t [s]")
    axes[1].legend(fontsize=7)
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ROOT / "docs/validation/seed004-throw.png", dpi=110)


if __name__ == "__main__":
    main()
