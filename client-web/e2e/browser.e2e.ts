// The browser client end to end: softbody-server serving the built client, Debian's Chromium
// (headless, SwiftShader WebGL) driven by playwright-core. A trainee creates a session from the
// UI and pulls the body with the mouse; an instructor's second browser sees the same session;
// pausing stops the frames; the page comes back after a server restart. Screenshots are kept in
// build/release/e2e-artifacts/.
import { writeFileSync } from "node:fs";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Page } from "playwright-core";
import { FramePipeline } from "../src/codec/frame_pipeline";
import { GatewayClient } from "../src/net/gateway_client";
import { artifact, launchBrowser, pressOnBody, probe, startServer, waitFor } from "./harness.mjs";

type Server = { http_port: number; url: string; stop(): Promise<number>; log(): string };
type Browser = { page: Page; problems: string[]; close(): Promise<void> };

let server: Server;
let trainee: Browser;
let instructor: Browser;
let sessionId = "";

// Pixel statistics of a PNG screenshot: distinct colours and the mean absolute difference to
// another screenshot of the same size.
function decode(png: Buffer) {
  return PNG.sync.read(png);
}
function distinctColours(png: Buffer): number {
  const { data } = decode(png);
  const colours = new Set<number>();
  for (let i = 0; i < data.length; i += 16) colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  return colours.size;
}
function meanDifference(a: Buffer, b: Buffer): number {
  const x = decode(a).data;
  const y = decode(b).data;
  let sum = 0;
  for (let i = 0; i < x.length; i += 4) sum += Math.abs(x[i] - y[i]) + Math.abs(x[i + 1] - y[i + 1]) + Math.abs(x[i + 2] - y[i + 2]);
  return sum / (x.length / 4);
}

async function shot(page: Page, name: string): Promise<Buffer> {
  const png = await page.locator("#view").screenshot();
  writeFileSync(artifact(name), png);
  return png;
}

// The session's surface positions as the server streams them (a node client of its own, decoding
// with the same WebAssembly pipeline).
async function serverSurface(id: string): Promise<Float32Array> {
  const frames: Uint8Array[] = [];
  const client = new GatewayClient(`ws://127.0.0.1:${server.http_port}/ws`, {
    onFrame: (f) => frames.push(f.positions),
  }, WebSocket as unknown as new (url: string) => globalThis.WebSocket);
  await client.connect();
  const reply = await client.request({ case: "getTopology", value: { sessionId: id } });
  if (reply.body.case !== "topology") throw new Error("no topology");
  const t = reply.body.value;
  const pipeline = await FramePipeline.create();
  pipeline.reset(t.surfaceVertexIds.length, Uint32Array.from(t.surfaceTriangles));
  await client.request({ case: "subscribe", value: { sessionId: id } });
  await waitFor(() => frames.length >= 2, 20000, "server frames");
  client.close();
  for (const f of frames) pipeline.push(f);
  pipeline.update(1, false);
  const positions = Float32Array.from(pipeline.positions);
  pipeline.dispose();
  return positions;
}

// The session's settings as the server has them, read by a node client of its own (close it).
async function settingsReader(id: string) {
  const client = new GatewayClient(`ws://127.0.0.1:${server.http_port}/ws`, {},
    WebSocket as unknown as new (url: string) => globalThis.WebSocket);
  await client.connect();
  const read = async () => {
    const reply = await client.request({ case: "getSession", value: { sessionId: id } });
    return reply.body.case === "session" ? reply.body.value.settings : undefined;
  };
  return { read, close: () => client.close() };
}

// Creates a session of a scene document through a node client of its own and opens it in
// `page`, waiting for its frames; returns its id and the client (delete the session, close it).
async function joinSceneJson(page: Page, scene: object, what: string) {
  const client = new GatewayClient(`ws://127.0.0.1:${server.http_port}/ws`, {},
    WebSocket as unknown as new (url: string) => globalThis.WebSocket);
  await client.connect();
  const created = await client.request({
    case: "createSession",
    value: { source: { case: "sceneJson", value: JSON.stringify(scene) } },
  });
  expect(created.body.case).toBe("session");
  const id = created.body.case === "session" ? created.body.value.id : "";
  await page.goto(`${server.url}?session=${id}`);
  await waitFor(async () => {
    const s = await probe(page);
    return s.sessionId === id && s.framesReceived > 2;
  }, 30000, what);
  return { id, client };
}

