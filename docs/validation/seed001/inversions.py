#!/usr/bin/env python3
"""Seed 001's validation scenes, inverted elements (issue 21: "no element inverted in any
validation scene"). Runs each scene as its validation script does (a representative run per scene
and integrator: the coarsest and finest step of Ex. 1, Ex. 10's 60 s BDF(3) runs at 40 ms and its
ring-down, the creep bar, the shipped liver-creep scene) and counts, over every
step, the largest number of elements with signed volume <= 0 (`inverted_elements`, which
softbody-sim reports for every integrator), the Newton fallbacks and the fastest vertex. Ex. 4's
cantilever counts its own (ex4.py: none with the shipped parameters, 133 with the printed ones),
and so do Ex. 11's balls (ex11.py: St.Venant-Kirchhoff's soft ball collapses inverted; as
Neo-Hooke it does not).

Writes inversions.json beside this script and prints a Markdown table.
Usage: docs/validation/seed001/inversions.py [SOFTBODY_SIM]."""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SIM = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/release/engine/cli/softbody-sim")
EX10_NU = 0.495
CREEP_FIT = json.loads((HERE / "ex10.json").read_text())["creep_fit"]


def hooke(mu, alpha):
    material = {"model": "stvk-tl", "E": 2 * mu * (1 + EX10_NU), "nu": EX10_NU, "density": 1000}
    return [f"/material={json.dumps(material)}", f"damping.alpha={alpha}"]


# (scene, label, options): each one softbody-sim run.
RUNS = []
for integrator in ("linearized-backward-euler", "implicit-euler", "bdf2", "bdf3"):
    for steps in (20, 160):
        RUNS.append(("Ex. 1 bar", f"{integrator}, dt {500 / steps:g} ms", HERE / "ex1-bar.json",
                     ["--steps", str(steps), "--set", f"dt={0.5 / steps}",
                      "--set", f"integrator.type={integrator}"]))
for size in (0.1, 0.2):
    box = ["--set", f"mesh.box.size=[{size},{size},{size}]"]
    bdf3 = ["--duration", "60", "--set", "integrator.type=bdf3", "--set", "dt=0.04"]
    RUNS.append(("Ex. 10 cube", f"{size * 100:g} cm, constant Q, ring-down (BDF(2), 5 ms, 8 s)",
                 HERE / "ex10-cube.json", box))
    RUNS.append(("Ex. 10 cube", f"{size * 100:g} cm, constant Q, BDF(3) 40 ms, 60 s",
                 HERE / "ex10-cube.json", box + bdf3))
    overdamped = sum((["--set", s] for s in hooke(CREEP_FIT["mu"], CREEP_FIT["alpha"])), [])
    RUNS.append(("Ex. 10 cube", f"{size * 100:g} cm, overdamped Hooke, BDF(3) 40 ms, 60 s",
                 HERE / "ex10-cube.json", box + bdf3 + overdamped))
RUNS.append(("creep bar", "as creep.py", HERE / "creep-bar.json", []))
RUNS.append(("liver-creep (shipped)", "as shipped, 60 s", ROOT / "scenes/liver-creep.json",
             ["--duration", "60"]))


def run(scene, options):
    out = subprocess.run([SIM, "run", str(scene), "--json", "--threads", "1", *options],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    rows = [json.loads(line) for line in out]
    steps = [r for r in rows if "step" in r and "summary" not in r]
    return {"steps": len(steps), "tets": rows[-1]["tets"],
            "max_inverted": max(r["inverted_elements"] for r in steps),
            "steps_with_inversion": sum(1 for r in steps if r["inverted_elements"] > 0),
            "fallbacks": sum(1 for r in steps if r.get("newton_fallback")),
            "rollbacks": rows[-1]["rollbacks"], "max_speed": rows[-1]["max_speed"]}


results = []
for scene_name, label, scene, options in RUNS:
    r = run(scene, options)
    r.update({"scene": scene_name, "run": label})
    results.append(r)
    print(f"  {scene_name}, {label}: {r['max_inverted']} inverted", file=sys.stderr)
(HERE / "inversions.json").write_text(json.dumps(results, indent=1))

print("| scene | run | tetrahedra | steps | most inverted at once | steps with any | Newton fallbacks | rollbacks | fastest vertex m/s |")
print("|---|---|---|---|---|---|---|---|---|")
for r in results:
    print(f"| {r['scene']} | {r['run']} | {r['tets']} | {r['steps']} | {r['max_inverted']} | "
          f"{r['steps_with_inversion']} | {r['fallbacks']} | {r['rollbacks']} | "
          f"{r['max_speed']:.3g} |")
