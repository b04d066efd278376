#!/usr/bin/python3
"""Reproduces seed 000's experiments A, B and C with softbody-sim and plots them.

Run from the repository root after building (scripts/build.sh softbody-sim):
    /usr/bin/python3 docs/validation/seed000.py [--quick] [--only-a]
Needs Debian's python3-matplotlib (apt-get install python3-matplotlib). Writes the per-step JSON
lines to docs/validation/data/, the plots to docs/validation/*.png and prints the tables quoted in
docs/validation/seed-000.md. Like the paper, runs use a wall-clock budget per step (as many solver
iterations as fit in 25 ms of the 30 ms step), so repeated runs differ slightly; --quick runs one
repetition per V value.
"""
import json
import os
import statistics
import subprocess
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SIM = "build/release/engine/cli/softbody-sim"
OUT = "docs/validation"
DATA = os.path.join(OUT, "data")
BUDGET = ["--set", "solver.time_budget=0.025", "--set", "solver.max_iterations=100000"]
SCHEMES = [("CG", "cg", False), ("CG+NC", "cg", True), ("BiCGStab", "bicgstab", False),
           ("BiCGStab+NC", "bicgstab", True), ("QMR", "qmr", False), ("QMR+NC", "qmr", True),
           # The default solver: converged solves (the scene's 1e-10) with a reused factorization,
           # indefinite steps made definite; the time budget does not apply to it.
           ("auto", "auto", False), ("auto+NC", "auto", True)]
V_VALUES = [0.8, 4, 20, 100, 500, 2500, 12500]  # mm/s


def run(scene, extra, name):
    cmd = [SIM, "run", scene, "--json", "--threads", "2"] + BUDGET + extra
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    path = os.path.join(DATA, name + ".jsonl")
    with open(path, "w") as f:
        f.write(out)
    lines = [json.loads(x) for x in out.splitlines()]
    return lines[:-1], lines[-1]


def experiment_a():
    results = {}
    for label, solver, nc in SCHEMES:
        steps, summary = run("scenes/crush.json", ["--set", f"solver.type={solver}", "--set",
                                                   f"integrator.correction={'true' if nc else 'false'}",
                                                   "--set", "robustness.max_retries=0"], "A-" + label.replace("+", "-"))
        results[label] = (steps, summary)
    fig, axes = plt.subplots(3, 1, figsize=(9, 10), sharex=True)
    for label, (steps, _) in results.items():
        t = [s["t"] for s in steps]
        axes[0].semilogy(t, [max(s["max_speed"], 1e-6) for s in steps], label=label, lw=0.8)
        axes[1].plot(t, [s["iterations"] for s in steps], label=label, lw=0.8)
        axes[2].semilogy(t, [max(s["residual"], 1e-16) for s in steps], label=label, lw=0.8)
    axes[0].axhline(1.5, color="k", ls=":", lw=0.8)
    axes[0].set_ylabel("max vertex speed [m/s]")
    axes[1].set_ylabel("solver iterations per step")
    axes[2].set_ylabel("relative residual")
    axes[2].set_xlabel("t [s]")
    axes[0].legend(ncol=3, fontsize=8)
    axes[0].set_title("Experiment A: crush and shear, six budgeted schemes (25 ms of each 30 ms step) "
                      "and the converged default (auto)", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "seed000-A.png"), dpi=110)
    print("\n### Experiment A\n")
    print("| scheme | steps over 1.5 m/s | max speed [m/s] | failed (rolled-back) steps | mean iterations | final shape error |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, (steps, s) in results.items():
        print(f"| {label} | {s['steps_over_threshold']} | {s['max_speed']:.3g} | {s['failed_steps']} | "
              f"{s['mean_iterations']:.0f} | {100 * s['final_mean_displacement_over_diagonal']:.2f} % |")


def experiment_b(repetitions):
    counts = {}
    for v in V_VALUES:
        counts[v] = []
        for r in range(repetitions):
            _, s = run("scenes/crush.json", ["--set", f"integrator.V={v}"], f"B-V{v}-r{r}")
            counts[v].append(s["steps_over_threshold"])
    fig, ax = plt.subplots(figsize=(7, 4))
    means = [statistics.mean(counts[v]) for v in V_VALUES]
    sds = [statistics.pstdev(counts[v]) for v in V_VALUES]
    ax.errorbar(V_VALUES, means, yerr=sds, marker="o", capsize=3)
    ax.set_xscale("log")
    ax.set_xlabel("V [mm/s]")
    ax.set_ylabel("steps with max speed > 1.5 m/s")
    ax.set_title(f"Experiment B: QMR+NC, {repetitions} run(s) per V")
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "seed000-B.png"), dpi=110)
    print("\n### Experiment B\n")
    print("| V [mm/s] | " + " | ".join(str(v) for v in V_VALUES) + " |")
    print("|---|" + "---:|" * len(V_VALUES))
    print("| steps > 1.5 m/s (mean) | " + " | ".join(f"{m:.1f}" for m in means) + " |")


def experiment_c():
    t50 = {}
    for v in V_VALUES:
        steps, _ = run("scenes/pull-up.json", ["--set", f"integrator.V={v}"], f"C-V{v}")
        y0 = None
        t50[v] = None
        for s in steps:
            lowest = s["bbox_min"][1]
            if y0 is None:
                y0 = lowest
            if lowest - y0 >= 0.05:
                t50[v] = s["t"]
                break
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [v for v in V_VALUES if t50[v] is not None]
    ax.plot(xs, [t50[v] for v in xs], marker="o")
    ax.set_xscale("log")
    ax.set_xlabel("V [mm/s]")
    ax.set_ylabel("t50 [s]")
    ax.set_title("Experiment C: pull-up, time for the lowest vertex to rise 50 mm")
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "seed000-C.png"), dpi=110)
    print("\n### Experiment C\n")
    print("| V [mm/s] | " + " | ".join(str(v) for v in V_VALUES) + " |")
    print("|---|" + "---:|" * len(V_VALUES))
    print("| t50 [s] | " + " | ".join("n/a" if t50[v] is None else f"{t50[v]:.2f}" for v in V_VALUES) + " |")


def main():
    os.makedirs(DATA, exist_ok=True)
    quick = "--quick" in sys.argv
    experiment_a()
    if "--only-a" in sys.argv:
        return
    experiment_b(1 if quick else 3)
    experiment_c()


if __name__ == "__main__":
    main()
