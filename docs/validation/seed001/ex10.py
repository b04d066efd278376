#!/usr/bin/env python3
"""Seed 001 Ex. 10: constant Q against Hooke, what scaling the cube by 2 does to each, and the
thesis's runtimes (Table 5.5). The 10 cm cube is sheared by 10 Pa for 4 s and let go.

1. Ring-down (BDF(2), 5 ms, 8 s): for each run the period and the logarithmic decrement of the top's
   free vibration after the release, and the held displacement over the cube's size. A constant-Q
   material damps every frequency alike, so the large cube (half the frequency) rings down over as
   many periods as the small one; mass-proportional damping (alpha) damps low frequencies more.
   Hooke is matched at the small cube's ringing frequency (modulus and decrement).
2. The thesis's second Hooke model, overdamped and fitted to the constant-Q cube's creep between 2 and
   4 s: (mu, alpha) by Nelder-Mead on the squared difference of the top's displacement there.
3. Table 5.5: 60 s simulated with BDF(3) at h = 40 ms as the thesis ran them: wall time (median of
   three runs, one thread, per-step JSON included), Newton iterations, Jacobian updates and
   factorizations, the steps BDF(3)'s stability limit ran at order 2 and the fastest vertex over the
   last 8 s; and what 40 ms does to the ring-down (peaks sampled every 40 ms: coarse).

Writes ex10.json (tables and the displacement series) beside this script and prints Markdown
tables; plots.py draws seed001-ex10.png. Usage: docs/validation/seed001/ex10.py [SOFTBODY_SIM]."""
import json
import math
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SIM = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parents[2] / "build/release/engine/cli/softbody-sim")
SCENE = HERE / "ex10-cube.json"
Q, MU_AT_2HZ, NU = 4.8, 2500.0, 0.495


def run(size, sets=(), duration=None):
    """Per-step rows and the summary of one run of the Ex. 10 scene."""
    cmd = [SIM, "run", str(SCENE), "--json", "--threads", "1",
           "--set", f"mesh.box.size=[{size},{size},{size}]"]
    if duration is not None:
        cmd += ["--duration", str(duration)]
    for s in sets:
        cmd += ["--set", s]
    rows = [json.loads(l) for l in subprocess.run(cmd, capture_output=True, text=True,
                                                   check=True).stdout.splitlines()]
    return [r for r in rows if "probes" in r], rows[-1]


def series(steps):
    return [(r["t"], r["probes"]["top"][0]) for r in steps]


def ring_down(points, release=4.0):
    held = [x for t, x in points if release - 1.0 < t <= release]
    free = [(t, x) for t, x in points if t > release]
    peaks = []
    for i in range(1, len(free) - 1):
        (t0, x0), (t1, x1), (t2, x2) = free[i - 1], free[i], free[i + 1]
        if (x1 > x0 and x1 >= x2) or (x1 < x0 and x1 <= x2):
            peaks.append((t1, x1))
    # Maxima of a free vibration, not the creep recovery's round-off wiggles (an overdamped body
    # has none: then no period or decrement).
    held_mean = sum(held) / len(held)
    maxima = [p for p in peaks if p[1] > 1e-3 * abs(held_mean)]
    period = (maxima[2][0] - maxima[0][0]) / 2 if len(maxima) >= 3 else float("nan")
    # Decrement from the first three maxima (later ones sink into the creep recovery).
    decrement = (math.log(maxima[0][1] / maxima[2][1]) / 2 if len(maxima) >= 3 and maxima[2][1] > 0
                 else float("nan"))
    return period, decrement, held_mean


def compact(points):
    return [[round(t, 4), float(f"{x:.4g}")] for t, x in points]


def cell(value, digits=3):
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def hooke(mu, alpha):
    material = {"model": "stvk-tl", "E": 2 * mu * (1 + NU), "nu": NU, "density": 1000}
    return [f"/material={json.dumps(material)}", f"damping.alpha={alpha}"]


