#!/usr/bin/env python3
"""Writes meshes/tube.node and meshes/tube.ele (TetGen format): a hollow cylinder along x, for the
shipped `clamp` scene (a vessel segment squeezed shut, its lumen closing by self contact).

A structured grid in (radius, angle, x): each cell a hexahedron split into six tetrahedra around
its main diagonal (the Kuhn split: neighbours, the angular wrap included, share the same face
diagonals, so the mesh is conforming). Every tetrahedron is turned to positive volume.

    scripts/make-tube-mesh.py [--outer 0.01] [--wall 0.003] [--length 0.05]
                              [--radial 1] [--around 16] [--along 10] [--out meshes/tube]
"""
import argparse
import math


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--outer", type=float, default=0.01, help="outer radius [m]")
    ap.add_argument("--wall", type=float, default=0.003, help="wall thickness [m]")
    ap.add_argument("--length", type=float, default=0.05, help="length along x [m]")
    ap.add_argument("--radial", type=int, default=1, help="cells through the wall")
    ap.add_argument("--around", type=int, default=16, help="cells around")
    ap.add_argument("--along", type=int, default=10, help="cells along x")
    ap.add_argument("--out", default="meshes/tube", help="path without extension")
    a = ap.parse_args()
    if not (0 < a.wall < a.outer and a.length > 0 and min(a.radial, a.along) >= 1 and a.around >= 3):
        ap.error("needs 0 < wall < outer, length > 0, radial and along >= 1, around >= 3")

    inner = a.outer - a.wall
    nr, nt, nx = a.radial + 1, a.around, a.along + 1  # vertex counts (the angle wraps)

    def index(i, j, k):  # radius i, angle j (wrapped), x k
        return (k * nt + j % nt) * nr + i

    points = []
    for k in range(nx):
        for j in range(nt):
            for i in range(nr):
                r = inner + a.wall * i / a.radial
                t = 2 * math.pi * j / nt
                points.append((-a.length / 2 + a.length * k / a.along, r * math.sin(t), r * math.cos(t)))

    def volume(t):
        p = [points[v] for v in t]
        u = [[p[n][d] - p[0][d] for d in range(3)] for n in (1, 2, 3)]
        return (u[0][0] * (u[1][1] * u[2][2] - u[1][2] * u[2][1])
                - u[0][1] * (u[1][0] * u[2][2] - u[1][2] * u[2][0])
                + u[0][2] * (u[1][0] * u[2][1] - u[1][1] * u[2][0]))

    # Kuhn's six paths from corner (0,0,0) to (1,1,1), one axis at a time.
    paths = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    tets = []
    for k in range(nx - 1):
        for j in range(nt):
            for i in range(nr - 1):
                for path in paths:
                    corner = [i, j, k]
                    t = [index(*corner)]
                    for axis in path:
                        corner[axis] += 1
                        t.append(index(*corner))
                    if volume(t) < 0:
                        t[2], t[3] = t[3], t[2]
                    tets.append(t)

    with open(a.out + ".node", "w") as f:
        f.write(f"{len(points)}  3  0  0\n")
        for n, p in enumerate(points):
            f.write(f"{n:6d}  {p[0]:.17g}  {p[1]:.17g}  {p[2]:.17g}\n")
    with open(a.out + ".ele", "w") as f:
        f.write(f"{len(tets)}  4  0\n")
        for n, t in enumerate(tets):
            f.write(f"{n:6d}  {t[0]:6d}  {t[1]:6d}  {t[2]:6d}  {t[3]:6d}\n")
    print(f"{a.out}.node/.ele: {len(points)} vertices, {len(tets)} tetrahedra")


if __name__ == "__main__":
    main()
