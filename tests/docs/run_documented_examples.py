#!/usr/bin/env python3
"""Runs the example commands of README.md and docs/*.md as written, so that an example that fails
(a scene that topples, a flag that moved, a command that never ends) is caught here rather than by
a reader. Usage: run_documented_examples.py REPO_DIR PROGRAM [PROGRAM...] (binary paths).

Every fenced block whose info string is `sh` is an example: it runs as one bash script
(`set -euo pipefail`) from REPO_DIR, with the given programs first on PATH and SOFTBODY_SERVER
naming a softbody-server this script started on free loopback ports (no preloaded session), and
must exit 0 within its time limit, without a warning from the tools on stderr
("softbody-client: the tool has touched nothing ..."). A block that names a program that was not
built is skipped.
Synopses (with placeholders such as ID, FILE, [--flag]) go in plain ``` blocks; a plain block
whose every command is concrete is reported, so that runnable examples are not left unrun."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BLOCK_TIMEOUT_S = 180


def example_blocks(path):
    """(first line number, info string, text) of each fenced block of a Markdown file."""
    blocks, current = [], None
    for number, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            if current is None:
                current = (number + 1, stripped[3:].strip(), [])
            else:
                blocks.append((current[0], current[1], "\n".join(current[2])))
                current = None
        elif current is not None:
            current[2].append(line)
    return blocks


def is_placeholder_line(line):
    """True when a command line shows a synopsis rather than a command one can run."""
    return bool(re.search(r"[\[\]|…]|\.\.\.|\b[A-Z][A-Z0-9_]*(:[A-Z0-9_]+)?\b", line))


def start_server(server, repo, work):
    ready = os.path.join(work, "ready.json")
    log = open(os.path.join(work, "server.log"), "w")
    process = subprocess.Popen(
        [server, "--grpc", "127.0.0.1:0", "--http", "127.0.0.1:0", "--preload", "",
         "--scenes", os.path.join(repo, "scenes"), "--ready-file", ready,
         # The examples' sessions accumulate; this is not a test of admission.
         "--max-cpu-load", "0"],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while not os.path.exists(ready):
        if process.poll() is not None or time.time() > deadline:
            raise RuntimeError("softbody-server did not start: " +
                               open(os.path.join(work, "server.log")).read())
        time.sleep(0.05)
    time.sleep(0.05)  # the file is written whole, but give the writer its close
    return process, json.load(open(ready))["grpc_port"]


def main():
    repo = os.path.abspath(sys.argv[1])
    programs = {os.path.basename(p): os.path.abspath(p) for p in sys.argv[2:]}
    work = tempfile.mkdtemp(prefix="softbody-doc-examples-")
    bin_dir = os.path.join(work, "bin")
    os.makedirs(bin_dir)
    for name, path in programs.items():
        os.symlink(path, os.path.join(bin_dir, name))
    known = re.compile(r"(?<![\w/-])(softbody-(?:server|client|load|viewer|sim|bench))\b")

    files = [os.path.join(repo, "README.md")] + sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    examples, problems = [], []
    for path in files:
        where = os.path.relpath(path, repo)
        for line, info, text in example_blocks(path):
            commands = [l for l in text.splitlines() if known.match(l.strip())]
            if info == "sh":
                examples.append((f"{where}:{line}", text))
            elif commands and not info and not any(map(is_placeholder_line, commands)):
                problems.append(f"{where}:{line}: a block of concrete commands that is not run: "
                                "mark it ```sh (or show placeholders)")

    server = None
    if "softbody-server" in programs:
        server, port = start_server(programs["softbody-server"], repo, work)
    env = dict(os.environ)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["TMPDIR"] = work
    env.pop("SOFTBODY_TOKEN", None)
    if server:
        env["SOFTBODY_SERVER"] = f"127.0.0.1:{port}"
    ran = skipped = 0
    try:
        for where, text in examples:
            missing = sorted(set(known.findall(text)) - set(programs))
            if missing or (server is None and re.search(r"softbody-(client|load|viewer)", text)):
                print(f"{where}: skipped (not built: {', '.join(missing) or 'softbody-server'})")
                skipped += 1
                continue
            start = time.time()
            try:
                r = subprocess.run(["bash", "-c", "set -euo pipefail\n" + text], cwd=repo, env=env,
                                   capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S,
                                   stdin=subprocess.DEVNULL)
                code, out, err = r.returncode, r.stdout, r.stderr
            except subprocess.TimeoutExpired as e:
                code, out, err = "timeout", e.stdout or "", e.stderr or ""
                out = out.decode() if isinstance(out, bytes) else out
                err = err.decode() if isinstance(err, bytes) else err
            ran += 1
            seconds = time.time() - start
            # What the tools say on stderr as "softbody-client: ..." is an error or a warning (a
            # tool that touched nothing, a rejected command): an example must not earn one.
            said = [l for l in err.splitlines() if re.match(r"softbody-(client|load|viewer): ", l)]
            if code == 0 and said:
                code = "0 with warnings"
            if code != 0:
                problems.append(f"{where}: exit {code} after {seconds:.1f} s\n--- block ---\n{text}\n"
                                f"--- stdout (end) ---\n{out[-2000:]}\n--- stderr (end) ---\n"
                                f"{err[-3000:]}")
            else:
                print(f"{where}: ok ({seconds:.1f} s)")
    finally:
        if server:
            server.send_signal(signal.SIGTERM)
            try:
                code = server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                code = "killed"
            if code != 0:
                problems.append(f"softbody-server exited {code} on SIGTERM:\n" +
                                open(os.path.join(work, "server.log")).read()[-3000:])
        shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print(p)
    print(f"{ran - sum(1 for p in problems if ': exit ' in p)} of {ran} example blocks ran as "
          f"written ({skipped} skipped)")
    return 1 if problems or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
