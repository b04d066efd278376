#!/usr/bin/env python3
"""Seed 001 §2.7: a constant-Q creep probe against the analytic response. A nearly massless bar of
the thesis's liver (Q = 4.8, |G| = 2.5 kPa at 2 Hz, fitted by three Prony terms; the elastic law's
nu = 0) is pulled by a 1 Pa dead traction from t = 0. Its strain between two cross-sections is
compared with linear viscoelasticity's uniaxial creep, eps(t) = sigma / (9 K) + sigma J(t) / 3,
where J(t) = (omega_f t)^(2 gamma) / (|G_f| Gamma(1 + 2 gamma)) is Kjartansson's creep compliance of
the constant-Q modulus G(omega) = |G_f| (omega / omega_f)^(2 gamma) e^(i pi gamma), gamma =
arctan(1/Q) / pi, and K = 2 mu_0 / 3 is the elastic law's bulk modulus (nu = 0; the Prony terms act
on the deviatoric strain only). mu_0, the fit's long-term modulus, comes from the static solution
(its strain is sigma / (2 mu_0)). Usage: docs/validation/seed001/creep.py [SOFTBODY_SIM]."""
import json
import math
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SIM = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parents[2] / "build/release/engine/cli/softbody-sim")
SCENE = HERE / "creep-bar.json"
Q, G_F, F, SIGMA, GAUGE = 4.8, 2500.0, 2.0, 1.0, 0.2


def strain(probes):
    return (probes["b"][0] - probes["a"][0]) / GAUGE


statics = json.loads(subprocess.run([SIM, "static", str(SCENE), "--json", "--threads", "1"],
                                    capture_output=True, text=True, check=True).stdout)
long_term = strain(statics["probes"])  # sigma / (2 mu_0)
mu0 = SIGMA / (2 * long_term)
gamma = math.atan(1 / Q) / math.pi
omega = 2 * math.pi * F


def analytic(t):
    compliance = (omega * t) ** (2 * gamma) / (G_F * math.gamma(1 + 2 * gamma))
    return SIGMA / (9 * (2 * mu0 / 3)) + SIGMA * compliance / 3


out = subprocess.run([SIM, "run", str(SCENE), "--json", "--threads", "1"],
                     capture_output=True, text=True, check=True).stdout.splitlines()
rows = [json.loads(l) for l in out if '"probes"' in l and '"summary"' not in l]
times = [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
table = []
for r in rows:
    if any(abs(r["t"] - t) < 1e-9 for t in times):
        simulated, expected = strain(r["probes"]), analytic(r["t"])
        table.append({"t": round(r["t"], 6), "strain": simulated, "analytic": expected,
                      "relative_error": simulated / expected - 1})
report = {"mu0": mu0, "gamma": gamma, "long_term_strain": long_term, "rows": table,
          "max_relative_error_from_5ms": max(abs(x["relative_error"]) for x in table if x["t"] >= 0.005)}
print(json.dumps(report, indent=1))
print("| t [s] | strain (simulated) | analytic | error |", file=sys.stderr)
print("|---:|---:|---:|---:|", file=sys.stderr)
for x in table:
    print(f"| {x['t']:g} | {x['strain']:.4e} | {x['analytic']:.4e} | {100 * x['relative_error']:+.1f} % |",
          file=sys.stderr)
