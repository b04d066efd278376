#!/usr/bin/python3
"""Renders deploy/ with `kubectl kustomize` and checks the output at the schema level and against
the real server: every object has what its kind requires, selectors match pod labels, probes name
declared ports, and the server started with the rendered arguments accepts them and answers every
probed path (no cluster can run here; this is as far as the manifests can be tested).

Usage: check_manifests.py SOFTBODY_SERVER SCENES_DIR.  Exit 77 (CTest: skipped) without kubectl.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VARIANTS = ["deploy/base", "deploy/overlays/cpu", "deploy/overlays/gpu", "deploy/agones"]
failures = []


def fail(where, problem):
    failures.append(f"{where}: {problem}")


def render(path):
    out = subprocess.run(["kubectl", "kustomize", os.path.join(ROOT, path)], capture_output=True,
                         text=True)
    if out.returncode != 0:
        fail(path, "kubectl kustomize failed: " + out.stderr.strip())
        return []
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def pod_spec(obj):
    if obj["kind"] == "StatefulSet":
        return obj["spec"]["template"]["spec"], obj["spec"]["template"]["metadata"]["labels"]
    if obj["kind"] == "Fleet":
        t = obj["spec"]["template"]["spec"]["template"]
        return t["spec"], (t.get("metadata") or {}).get("labels", {})
    return None, None


def check_container(where, c, declared_ports):
    for key in ("name", "image"):
        if not c.get(key):
            fail(where, f"container without {key}")
    if not c.get("resources", {}).get("requests"):
        fail(where, f"container {c.get('name')} has no resource requests")
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        p = c.get(probe)
        if not p:
            continue
        port = p["httpGet"]["port"]
        if isinstance(port, str) and port not in declared_ports:
            fail(where, f"{probe} names port '{port}', not declared by the container")
        if isinstance(port, int) and declared_ports and port not in declared_ports.values():
            fail(where, f"{probe} port {port} is not a container port")


def check_variant(path, docs):
    kinds = {d["kind"] for d in docs}
    for d in docs:
        if not d.get("apiVersion") or not d.get("metadata", {}).get("name"):
            fail(path, f"{d.get('kind')} without apiVersion or metadata.name")
    servers = []
    for d in docs:
        spec, labels = pod_spec(d)
        if spec is None:
            continue
        where = f"{path} {d['kind']}/{d['metadata']['name']}"
        sc = spec.get("securityContext", {})
        if sc.get("runAsUser") != 10001 or not sc.get("runAsNonRoot"):
            fail(where, "pods must run as the image's non-root user 10001")
        volumes = {v["name"] for v in spec.get("volumes", [])}
        for c in spec["containers"]:
            ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
            check_container(where, c, ports)
            for m in c.get("volumeMounts", []):
                if m["name"] not in volumes:
                    fail(where, f"mount of undeclared volume {m['name']}")
            if c["name"] == "softbody-server":
                servers.append((where, c))
        if d["kind"] == "StatefulSet":
            sel = d["spec"]["selector"]["matchLabels"]
            if any(labels.get(k) != v for k, v in sel.items()):
                fail(where, "selector does not match the pod labels")
            headless = [s for s in docs if s["kind"] == "Service"
                        and s["metadata"]["name"] == d["spec"]["serviceName"]]
            if not headless or headless[0]["spec"].get("clusterIP") != "None":
                fail(where, f"serviceName {d['spec']['serviceName']} is not a headless Service")
            for s in docs:
                if s["kind"] in ("Service", "PodDisruptionBudget"):
                    ssel = s["spec"].get("selector", {})
                    ssel = ssel.get("matchLabels", ssel)
                    if not ssel or any(labels.get(k) != v for k, v in ssel.items()):
                        fail(f"{path} {s['kind']}/{s['metadata']['name']}",
                             "selector does not select the session hosts")
                if s["kind"] == "Service":
                    for p in s["spec"]["ports"]:
                        target = p.get("targetPort")
                        names = {p["name"] for c in spec["containers"] for p in c.get("ports", [])}
                        if isinstance(target, str) and target not in names:
                            fail(f"{path} Service/{s['metadata']['name']}",
                                 f"targetPort {target} is not a container port")
    if path != "deploy/agones":
        for k in ("StatefulSet", "Service", "PodDisruptionBudget", "PersistentVolumeClaim"):
            if k not in kinds:
                fail(path, f"no {k}")
    else:
        if "Fleet" not in kinds:
            fail(path, "no Fleet")
    return servers


def http_status(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def check_against_server(binary, scenes, where, container):
    """Starts the real server with the rendered arguments (addresses on loopback, the store in a
    temporary folder) and asks every probed path."""
    tmp = tempfile.mkdtemp(prefix="softbody-deploy-")
    # A real token file in place of the Secret's (an admin token asks /status), and the Secret
    # must be mounted where --token-file points.
    admin = subprocess.run([binary, "--new-token", "deploy-check:admin"], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    with open(os.path.join(tmp, "tokens.json"), "w") as f:
        f.write('{"tokens": [%s]}' % admin[1])
    mounts = [m["mountPath"] for m in container.get("volumeMounts", [])]
    for a in container.get("args", []):
        if a.startswith("--token-file="):
            path = a.split("=", 1)[1]
            if not any(path.startswith(m.rstrip("/") + "/") for m in mounts):
                fail(where, f"--token-file {path} is not in a mounted volume ({mounts})")
    args = []
    for a in container.get("args", []):
        a = re.sub(r"^--token-file=.*", f"--token-file={tmp}/tokens.json", a)
        a = a.replace("$(POD_NAME)", "softbody-host-0")
        a = re.sub(r"^--grpc=.*", "--grpc=127.0.0.1:0", a)
        a = re.sub(r"^--http=.*", "--http=127.0.0.1:0", a)
        a = re.sub(r"^--snapshot-store=.*", f"--snapshot-store={tmp}/store", a)
        a = re.sub(r"^--workers=.*", "--workers=1", a)
        args.append(a)
    ready = os.path.join(tmp, "ready.json")
    proc = subprocess.Popen([binary, "--scenes", scenes, "--ready-file", ready, "--log-level",
                             "warn"] + args, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(200):
            if os.path.exists(ready) or proc.poll() is not None:
                break
            time.sleep(0.05)
        if not os.path.exists(ready):
            fail(where, f"the server refused the rendered arguments {args}: "
                 + (proc.stderr.read() if proc.poll() is not None else "no start"))
            return
        port = json.load(open(ready))["http_port"]
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            p = container.get(probe)
            if p and http_status(port, p["httpGet"]["path"]) != 200:
                fail(where, f"{probe} path {p['httpGet']['path']} does not answer 200")
        request = urllib.request.Request(f"http://127.0.0.1:{port}/status")
        if any(a.startswith("--token-file=") for a in args):
            request.add_header("Authorization", "Bearer " + admin[0])
        status = json.loads(urllib.request.urlopen(request).read())
        if "--advertise-grpc=$(POD_NAME).softbody-hosts:50051" in container.get("args", []):
            if status["grpcAddress"] != "softbody-host-0.softbody-hosts:50051":
                fail(where, f"advertised {status['grpcAddress']}")
    finally:
        if proc.poll() is not None:
            shutil.rmtree(tmp, ignore_errors=True)
            return
        proc.send_signal(signal.SIGTERM)
        if proc.wait(timeout=20) != 0:
            fail(where, f"the server exited with {proc.returncode} on SIGTERM")
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if shutil.which("kubectl") is None:
        print("check_manifests: skipped: kubectl is not installed")
        return 77
    binary, scenes = sys.argv[1], sys.argv[2]
    checked = 0
    for path in VARIANTS:
        docs = render(path)
        for where, container in check_variant(path, docs):
            check_against_server(binary, scenes, where, container)
            checked += 1
    for f in failures:
        print("FAIL", f)
    print(f"check_manifests: {len(VARIANTS)} variants, {checked} server containers, "
          f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
