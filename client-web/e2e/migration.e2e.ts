// Sessions that outlive their host, seen from the browser: a session moved on purpose
// (`softbody-client migrate`) is followed to the new host with the trainee's grab held, and a
// session drained to the snapshot store by SIGTERM is resumed by the next server behind the same
// address. Both keep their id and continue their step count (nothing restarts from step 0).
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { buildDir, launchBrowser, pressOnBody, probe, startServer, waitFor } from "./harness.mjs";

type Server = { grpc_port: number; http_port: number; url: string; stop(): Promise<number>; log(): string };
type Browser = { page: Page; problems: string[]; close(): Promise<void> };

const run = promisify(execFile);
const cli = join(buildDir, "client-cpp", "softbody-client");

let browser: Browser;
const servers: Server[] = [];
const store = mkdtempSync(join(tmpdir(), "softbody-e2e-store-"));

async function start(args: string[], options = {}): Promise<Server> {
  const server = (await startServer(args, options)) as Server;
  servers.push(server);
  return server;
}

async function stop(server: Server): Promise<number> {
  servers.splice(servers.indexOf(server), 1);
  return server.stop();
}

// Creates a session from the UI and waits for its frames; returns its id.
async function createFromUi(page: Page, url: string): Promise<string> {
  await page.goto(url);
  await waitFor(async () => (await probe(page)).connection === "open", 30000, "the connection");
  await waitFor(async () => (await page.locator("#scene-select option").count()) >= 3, 10000, "the scene list");
  await page.selectOption("#scene-select", "default");
  await page.click("#create-session");
  const p = await waitFor(async () => {
    const s = await probe(page);
    return s.sessionId && s.framesReceived > 10 ? s : null;
  }, 30000, "frames of the new session");
  return p.sessionId;
}

// Samples the page's step counter every 50 ms while `during` runs; the steps it saw, in order.
async function stepsWhile(page: Page, during: () => Promise<void>): Promise<number[]> {
  const steps: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const step = (await probe(page)).lastStep;
      if (step >= 0) steps.push(step);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    await during();
  } finally {
    sampling = false;
    await sampler;
  }
  return steps;
}

const nonDecreasing = (steps: number[]) => steps.every((s, i) => i === 0 || s >= steps[i - 1]);

beforeAll(async () => {
  browser = await launchBrowser("migration");
});

afterAll(async () => {
  await browser?.close();
  for (const server of [...servers]) await stop(server);
  rmSync(store, { recursive: true, force: true });
});

describe("a session moving between hosts", () => {
  it("is followed to the host it migrated to, with the grab held", async () => {
    const { page } = browser;
    const a = await start([]);
    // The page stays on A's origin and opens B's WebSocket: B must allow that origin.
    const b = await start(["--allowed-origin", `http://127.0.0.1:${a.http_port}`], { needClient: false });
    const id = await createFromUi(page, a.url);

    const { x0, y0 } = await pressOnBody(page, "grab");
    try {
      await page.mouse.move(x0 + 140, y0 - 100, { steps: 20 });
      await waitFor(async () => (await probe(page)).lastForce > 0.5, 20000, "a grab force on A");
      const before = (await probe(page)).lastStep;

      const steps = await stepsWhile(page, async () => {
        const { stdout } = await run(cli, ["--server", `127.0.0.1:${a.grpc_port}`, "migrate", id, "--to", `127.0.0.1:${b.grpc_port}`]);
        expect(stdout).toContain(id);
        await waitFor(async () => (await probe(page)).server.includes(`:${b.http_port}/`), 20000, "the page to follow to B");
        await page.evaluate(() => ((window as unknown as { softbody: { lastForce: number } }).softbody.lastForce = 0));
        const after = (await probe(page)).framesReceived;
        await waitFor(async () => (await probe(page)).framesReceived > after + 10, 20000, "frames from B");
        // The held grab still pulls: the next commands attach the tool on B.
        await waitFor(async () => (await probe(page)).lastForce > 0.5, 20000, "a grab force on B");
      });
      const p = await probe(page);
      expect(p.sessionId).toBe(id);
      expect(steps[0]).toBeGreaterThanOrEqual(before);
      expect(nonDecreasing(steps)).toBe(true);  // continued from the snapshot, not restarted
      expect(p.lastStep).toBeGreaterThan(before);
      expect(new URL(page.url()).searchParams.get("server")).toBe(`127.0.0.1:${b.http_port}`);
      expect(new URL(page.url()).searchParams.get("session")).toBe(id);
    } finally {
      await page.mouse.up();
    }
    // B holds the session now; A only remembers where it went.
    const { stdout: onB } = await run(cli, ["--server", `127.0.0.1:${b.grpc_port}`, "list"]);
    expect(onB).toContain(id);
    const { stdout: onA } = await run(cli, ["--server", `127.0.0.1:${a.grpc_port}`, "list"]);
    expect(onA).not.toContain(id);
    expect(browser.problems).toEqual([]);
    // Leave the page before its host goes: a page still open would try to reconnect to B, and
    // Chromium's "connection refused" line could land in the next test's console (seen on a
    // busy machine).
    await page.goto("about:blank");
    await stop(a);
    await stop(b);
  });

  it("is resumed from the snapshot store after its host drains and another takes its address", async () => {
    const { page } = browser;
    const first = await start(["--snapshot-store", store]);
    const id = await createFromUi(page, first.url);
    const before = (await probe(page)).lastStep;

    expect(browser.problems).toEqual([]);
    let gap: string[] = [];
    const steps = await stepsWhile(page, async () => {
      expect(await stop(first)).toBe(0);
      expect(readdirSync(store).some((f) => f.startsWith(id))).toBe(true);  // drained, not lost
      await waitFor(async () => (await probe(page)).connection !== "open", 10000, "the drop");
      // The next host behind the same address (a restarted pod, or the entry Service's next pod).
      await start(["--snapshot-store", store], { httpPort: first.http_port });
      await waitFor(async () => (await probe(page)).connection === "open", 20000, "the reconnection");
      // While no host listens, a reconnection attempt is refused and Chromium itself logs that to
      // the console (page script cannot silence it). Those lines, to this address and only before
      // the reconnection succeeded, are the gap a user sees as "reconnecting"; anything else is not.
      gap = browser.problems.splice(0);
      const after = (await probe(page)).framesReceived;
      await waitFor(async () => (await probe(page)).framesReceived > after + 10, 30000, "frames of the restored session");
    });
    const p = await probe(page);
    expect(p.sessionId).toBe(id);
    expect(p.lastError).toBe("");
    expect(steps[0]).toBeGreaterThanOrEqual(before);
    expect(nonDecreasing(steps)).toBe(true);
    expect(p.lastStep).toBeGreaterThan(before);
    expect(readdirSync(store).some((f) => f.startsWith(id))).toBe(false);  // claimed by the new host
    const refused = new RegExp(`^console: WebSocket connection to 'ws://127\\.0\\.0\\.1:${first.http_port}/[^']*' failed: .*ERR_CONNECTION_REFUSED`);
    expect(gap.filter((line) => !refused.test(line))).toEqual([]);
    expect(browser.problems).toEqual([]);
  });
});