// The largest distance between corresponding vertices of two states.
function largestMotion(a: Float32Array, b: Float32Array): number {
  let largest = 0;
  for (let i = 0; i < a.length; i += 3) largest = Math.max(largest, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return largest;
}

beforeAll(async () => {
  server = await startServer(["--max-sessions", "3"]);
  trainee = await launchBrowser("trainee");
  instructor = await launchBrowser("instructor");
});

afterAll(async () => {
  await trainee?.close();
  await instructor?.close();
  if (server) expect(await server.stop()).toBe(0);
});

describe("browser client", () => {
  it("loads, connects and renders a non-blank canvas", async () => {
    const { page } = trainee;
    await page.goto(server.url);
    await waitFor(async () => (await probe(page)).connection === "open", 30000, "the connection");
    await waitFor(async () => (await page.locator("#scene-select option").count()) >= 3, 10000, "the scene list");
    const empty = await shot(page, "01-empty.png");
    expect(distinctColours(empty)).toBeGreaterThan(3);  // the floor grid on the background
    expect(trainee.problems).toEqual([]);
  });

  it("creates a session from the UI and draws the body", async () => {
    const { page } = trainee;
    const before = await shot(page, "02-before-create.png");
    await page.selectOption("#scene-select", "default");
    await page.click("#create-session");
    const p = await waitFor(async () => {
      const s = await probe(page);
      return s.sessionId && s.framesReceived > 10 ? s : null;
    }, 30000, "frames of the new session");
    sessionId = p.sessionId;
    await page.waitForTimeout(300);
    const body = await shot(page, "03-session.png");
    expect(meanDifference(before, body)).toBeGreaterThan(2);  // the knight appeared
    expect(distinctColours(body)).toBeGreaterThan(50);  // lit and colour-mapped, not flat
    await expect(page.locator(`#session-list li[data-session-id="${sessionId}"]`)).toBeTruthy();
    expect(await page.locator("#hud").textContent()).toMatch(/real-time factor [0-9.]+/);
    expect(await page.locator("#hud").textContent()).toMatch(/inverted elements [0-9]+/);
    // The scene's floor and its pusher sphere are drawn, the pusher where the server has it: on
    // its keyframed path (x from 0.12 to 0.04 m in 1.5 s and back, then held; y = 0.1 m), moved by
    // the frames: after a reset it leaves x = 0.12 again.
    const first = await probe(page);
    expect(first.obstacles).toBe(2);
    expect(first.obstaclePositions[0]).toEqual({ x: 0, y: 0, z: 0 });
    await page.click("#reset");
    const pushed = await waitFor(async () => {
      const p = (await probe(page)).obstaclePositions[1];
      return p && p.x < 0.11 ? p : null;
    }, 30000, "the pusher moving after the reset");
    expect(pushed.x).toBeGreaterThanOrEqual(0.04 - 1e-6);
    expect(pushed.y).toBeCloseTo(0.1, 6);
    expect(pushed.z).toBe(0);
  });

  it("deforms the body with a mouse drag; a second browser sees it", async () => {
    const { page } = trainee;
    await instructor.page.goto(`${server.url}?session=${sessionId}`);
    await waitFor(async () => (await probe(instructor.page)).framesReceived > 5, 30000, "the instructor's frames");
    const instructorBefore = await shot(instructor.page, "04-instructor-before.png");
    const before = await serverSurface(sessionId);

    const { x0, y0 } = await pressOnBody(page, "grab");
    let pulled: Float32Array;
    let traineeShot: Buffer;
    let instructorProbe: { maxDisplacement: number };
    let instructorAfter: Buffer;
    try {
      await page.mouse.move(x0 + 160, y0 - 120, { steps: 25 });
      // Hold the pull while the others look.
      await waitFor(async () => (await probe(page)).lastForce > 0.5, 20000, "a grab force").catch(async (e) => {
        await shot(page, "05-failed-grab.png");
        throw new Error(`${e.message}: ${JSON.stringify(await probe(page))}`);
      });
      await page.waitForTimeout(1000);
      pulled = await serverSurface(sessionId);
      traineeShot = await shot(page, "05-trainee-pulling.png");
      instructorProbe = await waitFor(async () => {
        const s = await probe(instructor.page);
        return s.maxDisplacement > 0.02 ? s : null;
      }, 20000, "the instructor to see the deformation");
      instructorAfter = await shot(instructor.page, "06-instructor-sees-pull.png");
    } finally {
      await page.mouse.up();
    }

    expect(largestMotion(before, pulled)).toBeGreaterThan(0.02);  // > 2 cm on a 30 cm knight
    expect(instructorProbe.maxDisplacement).toBeGreaterThan(0.02);
    expect(meanDifference(instructorBefore, instructorAfter)).toBeGreaterThan(0.5);
    expect(distinctColours(traineeShot)).toBeGreaterThan(50);
    expect((await probe(page)).roundTripMs).toBeLessThan(1000);
    expect(instructor.problems).toEqual([]);
  });

  it("pokes with constraint contact by default, feels the body and re-solves its contacts", async () => {
    const { page } = trainee;
    // The page's default, auto: the server makes the poke a constraint one on this session
    // (Newton with a factor) and says so in its replies.
    expect(await page.locator("#contact-model").inputValue()).toBe("auto");
    await page.fill("#contact-mu", "0.6");
    await page.locator("#contact-mu").dispatchEvent("change");
    await pressOnBody(page, "poke");
    try {
      await waitFor(async () => (await probe(page)).lastForce > 0.01, 20000, "a constraint contact force").catch(
        async (e) => {
          await shot(page, "05b-failed-poke.png");
          throw new Error(`${e.message}: ${JSON.stringify(await probe(page))}`);
        });
      expect((await probe(page)).appliedContact).toBe("constraint");
      await waitFor(async () => (await page.locator("#hud").textContent())?.includes("contact constraint"), 5000,
        "the HUD naming the contact model");
      // The page re-solves the step's contact problem for the sphere where it is, every frame.
      await waitFor(async () => (await probe(page)).localForce > 0.01, 10000, "the page's own contact force");
      // It asked for the problems' compliance as float32 upper triangle, and got them so.
      const { contactProblems, compactContactProblems, contactFriction } = await probe(page);
      expect(contactProblems).toBeGreaterThan(0);
      expect(compactContactProblems).toBe(contactProblems);
      // With the friction coefficient the page's field gave (the sphere's contacts with the body).
      expect(contactFriction.length).toBeGreaterThan(0);
      for (const mu of contactFriction) expect(mu).toBeCloseTo(0.6, 12);
      // The server stepped the tool as a constraint obstacle (its steps count constraint contacts).
      const client = new GatewayClient(`ws://127.0.0.1:${server.http_port}/ws`, {},
        WebSocket as unknown as new (url: string) => globalThis.WebSocket);
      await client.connect();
      try {
        await waitFor(async () => {
          const reply = await client.request({ case: "getSession", value: { sessionId } });
          return reply.body.case === "session" && (reply.body.value.lastStep?.constraintContacts ?? 0) > 0;
        }, 10000, "constraint contacts in the session's steps");
      } finally {
        client.close();
      }
    } finally {
      await page.mouse.up();
      await page.check('input[name="tool"][value="orbit"]');
    }
    expect((await probe(page)).lastError).toBe("");  // the server took the constraint command
    // Chosen by hand, penalty contact is what the server applies.
    await page.selectOption("#contact-model", "penalty");
    await pressOnBody(page, "poke");
    try {
      await waitFor(async () => (await probe(page)).appliedContact === "penalty", 10000, "a penalty reply");
    } finally {
      await page.mouse.up();
      await page.selectOption("#contact-model", "auto");
      await page.check('input[name="tool"][value="orbit"]');
    }
  });

  it("pokes with a tool surface the server offers", async () => {
    const { page } = trainee;
    // The server's list (ListScenes' tool_meshes) fills the choice; the blade presses by
    // constraint contact and the server answers its commands with a force, refusing none.
    await waitFor(async () => (await page.locator("#poke-shape option").count()) >= 2, 10000, "the tool list");
    await page.selectOption("#poke-shape", "blade");
    expect((await probe(page)).pokeTool).toBe("blade");
    await pressOnBody(page, "poke");
    try {
      // Unlike the sphere, the blade's edge is at the cursor's depth: the wheel pushes it in, as
      // a user would, a few percent at a time until it presses.
      for (let k = 0; k < 30 && (await probe(page)).lastForce <= 0.01; ++k) {
        await page.mouse.wheel(0, 20);
        await page.waitForTimeout(200);
      }
      await waitFor(async () => (await probe(page)).lastForce > 0.01, 20000, "the blade's contact force").catch(
        async (e) => {
          await shot(page, "05c-failed-blade.png");
          throw new Error(`${e.message}: ${JSON.stringify(await probe(page))}`);
        });
      await shot(page, "05c-blade.png");
      expect((await probe(page)).appliedContact).toBe("constraint");
    } finally {
      await page.mouse.up();
      await page.selectOption("#poke-shape", "");
      await page.check('input[name="tool"][value="orbit"]');
    }
    expect((await probe(page)).lastError).toBe("");  // no command refused
    expect((await probe(page)).pokeTool).toBe("sphere");
  });

  it("pause stops the frames for everyone; resume restarts them", async () => {
    const { page } = trainee;
    await page.click("#pause");
    await waitFor(async () => await page.locator("#resume").isEnabled(), 10000, "the paused state");
    await page.waitForTimeout(300);  // frames already in flight
    const a = [await probe(page), await probe(instructor.page)];
    await page.waitForTimeout(1500);
    const b = [await probe(page), await probe(instructor.page)];
    expect(b[0].lastStep).toBe(a[0].lastStep);
    expect(b[0].framesReceived).toBe(a[0].framesReceived);
    expect(b[1].framesReceived).toBe(a[1].framesReceived);
    await page.click("#step");
    await waitFor(async () => (await probe(page)).lastStep === a[0].lastStep + 1, 10000, "one step");
    await page.click("#resume");
    await waitFor(async () => (await probe(instructor.page)).framesReceived > b[1].framesReceived + 10, 20000, "frames again");
  });

  it("builds its setting controls from the server's table", async () => {
    const { page } = trainee;
    const client = new GatewayClient(`ws://127.0.0.1:${server.http_port}/ws`, {},
      WebSocket as unknown as new (url: string) => globalThis.WebSocket);
    await client.connect();
    const reply = await client.request({ case: "listScenes", value: {} });
    client.close();
    expect(reply.body.case).toBe("scenes");
    const table = reply.body.case === "scenes" ? reply.body.value.settings : [];
    expect(table.length).toBeGreaterThan(10);
    for (const d of table) {
      const control = page.locator(`#setting-${d.name}`);
      expect(await control.count(), d.name).toBe(d.control ? 1 : 0);
      if (!d.control || d.choices.length) continue;
      // The slider's ends are the server's (log10 of them on a log scale), never outside its range.
      const end = (v: number) => (d.control!.log ? Math.log10(v) : v);
      expect(Number(await control.getAttribute("min")), d.name).toBeCloseTo(end(d.control.min), 9);
      expect(Number(await control.getAttribute("max")), d.name).toBeCloseTo(end(d.control.max), 9);
      expect(d.control.min >= d.min && d.control.max <= d.max, d.name).toBe(true);
    }
    const options = await page.locator("#setting-integrator option").evaluateAll((o) => o.map((e) => (e as HTMLOptionElement).value));
    expect(options).toEqual(table.find((d) => d.name === "integrator")!.choices.map((c) => c.value));
  });

  it("changes the integrator live from its selector", async () => {
    const { page } = trainee;
    expect(await page.locator("#setting-integrator").inputValue()).toBe("implicit-euler");
    await page.selectOption("#setting-integrator", "bdf2");
    const settings = await settingsReader(sessionId);
    await waitFor(async () => (await settings.read())?.integrator === "bdf2", 10000, "the new integrator");
    // The session steps on under it.
    const before = (await probe(page)).lastStep;
    await waitFor(async () => (await probe(page)).lastStep > before + 10, 20000, "steps under BDF(2)");
    settings.close();
    expect(trainee.problems).toEqual([]);
  });

  it("changes the pressure live from its selector", async () => {
    const { page } = trainee;
    // The default scene keeps one volume per element; its material is not constant-Q.
    expect(await page.locator("#setting-pressure").inputValue()).toBe("element");
    expect(await page.locator("#setting-viscous_quality").isVisible()).toBe(false);
    expect(await page.locator("#setting-youngs_modulus").isDisabled()).toBe(false);
    await page.selectOption("#setting-pressure", "nodal");
    const settings = await settingsReader(sessionId);
    await waitFor(async () => (await settings.read())?.nodalPressure === true, 10000, "nodal pressure");
    expect((await settings.read())?.pressure).toBe("nodal");
    const before = (await probe(page)).lastStep;
    await waitFor(async () => (await probe(page)).lastStep > before + 10, 20000, "steps under nodal pressure");
    settings.close();
    expect(trainee.problems).toEqual([]);
  });

  it("shows Q and |G| for a constant-Q session and changes them live", async () => {
    const page = instructor.page;
    const { id, client } = await joinSceneJson(page, {
      mesh: { box: { cells: [4, 2, 2], size: [0.2, 0.06, 0.1] } },
      material: { model: "stvk-tl", nu: 0.45, density: 1000,
        viscoelastic: { constant_q: { Q: 4.8, mu: 2500, frequency: 2 } } },
      damping: { alpha: 0.5, beta: 0 }, dt: 0.02, fixed: [{ set: "xmin" }],
    }, "the constant-Q session's frames");
    // Q and |G| replace E, which the fit sets.
    await waitFor(async () => await page.locator("#setting-viscous_quality").isEnabled(), 10000, "the Q slider");
    expect(await page.locator("#setting-viscous_modulus").isVisible()).toBe(true);
    expect(await page.locator("#setting-youngs_modulus").isDisabled()).toBe(true);
    // Its Prony terms come from the fit: no per-term sliders.
    expect(await page.locator("#setting-prony_mu_1").isVisible()).toBe(false);
    // Dragging Q to 10 (log scale: the slider holds log10 Q) updates the session.
    await page.locator("#setting-viscous_quality").evaluate((e) => {
      const slider = e as HTMLInputElement;
      slider.value = "1";
      slider.dispatchEvent(new Event("input", { bubbles: true }));
    });
    // The slider snaps to its step from its minimum (log10 2): what it holds is what is sent.
    const sent = 10 ** Number(await page.locator("#setting-viscous_quality").inputValue());
    expect(Math.abs(sent - 10)).toBeLessThan(0.1);
    const settings = await settingsReader(id);
    await waitFor(async () => Math.abs(((await settings.read())?.viscousQuality ?? 0) - sent) < 1e-9 * sent, 10000, "the new Q on the server");
    expect(await page.locator("#setting-viscous_quality").evaluate((e) => e.parentElement?.querySelector("output")?.textContent)).toBe("10.0");
    settings.close();
    await client.request({ case: "deleteSession", value: { sessionId: id } });
    client.close();
    expect(instructor.problems).toEqual([]);
  });

  it("shows a Prony material's terms and changes a relaxation time live", async () => {
    const page = instructor.page;
    const { id, client } = await joinSceneJson(page, {
      mesh: { box: { cells: [4, 2, 2], size: [0.2, 0.06, 0.1] } },
      material: { model: "stvk-tl", E: 6000, nu: 0.45, density: 1000,
        viscoelastic: { prony: [{ mu: 3000, tau: 0.05 }, { mu: 2000, tau: 0.5 }] } },
      damping: { alpha: 0.5, beta: 0 }, dt: 0.02, fixed: [{ set: "xmin" }],
    }, "the Prony session's frames");
    // Two terms: their four sliders, not the third term's; E stays (the long-term modulus).
    await waitFor(async () => await page.locator("#setting-prony_tau_2").isEnabled(), 10000, "the tau 2 slider");
    for (const name of ["prony_mu_1", "prony_tau_1", "prony_mu_2"])
      expect(await page.locator(`#setting-${name}`).isEnabled(), name).toBe(true);
    expect(await page.locator("#setting-prony_mu_3").isVisible()).toBe(false);
    expect(await page.locator("#setting-viscous_quality").isVisible()).toBe(false);
    expect(await page.locator("#setting-youngs_modulus").isDisabled()).toBe(false);
    // tau 2 from 0.5 s to 2 s (log scale).
    await page.locator("#setting-prony_tau_2").evaluate((e) => {
      const slider = e as HTMLInputElement;
      slider.value = String(Math.log10(2));
      slider.dispatchEvent(new Event("input", { bubbles: true }));
    });
    const sent = 10 ** Number(await page.locator("#setting-prony_tau_2").inputValue());
    expect(Math.abs(sent - 2)).toBeLessThan(0.05);
    const settings = await settingsReader(id);
    await waitFor(async () => Math.abs(((await settings.read())?.pronyTau2 ?? 0) - sent) < 1e-9 * sent, 10000, "the new tau 2 on the server");
    expect((await settings.read())?.pronyMu2).toBeCloseTo(2000, 9);
    const before = (await probe(page)).lastStep;
    await waitFor(async () => (await probe(page)).lastStep > before + 10, 20000, "steps with the new term");
    settings.close();
    await client.request({ case: "deleteSession", value: { sessionId: id } });
    client.close();
    expect(instructor.problems).toEqual([]);
  });

  it("keeps a body that slides away in view", async () => {
    // scenes/incline.json: the block (6 cm across) slides down its incline (gravity tilted
    // towards +x) at 0.59 m/s^2 for good. The camera, the grid and the floor's patch follow it.
    const page = instructor.page;
    const client = new GatewayClient(`ws://127.0.0.1:${server.http_port}/ws`, {},
      WebSocket as unknown as new (url: string) => globalThis.WebSocket);
    await client.connect();
    const created = await client.request({ case: "createSession", value: { source: { case: "sceneName", value: "incline" } } });
    expect(created.body.case).toBe("session");
    const id = created.body.case === "session" ? created.body.value.id : "";
    try {
      await page.goto(`${server.url}?session=${id}`);
      const start = await waitFor(async () => {
        const s = await probe(page);
        return s.sessionId === id && s.framesReceived > 2 ? s : null;
      }, 30000, "the incline's frames");
      expect(start.floorPatches.length).toBe(1);
      // Four block sizes down the incline: beyond the first framing's view.
      const away = await waitFor(async () => {
        const s = await probe(page);
        return s.maxDisplacement > 0.25 ? s : null;
      }, 60000, "the block sliding 25 cm");
      await shot(page, "06b-incline-followed.png");
      const canvas = await page.locator("#view").boundingBox();
      const onScreen = away.bodyOnScreen;
      expect(onScreen).not.toBeNull();
      expect(onScreen!.x).toBeGreaterThan(0);
      expect(onScreen!.x).toBeLessThan(canvas!.width);
      expect(onScreen!.y).toBeGreaterThan(0);
      expect(onScreen!.y).toBeLessThan(canvas!.height);
      // The patch moved along with the block (it started under the block at x ~ 0.02 m).
      expect(away.floorPatches[0].x).toBeGreaterThan(0.1);
      expect(away.floorPatches[0].y).toBeCloseTo(0, 9);
    } finally {
      await client.request({ case: "deleteSession", value: { sessionId: id } });
      client.close();
    }
    expect(instructor.problems).toEqual([]);
  });

  it("shows the server's refusal clearly", async () => {
    const { page } = trainee;
    // --max-sessions 3: two more fit, the third is refused.
    for (let i = 0; i < 3; ++i) {
      await page.click("#create-session");
      await waitFor(async () => (await page.locator("#create-session").textContent()) === "Create", 30000, "the create");
    }
    await waitFor(async () => (await probe(page)).lastError.includes("RESOURCE_EXHAUSTED"), 10000, "the refusal");
    expect(await page.locator("#error").isVisible()).toBe(true);
    expect(await page.locator("#error").textContent()).toMatch(/Could not create a session.*\n.*RESOURCE_EXHAUSTED/s);
  });

  it("reconnects after the server restarts and says the session is gone", async () => {
    const { page } = trainee;
    const port = server.http_port;
    expect(await server.stop()).toBe(0);
    await waitFor(async () => (await probe(page)).connection !== "open", 10000, "the drop");
    expect(await page.locator("#connection").textContent()).toMatch(/connect/);
    server = await startServer(["--max-sessions", "3"], { httpPort: port });
    await waitFor(async () => (await probe(page)).connection === "open", 20000, "the reconnection");
    await waitFor(async () => (await probe(page)).lastError.includes("gone"), 10000, "the gone message");
    expect((await probe(page)).sessionId).toBe("");
    await shot(page, "07-after-restart.png");
  });
});
