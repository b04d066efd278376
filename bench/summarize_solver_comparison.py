#!/usr/bin/env python3
"""Prints the solver comparison (bench/run_solver_comparison.sh) as a Markdown table: per case and
integrator, the median and p99 step time on one thread, the mean and largest distance to converged
implicit Euler over the bounding-box diagonal, rollbacks, and the energy the fixed-iteration
solvers' energy guard took out over the run ("-" for rows recorded before the summary had it).
Usage: bench/summarize_solver_comparison.py build/bench-results/solver-comparison.jsonl"""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print("| case | integrator | median / p99 step [ms] | distance to implicit Euler: mean / max "
      "[% of diagonal] | rollbacks | energy guard [J] |")
print("|---|---|---|---|---|---|")
for r in rows:
    guard = f"{r['energy_removed']:.3g}" if "energy_removed" in r else "-"
    print(f"| {r['case']} ({r['tets']} tets) | {r['label']} | {r['median_step_ms']:.2f} / "
          f"{r['p99_step_ms']:.2f} | {100 * r['mean_distance_to_exact']:.3g} / "
          f"{100 * r['max_distance_to_exact']:.3g} | {r['rollbacks']} | {guard} |")
