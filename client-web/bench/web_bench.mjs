// Browser-path benchmarks, printed as one JSON object:
//  - wasm_frame_ms: WebAssembly decode + interpolation + smooth normals of a bunny.mesh surface
//    frame (C++-encoded by softbody-codec-fixture), in node; median and p90 over many frames.
//  - ws_round_trip_ms: tool command -> force reply through the WebSocket gateway on loopback, with
//    a node WebSocket client (ws), one command in flight at a time; p50/p90/p99.
//  - contact_resolve_ms: the page's 1 kHz re-solve of a step's contact problem (codec/tool_contact,
//    WebAssembly, in node) for tool poses around the stepped one: a constraint sphere pressed 6 mm
//    into the knight (scene "knight") through the gateway, the reply's problem with the most contacts (the
//    float32 upper triangle the page asks for); median and p99 of one force() call.
//  - render_fps: frames per second the page renders in headless Chromium (SwiftShader, software
//    WebGL) showing a bunny session.
//  - page_round_trip_ms: the tool round trip the page's HUD shows (its median over the last 200
//    replies) while the page pokes the knight with its default contact (auto: constraint there),
//    sampled once a second, beside the page's render fps then (each command leaves at the start
//    of a displayed frame and its reply is read when the main thread is free again, so the round
//    trip is at least what is left of drawing that frame).
// Usage: node bench/web_bench.mjs [--seconds S]   (needs scripts/build.sh and scripts/build-web.sh)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import WebSocket from "ws";
import createSoftbodyCodec from "../src/gen/softbody_codec.mjs";
import { ClientMessageSchema, ServerMessageSchema } from "../src/gen/softbody/v1/gateway_pb.js";
import { MeshFormat } from "../src/gen/softbody/v1/session_pb.js";
import { ContactModel, ContactProblemEncoding, ToolMode } from "../src/gen/softbody/v1/interact_pb.js";
import { codecFixture, launchBrowser, pressOnBody, probe, repoDir, startServer, waitFor } from "../e2e/harness.mjs";

const seconds = Number(process.argv[process.argv.indexOf("--seconds") + 1] || 5);
const bunnyPath = join(repoDir, "tests", "meshes", "bunny.mesh");
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function wasmFrame() {
  const { meta, frames, triangles } = codecFixture(120);
  const module = await createSoftbodyCodec();
  const p = new module.FramePipeline();
  const times = [];
  for (let round = 0; round < 20; ++round) {
    p.reset(meta.vertices, triangles);
    for (const frame of frames) {
      const t0 = performance.now();
      p.input(frame.length).set(frame);
      if (!p.push(frame.length)) throw new Error(p.error());
      p.interpolate(0.5);
      p.computeNormals();
      times.push(performance.now() - t0);
    }
  }
  p.delete();
  return { vertices: meta.vertices, triangles: meta.triangles, frames: times.length,
    median: quantile(times, 0.5), p90: quantile(times, 0.9) };
}

// A session of the bunny uploaded as a file, or of a built-in scene by name.
function openSession(port, sceneName) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    ws.binaryType = "arraybuffer";
    ws.on("open", () => {
      const source = sceneName ? { case: "sceneName", value: sceneName }
        : { case: "uploadedMesh", value: { format: MeshFormat.MEDIT, content: readFileSync(bunnyPath), fileName: "bunny.mesh" } };
      const request = create(ClientMessageSchema, { requestId: 1, body: { case: "createSession", value: {
        source, label: `${sceneName ?? "bunny"} (bench)` } } });
      ws.send(toBinary(ClientMessageSchema, request));
    });
    ws.on("message", (data) => {
      const m = fromBinary(ServerMessageSchema, new Uint8Array(data));
      if (m.body.case === "session") resolve({ ws, id: m.body.value.id, bounds: m.body.value.restBounds });
      else if (m.body.case === "error") reject(new Error(m.body.value.message));
    });
    ws.on("error", reject);
  });
}

async function roundTrip(port, id, ws) {
  const times = [];
  let resolveReply;
  ws.on("message", (data) => {
    const m = fromBinary(ServerMessageSchema, new Uint8Array(data));
    if (m.body.case === "force") resolveReply?.(m.body.value);
  });
  const end = performance.now() + seconds * 1000;
  for (let seq = 1n; performance.now() < end; ++seq) {
    const command = create(ClientMessageSchema, { body: { case: "toolCommand", value: {
      sessionId: id, sequence: seq, mode: ToolMode.POKE, radius: 0.01,
      pose: { position: { x: 0, y: 0.3 + 0.001 * Number(seq % 10n), z: 0 } } } } });
    const replied = new Promise((r) => (resolveReply = r));
    const t0 = performance.now();
    ws.send(toBinary(ClientMessageSchema, command));
    await replied;
    times.push(performance.now() - t0);
  }
  return { commands: times.length, p50: quantile(times, 0.5), p90: quantile(times, 0.9), p99: quantile(times, 0.99) };
}

