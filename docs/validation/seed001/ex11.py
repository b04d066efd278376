#!/usr/bin/env python3
"""Seed 001 Ex. 11: three balls dropped on a table. Soft Hooke (mu = 2 kPa), hard Hooke (mu = 300 kPa)
and a viscoelastic ball G(t) = 2 kPa + 50 kPa e^(-t/1 s) + 300 kPa e^(-t/6 s); nu = 0.25. The
viscoelastic ball should bounce like the hard one (the impact is fast) and sag like the soft one at
rest. The ball (ex11-ball.mesh, 0.2 m across, 437 vertices, 1,656 tetrahedra carved from a 8^3
Kuhn grid) falls from 0.2 m with g = 10 m/s^2 onto a frictionless penalty floor.

Our Prony terms act on the deviatoric strain and the volume keeps the long-term elastic law, so
"nu = 0.25" is read at the instantaneous moduli (lambda = mu_inst = 352 kPa): the viscoelastic
ball's long-term law is mu = 2 kPa, nu = 0.4972. A soft ball with those same long-term moduli is
run beside the thesis's soft ball (nu = 0.25) for the sag.

St.Venant-Kirchhoff (the thesis's "Hooke" at large strain) has no resistance to inversion: the soft
ball (nu = 0.25) collapses on impact with most of its elements inverted and stays so. The same
ball as compressible Neo-Hooke ("soft, Neo-Hooke"; ln J resists inversion) is run beside it (and
so is the ball with the viscoelastic one's long-term moduli), and
each run reports the most elements inverted at once (signed volume <= 0).

Impact: BDF(2) at dt = 2 ms for 1.5 s (lowest point of the mean vertex height and the rebound's
apex; backward Euler's damping would hide the bounce). Sag: backward Euler (implicit-euler) at
10 ms for 20 s (elastic balls) and at 0.1 s for 3,000 s (the viscoelastic ball creeps with a
retardation time of about tau G_0 / G_inf = 6 s x 176). Prints Markdown tables and writes
ex11.json beside this script. Usage: docs/validation/seed001/ex11.py [SOFTBODY_SIM]."""
import json
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SIM = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parents[2] / "build/release/engine/cli/softbody-sim")
NU_VISCO = 0.4972  # lambda = 352 kPa with mu_0 = 2 kPa: nu = 0.25 at the instantaneous moduli
BALLS = {
    "hard": {"model": "stvk-tl", "E": 2 * 3e5 * 1.25, "nu": 0.25, "density": 1000},
    "soft": {"model": "stvk-tl", "E": 2 * 2e3 * 1.25, "nu": 0.25, "density": 1000},
    "soft, Neo-Hooke": {"model": "neo-hookean", "E": 2 * 2e3 * 1.25, "nu": 0.25, "density": 1000},
    "soft, long-term moduli of the viscoelastic ball": {
        "model": "stvk-tl", "E": 2 * 2e3 * (1 + NU_VISCO), "nu": NU_VISCO, "density": 1000},
    "soft, long-term moduli, Neo-Hooke": {
        "model": "neo-hookean", "E": 2 * 2e3 * (1 + NU_VISCO), "nu": NU_VISCO, "density": 1000},
    "viscoelastic": {"model": "stvk-tl", "E": 2 * 2e3 * (1 + NU_VISCO), "nu": NU_VISCO,
                     "density": 1000,
                     "viscoelastic": {"prony": [{"mu": 5e4, "tau": 1.0}, {"mu": 3e5, "tau": 6.0}]}},
}


def scene(material):
    return {"mesh": {"file": str(HERE / "ex11-ball.mesh"), "translate": [0, 0.3, 0]},
            "material": material, "gravity": [0, -10, 0], "dt": 0.01,
            "obstacles": [{"type": "halfspace", "normal": [0, 1, 0], "position": [0, 0, 0],
                           "contact": {"stiffness": 1e5, "damping": 0, "friction": 0}}],
            "probes": [{"name": "all", "box": {"min": [-1, -1, -1], "max": [1, 1, 1]}}]}


def run(material, integrator, dt, duration):
    """(t, mean vertex height change) per step, the number of fallback steps and the most
    elements inverted at once."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scene(material), f)
    cmd = [SIM, "run", f.name, "--json", "--threads", "1", "--duration", str(duration),
           "--set", f"dt={dt}", "--set", f"integrator.type={integrator}"]
    lines = [json.loads(l) for l in subprocess.run(cmd, capture_output=True, text=True,
                                                   check=True).stdout.splitlines()]
    pathlib.Path(f.name).unlink()
    steps = [l for l in lines if "probes" in l and "t" in l]
    return ([(l["t"], l["probes"]["all"][1]) for l in steps],
            sum(1 for l in steps if l.get("newton_fallback")),
            max(l["inverted_elements"] for l in steps))


results = {}
print("| ball | lowest point at impact [mm] | rebound apex [mm] | Newton fallbacks | most inverted |")
print("|---|---|---|---|---|")
for name, material in BALLS.items():
    y, fallbacks, inverted = run(material, "bdf2", 0.002, 1.5)
    low = min(range(len(y)), key=lambda i: y[i][1] if y[i][0] < 0.5 else 1e9)
    apex = max(y[low:low + 400], key=lambda p: p[1])
    results[name] = {"impact_low_mm": 1e3 * y[low][1], "impact_low_t": y[low][0],
                     "rebound_apex_mm": 1e3 * apex[1], "rebound_apex_t": apex[0],
                     "impact_fallbacks": fallbacks, "impact_inverted": inverted}
    print(f"| {name} | {1e3 * y[low][1]:.1f} (t = {y[low][0]:.3f} s) | "
          f"{1e3 * apex[1]:.1f} (t = {apex[0]:.3f} s) | {fallbacks} | {inverted} |")
print("\n(heights: the mean vertex height minus its value at release; contact begins at -200 mm)\n")

print("| ball | sag at rest [mm] (mean height at the end, contact at -200 mm) | after | most inverted |")
print("|---|---|---|---|")
for name, material in BALLS.items():
    long = name == "viscoelastic"
    y, _, inverted = run(material, "implicit-euler", 0.1 if long else 0.01, 3000 if long else 20)
    results[name]["rest_mm"] = 1e3 * y[-1][1]
    results[name]["rest_after_s"] = y[-1][0]
    results[name]["rest_inverted"] = inverted
    if long:
        results[name]["creep"] = [(t, 1e3 * h) for t, h in y[99::100]]
    print(f"| {name} | {1e3 * y[-1][1]:.1f} | {y[-1][0]:.0f} s | {inverted} |")
(HERE / "ex11.json").write_text(json.dumps(results, indent=1) + "\n")
