#!/usr/bin/env python3
"""Seed 001 Ex. 10: constant Q against Hooke with Rayleigh damping, and what scaling the cube by 2
does to each. The 10 cm cube is sheared by 10 Pa for 4 s and let go; after the release it rings
down. For each run: the period and the logarithmic decrement of the top's free vibration (mean of
successive same-sign peaks), and the held displacement over the cube's size. A constant-Q material
damps every frequency alike, so the large cube (half the frequency) rings down over as many
periods as the small one; mass-proportional damping (alpha) damps low frequencies more.
Usage: docs/validation/seed001/ex10.py [SOFTBODY_SIM]."""
import json
import math
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SIM = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parents[2] / "build/release/engine/cli/softbody-sim")
SCENE = HERE / "ex10-cube.json"


def run(size, sets=()):
    cmd = [SIM, "run", str(SCENE), "--json", "--threads", "1",
           "--set", f"mesh.box.size=[{size},{size},{size}]"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    rows = [json.loads(l) for l in out]
    return [(r["t"], r["probes"]["top"][0]) for r in rows if "probes" in r]


def ring_down(series, release=4.0):
    held = [x for t, x in series if release - 1.0 < t <= release]
    free = [(t, x) for t, x in series if t > release]
    peaks = []
    for i in range(1, len(free) - 1):
        (t0, x0), (t1, x1), (t2, x2) = free[i - 1], free[i], free[i + 1]
        if (x1 > x0 and x1 >= x2) or (x1 < x0 and x1 <= x2):
            peaks.append((t1, x1))
    maxima = [p for p in peaks if p[1] > 0]
    period = (maxima[2][0] - maxima[0][0]) / 2 if len(maxima) >= 3 else float("nan")
    # Decrement from the first three maxima (later ones sink into the creep recovery).
    decrement = (math.log(maxima[0][1] / maxima[2][1]) / 2 if len(maxima) >= 3 and maxima[2][1] > 0
                 else float("nan"))
    return period, decrement, sum(held) / len(held)


rows = []
small_q = ring_down(run(0.1))
rows.append(("constant Q", 0.1, *small_q))
rows.append(("constant Q", 0.2, *ring_down(run(0.2))))
# Hooke matched to the small cube: the shear modulus of the constant-Q law at the ringing frequency
# (|G| scales as f^(2 gamma), gamma = arctan(1/Q)/pi) and alpha giving the same decrement.
period, decrement, _ = small_q
gamma = math.atan(1 / 4.8) / math.pi
mu = 2500 * ((1 / period) / 2) ** (2 * gamma)
zeta = decrement / math.sqrt(4 * math.pi ** 2 + decrement ** 2)
alpha = 2 * (2 * math.pi / period) * zeta
hooke_sets = [f"/material={json.dumps({'model': 'stvk-tl', 'E': 2 * mu * 1.495, 'nu': 0.495, 'density': 1000})}",
              f"damping.alpha={alpha}"]
rows.append((f"Hooke (mu {mu:.0f} Pa, alpha {alpha:.2f}/s)", 0.1, *ring_down(run(0.1, hooke_sets))))
rows.append((f"Hooke (mu {mu:.0f} Pa, alpha {alpha:.2f}/s)", 0.2, *ring_down(run(0.2, hooke_sets))))
(HERE / "ex10.json").write_text(json.dumps(rows, indent=1))
print("| material | cube [m] | period [s] | log decrement per period | held displacement / size |")
print("|---|---|---|---|---|")
for name, size, period, decrement, held in rows:
    print(f"| {name} | {size} | {period:.3f} | {decrement:.3f} | {held / size:.2e} |")