async function contactResolve(ws, id, bounds) {
  let best = null, rejected = "";
  ws.on("message", (data) => {
    const m = fromBinary(ServerMessageSchema, new Uint8Array(data));
    if (m.body.case === "force" && m.body.value.rejected) rejected = m.body.value.rejected;
    const problem = m.body.case === "force" ? m.body.value.contactProblem : undefined;
    if (problem && problem.contacts > (best?.contacts ?? 0)) best = problem;
  });
  const radius = 0.01, x = 0.5 * (bounds.min.x + bounds.max.x), z = 0.5 * (bounds.min.z + bounds.max.z);
  // Down from above the top, 1 mm a command, until a problem comes back; then 6 mm further in over
  // 0.6 s and held 0.4 s. A command every 10 ms.
  let sequence = 1000000000n;  // after roundTrip's
  const send = async (y) => {
    const command = create(ClientMessageSchema, { body: { case: "toolCommand", value: {
      sessionId: id, sequence: sequence++, mode: ToolMode.POKE, radius,
      contactModel: ContactModel.CONSTRAINT, frictionCoefficient: 0.3, candidateReach: 0.01,
      contactProblemEncoding: ContactProblemEncoding.UPPER_FLOAT, pose: { position: { x, y, z } } } } });
    ws.send(toBinary(ClientMessageSchema, command));
    await new Promise((r) => setTimeout(r, 10));
  };
  let y = bounds.max.y + radius + 0.005;
  for (; !best && y > bounds.min.y; y -= 0.001) await send(y);
  for (let k = 0; k < 100; ++k) await send(y - 1e-4 * Math.min(k, 60));
  if (!best) throw new Error(`no contact problem came back from the constraint poke ${rejected}`);
  const module = await createSoftbodyCodec();
  const solver = new module.ToolContactSolver();
  const r = best.referencePosition;
  if (!solver.load(r.x, r.y, r.z, best.contacts, [...best.complianceUpper], true, [...best.freeMotion],
    [...best.friction], [...best.frames], [...best.forces])) throw new Error("the problem did not load");
  const times = [];
  let largest = 0;
  for (let i = 0; i < 5000; ++i) {
    // Poses within 1 mm of the stepped one, as a hand moves between steps.
    const d = 1e-3 * Math.sin(0.7 * i), e = 1e-3 * Math.cos(1.3 * i);
    const t0 = performance.now();
    const f = solver.force(r.x + d, r.y + e, r.z - d);
    times.push(performance.now() - t0);
    largest = Math.max(largest, Math.hypot(f[0], f[1], f[2]));
  }
  solver.delete();
  return { contacts: best.contacts, calls: times.length, median: quantile(times, 0.5),
    p99: quantile(times, 0.99), largest_force_n: largest };
}

async function renderFps(server, id) {
  const browser = await launchBrowser("bench");
  await browser.page.goto(`${server.url}?session=${id}`);
  await waitFor(async () => (await probe(browser.page)).framesReceived > 20, 30000, "frames");
  const samples = [];
  for (let i = 0; i < seconds; ++i) {
    await browser.page.waitForTimeout(1000);
    samples.push((await probe(browser.page)).renderFps);
  }
  await browser.close();
  return { median: quantile(samples, 0.5), samples };
}

async function pageRoundTrip(server, id) {
  const browser = await launchBrowser("bench");
  const { page } = browser;
  await page.goto(`${server.url}?session=${id}`);
  await waitFor(async () => (await probe(page)).framesReceived > 20, 30000, "frames");
  await pressOnBody(page, "poke");
  const samples = [];
  const fps = [];
  try {
    await waitFor(async () => Number.isFinite((await probe(page)).roundTripMs), 20000, "replies");
    for (let i = 0; i < seconds; ++i) {
      await page.waitForTimeout(1000);
      const p = await probe(page);
      samples.push(p.roundTripMs);
      fps.push(p.renderFps);
    }
  } finally {
    await page.mouse.up();
  }
  const applied = (await probe(page)).appliedContact;
  await browser.close();
  return { median: quantile(samples, 0.5), samples, render_fps_median: quantile(fps, 0.5),
    frame_interval_ms: 1000 / quantile(fps, 0.5), contact: applied };
}

const result = { benchmark: "web", seconds };
result.wasm_frame_ms = await wasmFrame();
const server = await startServer();
try {
  const { ws, id } = await openSession(server.http_port);
  result.ws_round_trip_ms = await roundTrip(server.http_port, id, ws);
  ws.close();
  const knight = await openSession(server.http_port, "knight");
  result.contact_resolve_ms = await contactResolve(knight.ws, knight.id, knight.bounds);
  knight.ws.close();
  result.page_round_trip_ms = await pageRoundTrip(server, knight.id);
  result.render_fps = await renderFps(server, id);
} finally {
  await server.stop();
}
console.log(JSON.stringify(result, null, 2));
