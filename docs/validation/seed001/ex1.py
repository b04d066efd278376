#!/usr/bin/env python3
"""Seed 001 Ex. 1: the clamped bar falling under gravity, its tip at t = 0.5 s against the step
size for every integrator, with Newton iterations per step (the thesis's Table 5.2 reports those).
The reference is BDF(2) at dt = 0.5/1280 s with Newton to 1e-10 (BDF(3), only A(86°)-stable,
scatters on this bar; see the table). Prints a Markdown table and writes
ex1.json beside this script. Usage: docs/validation/seed001/ex1.py [SOFTBODY_SIM]."""
import json
import math
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SIM = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parents[2] / "build/release/engine/cli/softbody-sim")
SCENE = HERE / "ex1-bar.json"
INTEGRATORS = ["linearized-backward-euler", "implicit-euler", "bdf2", "bdf3"]
STEPS = [10, 20, 40, 80, 160]


def run(integrator, steps, tolerance=1e-8):
    dt = 0.5 / steps
    cmd = [SIM, "run", str(SCENE), "--json", "--threads", "1", "--steps", str(steps),
           "--set", f"dt={dt}", "--set", f"integrator.type={integrator}",
           "--set", f"integrator.newton.tolerance={tolerance}"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    lines = [json.loads(l) for l in out]
    summary = lines[-1]
    step_lines = [l for l in lines if "step" in l and "summary" not in l]
    newton = [l["newton_iterations"] for l in step_lines]
    return {"integrator": integrator, "dt": dt, "steps": steps,
            "tip": summary["final_probes"]["tip"],
            "newton_per_step": sum(newton) / len(newton),
            "newton_fallbacks": sum(1 for l in step_lines if l.get("newton_fallback")),
            "wall_s": summary["wall_s"]}


reference = run("bdf2", 1280, tolerance=1e-10)
ref = reference["tip"]
scale = math.sqrt(sum(x * x for x in ref))
rows = []
for integrator in INTEGRATORS:
    for steps in STEPS:
        r = run(integrator, steps)
        r["error"] = math.sqrt(sum((a - b) ** 2 for a, b in zip(r["tip"], ref))) / scale
        rows.append(r)
        print(f"  {integrator} dt={r['dt']:.5f}: error {r['error']:.3e}, "
              f"Newton {r['newton_per_step']:.2f}/step", file=sys.stderr)
(HERE / "ex1.json").write_text(json.dumps({"reference": reference, "runs": rows}, indent=1))

print(f"Reference tip displacement at t = 0.5 s: {[round(1e3 * x, 3) for x in ref]} mm\n")
print("| integrator | dt [ms] | tip error / tip displacement | observed order | Newton iterations / step | fallbacks |")
print("|---|---|---|---|---|---|")
for integrator in INTEGRATORS:
    prev = None
    for r in (r for r in rows if r["integrator"] == integrator):
        order = "" if prev is None else f"{math.log(prev / r['error'], 2):.2f}"
        newton = "—" if integrator == "linearized-backward-euler" else f"{r['newton_per_step']:.2f}"
        print(f"| {integrator} | {1e3 * r['dt']:.2f} | {r['error']:.2e} | {order} | {newton} | "
              f"{r['newton_fallbacks']} |")
        prev = r["error"]
