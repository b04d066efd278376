#!/usr/bin/python3
"""Draws seed 001's validation plots from the JSON the reproduction scripts wrote beside this file
(toy-spring.json, ex1.json, ex4.json, ex10.json, creep.json, ex11.json) into docs/validation/seed001-*.png. Needs Debian's
python3-matplotlib (apt-get install python3-matplotlib). Usage: /usr/bin/python3
docs/validation/seed001/plots.py"""
import json
import math
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent
INTEGRATORS = ["linearized-backward-euler", "implicit-euler", "bdf2", "bdf3"]
STYLE = {"linearized-backward-euler": ("C0", "s", "--"), "implicit-euler": ("C1", "o", "-"),
         "bdf2": ("C2", "^", "-"), "bdf3": ("C3", "D", "-")}


def load(name):
    return json.loads((HERE / name).read_text())


def toy_spring():
    data = load("toy-spring.json")
    fig, (work, time) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name in INTEGRATORS:
        runs = data["integrators"][name]
        color, marker, line = STYLE[name]
        errors = [r["error_relative"] for r in runs]
        work.loglog([r["steps"] for r in runs], errors, color=color, marker=marker, ls=line,
                    label=name)
        time.loglog([r["wall_ms_median"] for r in runs], errors, color=color, marker=marker,
                    ls=line, label=name)
    for order, anchor in ((1, 0.3), (2, 0.05), (3, 0.006)):
        xs = [40, 640]
        work.loglog(xs, [anchor * (40 / x) ** order for x in xs], color="0.6", lw=0.8)
        work.annotate(f"order {order}", (640, anchor * (40 / 640) ** order), fontsize=8,
                      color="0.4")
    work.set_xlabel("steps per period (work: one Newton iteration or solve each)")
    time.set_xlabel("wall time of one period [ms] (8 vertices: overhead-bound)")
    for ax in (work, time):
        ax.set_ylabel("phase-space error / amplitude after one period")
        ax.grid(True, which="both", alpha=0.3)
    work.legend(fontsize=8)
    fig.suptitle("Toy spring (closed-form oscillator, 2 Hz): work against precision")
    fig.tight_layout()
    fig.savefig(OUT / "seed001-toy-spring.png", dpi=110)


def ex1():
    data = load("ex1.json")
    ref = data["reference"]["tip"]
    scale = math.sqrt(sum(x * x for x in ref))
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for name in INTEGRATORS:
        runs = [r for r in data["runs"] if r["integrator"] == name]
        color, marker, line = STYLE[name]
        err = [math.dist(r["tip"], ref) / scale for r in runs]
        ax.loglog([r["dt"] for r in runs], err, color=color, marker=marker, ls=line, label=name)
    ax.set_xlabel("step size dt [s]")
    ax.set_ylabel("tip error at t = 0.5 s / |tip| (reference: BDF(2), dt = 0.5/1280)")
    ax.set_title("Ex. 1: the falling clamped bar")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(OUT / "seed001-ex1.png", dpi=110)


def ex4():
    data = load("ex4.json")
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for (model, pressure), color in ((("stvk-tl", "element"), "C0"), (("stvk-tl", "nodal"), "C1"),
                                     (("corotational", "element"), "C2"),
                                     (("corotational", "nodal"), "C3")):
        rows = sorted((r for r in data["refinement"]
                       if r["model"] == model and r["pressure"] == pressure),
                      key=lambda r: r["tetrahedra"])
        if rows:
            ax.semilogx([r["tetrahedra"] for r in rows], [r["drop_mm"] for r in rows],
                        color=color, marker="o", label=f"{model}, {pressure} pressure")
    ax.axhline(133.86, color="k", ls="--", lw=1, label="ABAQUS 133.86 mm")
    ax.axhline(128.8, color="0.5", ls=":", lw=1, label="thesis 128.8 mm")
    ax.set_xlabel("tetrahedra")
    ax.set_ylabel("drop of the free end's upper corner [mm]")
    ax.set_title("Ex. 4: the cantilever at static equilibrium under refinement")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(OUT / "seed001-ex4.png", dpi=110)


def creep():
    data = load("creep.json")
    rows = data["rows"]
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.semilogx([r["t"] for r in rows], [1e6 * r["strain"] for r in rows], "o", color="C1",
                label="simulated (3 Prony terms, BDF(3))")
    ax.semilogx([r["t"] for r in rows], [1e6 * r["analytic"] for r in rows], "-", color="k",
                label="Kjartansson's constant-Q creep")
    ax.set_xlabel("time under load [s]")
    ax.set_ylabel("strain [µε]")
    ax.set_title("Constant-Q creep probe (Q = 4.8)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(OUT / "seed001-creep.png", dpi=110)


def ex11():
    data = load("ex11.json")
    visco = data["viscoelastic"]
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.plot([t for t, _ in visco["creep"]], [h for _, h in visco["creep"]], color="C3",
            label="viscoelastic ball (creeps)")
    for name, color in (("hard", "C0"), ("soft, long-term moduli of the viscoelastic ball", "C1"),
                        ("soft", "C2"), ("soft, Neo-Hooke", "C4")):
        label = f"{name} at rest"
        if data[name].get("rest_inverted"):
            label += f" ({data[name]['rest_inverted']} elements inverted: collapsed)"
        ax.axhline(data[name]["rest_mm"], color=color, ls="--", lw=1, label=label)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("mean vertex height change [mm] (contact at -200)")
    ax.set_title("Ex. 11: the viscoelastic ball sags like the soft one, slowly")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(OUT / "seed001-ex11.png", dpi=110)


def ex10():
    series = load("ex10.json")["series"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, size in zip(axes, ("0.1", "0.2")):
        for name, points in series.items():
            if not name.endswith(f", {size} m"):
                continue
            color = "C3" if name.startswith("constant Q") else ("C2" if "overdamped" in name else "C0")
            ax.plot([t for t, _ in points], [1000 * x / float(size) for _, x in points], color=color,
                    lw=1.2, label=name.rsplit(",", 1)[0])
        bdf3 = series.get(f"constant Q, {size} m, BDF(3) 40 ms")
        if bdf3:
            ax.plot([t for t, _ in bdf3 if t <= 8], [1000 * x / float(size) for t, x in bdf3 if t <= 8],
                    color="C3", lw=0.8, ls=":", label="constant Q, BDF(3) at 40 ms")
        ax.axvline(4, color="k", lw=0.5)
        ax.set_xlabel("time [s] (10 Pa shear until 4 s)")
        ax.set_title(f"{size} m cube")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("top displacement / size [‰]")
    axes[0].legend(fontsize=7)
    fig.suptitle("Ex. 10: constant Q against Hooke, and the cube scaled ×2 (BDF(2), 5 ms)")
    fig.tight_layout()
    fig.savefig(OUT / "seed001-ex10.png", dpi=110)


for draw in (toy_spring, ex1, ex4, ex10, creep, ex11):
    draw()
    print("drew", draw.__name__)
