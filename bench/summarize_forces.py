#!/usr/bin/env python3
"""Turns softbody-bench forces JSON files (1 and 2 threads per mesh) into the Markdown tables of
bench/RESULTS.md. Usage: summarize_forces.py MESH.t1.json MESH.t2.json [...]"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def main(paths):
    runs = [load(p) for p in paths]
    by_mesh = {}
    for r in runs:
        by_mesh.setdefault(r["mesh"], {})[r["threads"]] = r
    for mesh, threads in by_mesh.items():
        one, two = threads.get(1), threads.get(2)
        print(f"### {mesh.split('/')[-1]}: {one['vertices']} vertices, {one['edges']} edges, "
              f"{one['faces']} faces, {one['tets']} tetrahedra, {one['tseps']} TSEPs\n")
        print("| model | volumetric | mode | ns/tet, 1 thread | ns/tet, 2 threads | 2-thread speed-up | paper GFLOP/s (1 thread) |")
        print("|---|---|---|---:|---:|---:|---:|")
        for a, b in zip(one["results"], two["results"] if two else one["results"]):
            flops = f"{a['paper_gflops']:.2f}" if a["paper_gflops"] else "–"
            print(f"| {a['model']} | {a['volumetric']} | {a['mode']} | {a['median_ns_per_tet']:.1f} | "
                  f"{b['median_ns_per_tet']:.1f} | {a['median_ns_per_tet'] / b['median_ns_per_tet']:.2f} | {flops} |")
        print()
        s = one["speedups"]
        print("Ratios (1 thread): " + ", ".join(f"{k} = {v:.2f}" for k, v in s.items()) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
