#!/usr/bin/env python3
"""Seed 001 §5's toy spring: work against precision of every integrator on the closed-form
oscillator (engine/sim/toy_spring.h), one period at 10 ... 640 steps. Runs
`softbody-bench integrators --json`, writes toy-spring.json beside this script and prints a
Markdown table with the observed orders. Usage: docs/validation/seed001/toy_spring.py [SOFTBODY_BENCH]
(then plots.py draws it)."""
import json
import math
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
BENCH = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parents[2] / "build/release/bench/softbody-bench")

out = subprocess.run([BENCH, "integrators", "--json"], capture_output=True, text=True, check=True)
data = json.loads(out.stdout)
(HERE / "toy-spring.json").write_text(json.dumps(data, indent=1) + "\n")

print("| integrator | steps per period: error (relative, phase space) | observed order (last two) |")
print("|---|---|---|")
for name, runs in data["integrators"].items():
    cells = ", ".join(f"{r['steps']}: {r['error_relative']:.2e}" for r in runs)
    order = math.log2(runs[-2]["error_relative"] / runs[-1]["error_relative"])
    print(f"| `{name}` | {cells} | {order:.2f} |")