def nelder_mead(f, x0, steps, iterations=40):
    """Minimizes f from x0 (a small Nelder-Mead: Debian's python3 has no scipy by default)."""
    simplex = [list(x0)] + [[x + (s if i == j else 0) for j, x in enumerate(x0)]
                            for i, s in enumerate(steps)]
    values = [f(x) for x in simplex]
    for _ in range(iterations):
        order = sorted(range(len(simplex)), key=lambda i: values[i])
        simplex, values = [simplex[i] for i in order], [values[i] for i in order]
        centroid = [sum(p[j] for p in simplex[:-1]) / (len(simplex) - 1) for j in range(len(x0))]
        def towards(c):
            return [centroid[j] + c * (simplex[-1][j] - centroid[j]) for j in range(len(x0))]
        reflected = towards(-1)
        fr = f(reflected)
        if fr < values[0]:
            expanded = towards(-2)
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = towards(0.5)
            fc = f(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:
                for i in range(1, len(simplex)):
                    simplex[i] = [(simplex[0][j] + simplex[i][j]) / 2 for j in range(len(x0))]
                    values[i] = f(simplex[i])
    best = min(range(len(simplex)), key=lambda i: values[i])
    return simplex[best], values[best]


result = {"ring_down": [], "series": {}}

# 1. Ring-down at 5 ms.
small_q_points = series(run(0.1)[0])
large_q_points = series(run(0.2)[0])
small_q = ring_down(small_q_points)
# Hooke matched to the small cube: the shear modulus of the constant-Q law at the ringing frequency
# (|G| scales as f^(2 gamma), gamma = arctan(1/Q)/pi) and alpha giving the same decrement.
period, decrement, _ = small_q
gamma = math.atan(1 / Q) / math.pi
mu_matched = MU_AT_2HZ * ((1 / period) / 2) ** (2 * gamma)
zeta = decrement / math.sqrt(4 * math.pi ** 2 + decrement ** 2)
alpha_matched = 2 * (2 * math.pi / period) * zeta
matched = hooke(mu_matched, alpha_matched)
matched_name = f"Hooke (mu {mu_matched:.0f} Pa, alpha {alpha_matched:.2f}/s)"
runs = [("constant Q", 0.1, small_q_points), ("constant Q", 0.2, large_q_points),
        (matched_name, 0.1, series(run(0.1, matched)[0])),
        (matched_name, 0.2, series(run(0.2, matched)[0]))]

# 2. Overdamped Hooke fitted to the constant-Q creep between 2 and 4 s (small cube).
creep_q = {round(t, 6): x for t, x in small_q_points if 2.0 <= t <= 4.0}
evaluations = []


def creep_misfit(log_params):
    mu, alpha = math.exp(log_params[0]), math.exp(log_params[1])
    points = series(run(0.1, hooke(mu, alpha), duration=4.0)[0])
    misfit = math.sqrt(sum((x - creep_q[round(t, 6)]) ** 2 for t, x in points
                           if round(t, 6) in creep_q) / len(creep_q))
    evaluations.append((mu, alpha, misfit))
    print(f"  creep fit: mu {mu:.1f} Pa, alpha {alpha:.2f}/s: rms {misfit:.3e} m", file=sys.stderr)
    return misfit


# Start: the long-term modulus of the fit (creep ends there) and a strongly overdamped alpha.
best, misfit = nelder_mead(creep_misfit, [math.log(1700.0), math.log(200.0)], [0.3, 0.7])
mu_creep, alpha_creep = math.exp(best[0]), math.exp(best[1])
creep_scale = max(abs(x) for x in creep_q.values())
creep_name = f"Hooke overdamped (mu {mu_creep:.0f} Pa, alpha {alpha_creep:.1f}/s)"
overdamped = hooke(mu_creep, alpha_creep)
runs += [(creep_name, 0.1, series(run(0.1, overdamped)[0])),
         (creep_name, 0.2, series(run(0.2, overdamped)[0]))]
result["creep_fit"] = {"mu": mu_creep, "alpha": alpha_creep, "rms_m": misfit,
                       "rms_over_peak": misfit / creep_scale, "evaluations": len(evaluations)}
for name, size, points in runs:
    result["ring_down"].append([name, size, *ring_down(points)])
    result["series"][f"{name}, {size} m"] = compact(points[3::4])  # every 20 ms

print("| material | cube [m] | period [s] | log decrement per period | held displacement / size |")
print("|---|---|---|---|---|")
for name, size, period, decrement, held in result["ring_down"]:
    print(f"| {name} | {size} | {cell(period)} | {cell(decrement)} | {held / size:.2e} |")
print(f"\nCreep fit (2-4 s, small cube): rms {misfit:.2e} m = {100 * misfit / creep_scale:.1f} % of the "
      f"largest creep displacement, {len(evaluations)} runs\n")

# 3. Table 5.5: 60 s simulated, BDF(3) at 40 ms.
bdf3 = ["integrator.type=bdf3", "dt=0.04"]
table = []
for name, size, sets in [("Hooke (matched)", 0.1, matched), ("constant Q", 0.1, []),
                         ("Hooke (same)", 0.2, matched), ("Hooke (overdamped)", 0.1, overdamped),
                         ("constant Q", 0.2, [])]:
    walls = []
    for _ in range(3):
        steps, summary = run(size, list(sets) + bdf3, duration=60)
        walls.append(summary["wall_s"])
    period, decrement, held = ring_down(series(steps))
    table.append({"material": name, "cube": size, "wall_s": statistics.median(walls),
                  "wall_s_range": [min(walls), max(walls)], "steps": summary["steps"],
                  "newton_iterations": sum(r["newton_iterations"] for r in steps),
                  "jacobian_updates": sum(r["jacobian_updates"] for r in steps),
                  "factorizations": sum(r["factorizations"] for r in steps),
                  "fallbacks": sum(1 for r in steps if r["newton_fallback"]),
                  # Beyond the start-up's second step: BDF(3)'s stability limit at work.
                  "order_2_steps": sum(1 for r in steps if r.get("bdf_order") == 2) - 1,
                  "late_max_speed": max(r["max_speed"] for r in steps if r["t"] > 52),
                  "period": period, "decrement": decrement, "held_over_size": held / size})
    result["series"][f"{name}, {size} m, BDF(3) 40 ms"] = compact(series(steps))
result["table_5_5"] = table
print("| material | cube [m] | wall [s] for 60 s (range) | Newton iterations | Jacobian updates "
      "| factorizations | fallbacks | steps at order 2 | fastest vertex 52-60 s [m/s] | period [s] "
      "| log decrement |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for r in table:
    print(f"| {r['material']} | {r['cube']} | {r['wall_s']:.2f} ({r['wall_s_range'][0]:.2f}-"
          f"{r['wall_s_range'][1]:.2f}) | {r['newton_iterations']} | {r['jacobian_updates']} | "
          f"{r['factorizations']} | {r['fallbacks']} | {r['order_2_steps']} | "
          f"{r['late_max_speed']:.1e} | {cell(r['period'])} | {cell(r['decrement'])} |")
(HERE / "ex10.json").write_text(json.dumps(result, separators=(",", ":")) + "\n")
