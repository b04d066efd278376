#!/usr/bin/env python3
"""Seed 004's plots for docs/validation/seed-004.md: inverted elements after each step of the
random-velocity start (bench/run_random_velocity.sh), with inversion alleviation off and at 30
sweeps, per mesh and law. Needs Debian's python3-matplotlib.
Usage: /usr/bin/python3 docs/validation/seed004/plots.py [bench/results/random-velocity.jsonl]"""
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "bench/results/random-velocity.jsonl"
rows = [json.loads(line) for line in SOURCE.read_text().splitlines() if line.strip()]
meshes = list(dict.fromkeys(r["mesh"] for r in rows))
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
for ax, law in zip(axes, ("snh", "cnh")):
    for k, mesh in enumerate(meshes):
        for r in rows:
            if r["mesh"] != mesh or r["law"] != law:
                continue
            steps = range(1, len(r["inverted_per_step"]) + 1)
            counts = [max(c, 0.5) for c in r["inverted_per_step"]]  # zero drawn at 0.5 (log axis)
            ax.semilogy(steps, counts, color=f"C{k}", ls="-" if r["sweeps"] else ":",
                        label=f"{mesh} ({r['tets']} tets), " +
                              (f"{r['sweeps']} sweeps" if r["sweeps"] else "no alleviation"))
    ax.set_title(f"{law}: inverted elements after each step")
    ax.set_xlabel("step (10 ms)")
    ax.grid(True, which="both", alpha=0.3)
axes[0].set_ylabel("inverted elements (0 drawn at 0.5)")
axes[1].legend(fontsize=7, loc="upper right")
fig.suptitle("Random-velocity start (5 m/s), vbd 10 sweeps: with and without inversion alleviation")
fig.tight_layout()
fig.savefig(HERE.parent / "seed004-random-velocity.png", dpi=110)
print("drew seed004-random-velocity.png")
