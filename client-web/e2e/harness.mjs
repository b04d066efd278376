// End-to-end harness: the real softbody-server on free ports serving the built client (dist/),
// and Debian's Chromium driven by playwright-core (headless, SwiftShader WebGL).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const clientDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const repoDir = resolve(clientDir, "..");
export const buildDir = process.env.SOFTBODY_BUILD_DIR ?? join(repoDir, "build", "release");
export const artifactsDir = process.env.SOFTBODY_E2E_ARTIFACTS ?? join(buildDir, "e2e-artifacts");
const serverBinary = join(buildDir, "server", "softbody-server");

// Starts softbody-server (gRPC and HTTP on free ports); resolves once it wrote its ready file.
// `httpPort` 0 picks a free port; a fixed one restarts a server where browsers reconnect.
// `preload` names a scene to start a session of, as ./run.sh does ("default"); none by default.
// `tlsDir`: a folder from scripts/dev-cert.sh; the server then speaks HTTPS/WSS (and gRPC TLS).
export async function startServer(extraArgs = [], { needClient = true, httpPort = 0, preload = "", tlsDir = "" } = {}) {
  if (!existsSync(serverBinary)) throw new Error(`no server at ${serverBinary}: build it first (scripts/build.sh)`);
  if (needClient && !existsSync(join(clientDir, "dist", "index.html")))
    throw new Error("no client-web/dist: run npm run build");
  const dir = mkdtempSync(join(tmpdir(), "softbody-e2e-"));
  const ready = join(dir, "ready.json");
  const args = ["--grpc", "127.0.0.1:0", "--http", `127.0.0.1:${httpPort}`, "--scenes", join(repoDir, "scenes"),
    "--web-root", join(clientDir, "dist"), "--preload", preload, "--ready-file", ready, "--log-level", "info",
    // Not a test of admission: CPU admission off, so the machine's speed cannot refuse a session.
    "--max-cpu-load", "0", ...extraArgs];
  if (tlsDir) args.push("--tls-cert", join(tlsDir, "server.pem"), "--tls-key", join(tlsDir, "server.key"));
  const child = spawn(serverBinary, args, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr.on("data", (d) => (log += d));
  const deadline = Date.now() + 60000;
  while (!existsSync(ready)) {
    if (child.exitCode !== null) throw new Error(`softbody-server exited: ${log}`);
    if (Date.now() > deadline) throw new Error(`softbody-server did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const ports = JSON.parse(readFileSync(ready, "utf8"));
  return {
    ...ports,
    url: `${tlsDir ? "https" : "http"}://${tlsDir ? "localhost" : "127.0.0.1"}:${ports.http_port}/`,
    log: () => log,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
      return child.exitCode;
    },
  };
}

// Makes a development authority and server certificate (scripts/dev-cert.sh) in a new folder.
export function makeDevCertificate(name) {
  const dir = mkdtempSync(join(tmpdir(), `softbody-cert-${name}-`));
  execFileSync(join(repoDir, "scripts", "dev-cert.sh"), [dir], { stdio: "ignore" });
  return dir;
}

// Headless Chromium with SwiftShader WebGL (design guide §7: flags that work as root here).
// `trustCa`: a PEM authority the browser trusts, as a user who installed it would: Chromium on
// Linux reads trust from the NSS database under $HOME/.pki/nssdb, so the browser gets its own
// HOME with one (certutil, Debian's libnss3-tools). No certificate errors are ignored.
export async function launchBrowser(name, { trustCa = "" } = {}) {
  const profile = mkdtempSync(join(tmpdir(), `softbody-chromium-${name}-`));
  const env = { ...process.env };
  if (trustCa) {
    env.HOME = join(profile, "home");
    const nssdb = join(env.HOME, ".pki", "nssdb");
    mkdirSync(nssdb, { recursive: true });
    execFileSync("certutil", ["-N", "-d", `sql:${nssdb}`, "--empty-password"]);
    execFileSync("certutil", ["-A", "-d", `sql:${nssdb}`, "-n", "softbody development CA", "-t", "C,,", "-i", trustCa]);
  }
  const context = await chromium.launchPersistentContext(profile, {
    env,
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1100, height: 700 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function artifact(name) {
  mkdirSync(artifactsDir, { recursive: true });
  return join(artifactsDir, name);
}

// Polls `fn` (in node) until it returns a truthy value or the timeout passes.
export async function waitFor(fn, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const probe = (page) => page.evaluate(() => ({ ...window.softbody }));

// State frames of the bunny's surface encoded by the C++ codec (softbody-codec-fixture) with the
// positions they encode: { meta, frames: Uint8Array[], truth: Float64Array, triangles }.
export function codecFixture(frameCount = 40, errorBound = 1e-4) {
  const tool = join(buildDir, "tests", "softbody-codec-fixture");
  if (!existsSync(tool)) throw new Error(`${tool} is missing: build it (scripts/build.sh softbody-codec-fixture)`);
  const dir = mkdtempSync(join(tmpdir(), "softbody-codec-"));
  try {
    const bunny = join(repoDir, "tests", "meshes", "bunny.mesh");
    execFileSync(tool, [bunny, dir, "--frames", String(frameCount), "--error-bound", String(errorBound)]);
    const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8"));
    const all = new Uint8Array(readFileSync(join(dir, "frames.bin")));
    const frames = [];
    let offset = 0;
    for (const size of meta.frame_bytes) frames.push(all.subarray(offset, (offset += size)));
    const copy = (file) => {
      const bytes = readFileSync(join(dir, file));
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    };
    return { meta, frames, truth: new Float64Array(copy("truth.f64")), triangles: new Uint32Array(copy("triangles.u32")) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A TCP proxy on loopback that holds every chunk for half `roundTripMs` in each direction (in
// order: equal delays fire in order), to put a slow link between a browser and the server.
// The native side has client-cpp/net/delay_proxy.h with jitter and loss; a fixed delay is all the
// browser tests need.
export async function startDelayProxy(targetPort, roundTripMs) {
  const net = await import("node:net");
  const sockets = new Set();
  const delay = roundTripMs / 2;
  const pipe = (from, to) => {
    from.on("data", (chunk) => setTimeout(() => to.destroyed || to.write(chunk), delay));
    from.on("end", () => setTimeout(() => to.destroyed || to.end(), delay));
    from.on("error", () => to.destroy());
    from.on("close", () => setTimeout(() => to.destroy(), delay));
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const port = server.address().port;
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(r);
      }),
  };
}

// Selects `tool` ("grab" or "poke"), moves the mouse onto the body and presses the button; the
// caller releases it. Returns the canvas box and the page point pressed.
export async function pressOnBody(page, tool) {
  await page.check(`input[name="tool"][value="${tool}"]`);
  const box = await page.locator("#view").boundingBox();
  const onBody = (await probe(page)).bodyOnScreen;
  const x0 = box.x + onBody.x;
  const y0 = box.y + onBody.y;
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  return { box, x0, y0 };
}
