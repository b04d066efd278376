// A newcomer's first contact: ./run.sh starts the server with the default scene preloaded, and
// http://localhost:8080 must show that simulation straight away, not an empty view. Without a
// preloaded session the page opens the only session there is; with several it opens none and
// lets the user choose from the list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Page } from "playwright-core";
import { GatewayClient } from "../src/net/gateway_client";
import { launchBrowser, probe, startServer, waitFor } from "./harness.mjs";

type Server = { http_port: number; url: string; stop(): Promise<number>; log(): string };
type Browser = { page: Page; problems: string[]; close(): Promise<void> };

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser("newcomer");
});

afterAll(async () => {
  await browser?.close();
});

// A node client of the server's WebSocket gateway (lists and creates sessions beside the page).
async function gateway(server: Server): Promise<GatewayClient> {
  const client = new GatewayClient(`ws://127.0.0.1:${server.http_port}/ws`, {},
    WebSocket as unknown as new (url: string) => globalThis.WebSocket);
  await client.connect();
  return client;
}

async function sessionIds(client: GatewayClient): Promise<{ id: string; label: string }[]> {
  const reply = await client.request({ case: "listSessions", value: {} });
  if (reply.body.case !== "sessions") throw new Error("no session list");
  return reply.body.value.sessions.map((s) => ({ id: s.id, label: s.label }));
}

async function create(client: GatewayClient): Promise<string> {
  const reply = await client.request({ case: "createSession", value: { source: { case: "sceneName", value: "default" } } });
  if (reply.body.case !== "session") throw new Error("no session created");
  return reply.body.value.id;
}

// Opens the server's page with no ?session= and waits until it is connected and has settled.
async function open(server: Server): Promise<Page> {
  const { page } = browser;
  await page.goto(server.url);
  await waitFor(async () => (await probe(page)).connection === "open", 30000, "the connection");
  return page;
}

describe("first contact", () => {
  it("opens the preloaded session, even beside others, and shows it moving", async () => {
    const server = (await startServer([], { preload: "default" })) as Server;
    const client = await gateway(server);
    try {
      const other = await create(client);  // an older tab's session must not win
      const preloaded = (await sessionIds(client)).find((s) => s.label === "preloaded");
      expect(preloaded).toBeDefined();
      expect(preloaded!.id).not.toBe(other);
      const page = await open(server);
      const p = await waitFor(async () => {
        const s = await probe(page);
        return s.sessionId && s.framesReceived > 5 ? s : null;
      }, 30000, "frames of the preloaded session");
      expect(p.sessionId).toBe(preloaded!.id);
      expect(new URL(page.url()).searchParams.get("session")).toBe(preloaded!.id);
      expect(await page.locator("#placeholder").isHidden()).toBe(true);
      const later = await waitFor(async () => {
        const s = await probe(page);
        return s.lastStep > p.lastStep ? s : null;
      }, 20000, "the simulation to step");
      expect(later.lastStep).toBeGreaterThan(p.lastStep);
      // Moving on to a session of one's own: the preloaded session's frames still in flight must
      // not be decoded against the new body (its deltas have another reference).
      await page.selectOption("#scene-select", "default");
      await page.click("#create-session");
      const mine = await waitFor(async () => {
        const s = await probe(page);
        return s.sessionId && s.sessionId !== preloaded!.id && s.framesReceived > p.framesReceived + 5 ? s : null;
      }, 30000, "frames of the new session");
      expect(mine.lastError).toBe("");
      expect(browser.problems).toEqual([]);
    } finally {
      client.close();
      // Off the page first: a page left on a stopped server keeps reconnecting, and its refused
      // connections would land in the next test's problems.
      await browser.page.goto("about:blank");
      expect(await server.stop()).toBe(0);
    }
  });

  it("opens the only session when none is preloaded, and none of several", async () => {
    const server = (await startServer([])) as Server;
    const client = await gateway(server);
    try {
      const only = await create(client);
      let page = await open(server);
      const p = await waitFor(async () => {
        const s = await probe(page);
        return s.framesReceived > 0 ? s : null;
      }, 30000, "frames of the only session");
      expect(p.sessionId).toBe(only);

      await create(client);
      page = await open(server);
      // The session list fills in once the page has asked; by then the opening choice is made.
      await waitFor(async () => (await page.locator("#session-list li").count()) === 2, 10000, "the session list");
      await page.waitForTimeout(500);
      expect((await probe(page)).sessionId).toBe("");
      expect(await page.locator("#placeholder").isVisible()).toBe(true);
      expect(browser.problems).toEqual([]);
    } finally {
      client.close();
      // Off the page first: a page left on a stopped server keeps reconnecting, and its refused
      // connections would land in the next test's problems.
      await browser.page.goto("about:blank");
      expect(await server.stop()).toBe(0);
    }
  });
});
