#!/usr/bin/python3
"""Draws the solver comparison (bench/run_solver_comparison.sh) as a work-precision plot: per case,
the mean distance to converged implicit Euler (% of the bounding-box diagonal) against the median
wall time per step on one thread, one line per integrator family through its iteration counts.
Down and to the left is better. Needs Debian's python3-matplotlib. Usage:
/usr/bin/python3 bench/plot_solver_comparison.py bench/results/solver-comparison.jsonl OUT.png"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
cases = list(dict.fromkeys(r["case"] for r in rows))
FAMILIES = [  # label prefix, legend, style
    ("linearized-backward-euler", "linearized BE", ("C0", "s")),
    ("implicit-euler", "implicit Euler (Newton)", ("C1", "o")),
    ("bdf2", "BDF(2)", ("C2", "^")),
    ("bdf3", "BDF(3)", ("C3", "v")),
    ("quasi-newton", "quasi-Newton", ("C4", "D")),
    ("projective", "projective", ("C5", "P")),
    ("vbd", "VBD", ("C6", "X")),
    ("xpbd", "XPBD (substeps x iterations)", ("C7", "*")),
]


def family(label):
    for prefix, legend, style in FAMILIES:
        if label.startswith(prefix) and "chebyshev" not in label:
            return prefix, legend, style
    return None


FLOOR = 1e-5  # [% of diagonal]
columns = 2
grid_rows = (len(cases) + columns - 1) // columns
fig, grid = plt.subplots(grid_rows, columns, figsize=(11, 4.6 * grid_rows), sharey=True, squeeze=False)
axes = grid.flatten()
for ax in axes[len(cases):]:
    ax.set_visible(False)
for ax, case in zip(axes, cases):
    for prefix, legend, (color, marker) in FAMILIES:
        points = sorted((r["median_step_ms"], 100 * r["mean_distance_to_exact"]) for r in rows
                        if r["case"] == case and family(r["label"]) and family(r["label"])[0] == prefix)
        if not points:
            continue
        # Implicit Euler is the reference itself (1e-6 % and below): drawn at the plot's floor
        # (the standing bunny's fast solvers come within 1e-4 % of it).
        ys = [max(y, FLOOR) for _, y in points]
        ax.plot([x for x, _ in points], ys, marker=marker, color=color, label=legend,
                linestyle="-" if len(points) > 1 else "none")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(f"{case} ({rows[[r['case'] for r in rows].index(case)]['tets']} tets)")
    ax.set_xlabel("median step [ms], one thread")
    ax.grid(True, which="both", alpha=0.3)
for row in grid:
    row[0].set_ylabel(f"mean distance to implicit Euler\n[% of diagonal] (floor {FLOOR:g}: the reference)")
axes[0].legend(fontsize=8, loc="lower right")
fig.suptitle("Work against precision: every integrator at several iteration counts")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
