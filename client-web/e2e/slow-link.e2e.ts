// The browser over a slow link (issue 22): through a proxy that adds 100 ms of round trip, a
// trainee dragging a grab sees the tool and its force follow the cursor in the very next frame,
// drawn from the page's local model, not a round trip later when the server's answer arrives.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, pressOnBody, probe, startDelayProxy, startServer, waitFor } from "./harness.mjs";

type Server = { http_port: number; url: string; stop(): Promise<number> };
type Browser = { page: Page; problems: string[]; close(): Promise<void> };
type Proxy = { url: string; close(): Promise<void> };

let server: Server;
let proxy: Proxy;
let browser: Browser;

beforeAll(async () => {
  server = (await startServer(["--max-sessions", "2"])) as Server;
  proxy = (await startDelayProxy(server.http_port, 100)) as Proxy;
  browser = (await launchBrowser("slow-link")) as Browser;
});

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  if (server) expect(await server.stop()).toBe(0);
});

const nextFrame = (page: Page) =>
  page.evaluate(() => new Promise<number>((r) => requestAnimationFrame(() => requestAnimationFrame((t) => r(t)))));

describe("browser over a 100 ms link", () => {
  it("draws the dragged tool and its force at the cursor in the next frame", async () => {
    const { page } = browser;
    await page.goto(proxy.url);
    await waitFor(async () => (await probe(page)).connection === "open", 30000, "the connection");
    await page.selectOption("#scene-select", "default");
    await page.click("#create-session");
    await waitFor(async () => {
      const s = await probe(page);
      return s.sessionId && s.framesReceived > 10 ? s : null;
    }, 30000, "frames of the new session");

    const { box, x0, y0 } = await pressOnBody(page, "grab");
    try {
      await page.mouse.move(x0 + 60, y0 - 40, { steps: 6 });
      await waitFor(async () => (await probe(page)).drawnForce > 0.1, 20000, "a grab force drawn");
      const rtt = (await probe(page)).roundTripMs;
      expect(rtt).toBeGreaterThanOrEqual(100);  // the proxy is in the path
      for (let i = 1; i <= 4; ++i) {
        // Held still long enough for the server's answers to catch up with the cursor ...
        await page.waitForTimeout(400);
        const x = x0 + 60 + 30 * i;
        const y = y0 - 40 - 15 * i;
        await page.mouse.move(x, y);
        await nextFrame(page);
        const after = await probe(page);
        // ... the tool is drawn where the cursor is, in the first frame after the move ...
        expect(after.toolDrawLagFrames).toBe(1);
        expect(Math.hypot(after.toolOnScreen.x - (x - box.x), after.toolOnScreen.y - (y - box.y))).toBeLessThan(1.5);
        // ... and so is its force, from the page's model: in that first frame the server has
        // answered only poses before the move (commands go once per frame, so none sent after it
        // is answered yet), and the drawn force is already the pull at the new, farther cursor:
        // larger than the answered one (drawing the answered force would make them equal).
        const m = after.aroundMove;
        expect(m.answeredClientTimeS).toBeLessThan(m.moveTimeS);
        expect(m.drawnAfter - m.answeredAfter).toBeGreaterThan(0.05);
        expect(m.drawnAfter - m.drawnBefore).toBeGreaterThan(0.05);
      }
    } finally {
      await page.mouse.up();
    }
    expect((await probe(page)).lastError).toBe("");
    expect(browser.problems).toEqual([]);
  });
});
