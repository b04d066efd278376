"""Runs a scene document through softbody-sim for seed 004's validation scripts (throw.py,
letters.py, wag.py): writes it to a temporary file, applies `--set` overrides, two threads,
`--json`; returns the per-step objects and the summary. Needs
build/release/engine/cli/softbody-sim (scripts/build.sh softbody-sim)."""
import json
import pathlib
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[3]
SIM = ROOT / "build/release/engine/cli/softbody-sim"


def run(doc, *overrides):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
        path = pathlib.Path(f.name)
    args = [str(SIM), "run", str(path), "--json", "--threads", "2"]
    for o in overrides:
        args += ["--set", o]
    try:
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    finally:
        path.unlink()
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    return [line for line in lines if "step" in line], lines[-1]
