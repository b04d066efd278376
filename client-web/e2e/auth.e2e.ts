// A server that requires tokens, from the browser: the page takes the token from the address's
// fragment (#token=..., never sent to servers), keeps it for the tab, removes it from the address
// bar, and authenticates its WebSocket with it; without one it says how to give it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { buildDir, launchBrowser, probe, startServer, waitFor } from "./harness.mjs";

type Server = { http_port: number; url: string; stop(): Promise<number>; log(): string };
type Browser = { page: Page; problems: string[]; close(): Promise<void> };

let browser: Browser;
let server: Server;
let secret = "";
const dir = mkdtempSync(join(tmpdir(), "softbody-e2e-auth-"));

beforeAll(async () => {
  const made = execFileSync(join(buildDir, "server", "softbody-server"), ["--new-token", "alice:trainee"], {
    encoding: "utf8",
  }).split("\n");
  secret = made[0];
  writeFileSync(join(dir, "tokens.json"), `{"tokens": [${made[1]}]}`);
  // The preloaded session closed to trainees (--preload-audience watch=owner): this suite is about
  // the token; the default audience, which shows it to trainees, is tested over gRPC
  // (Auth.ThePreloadedSessionIsOpenToItsAudience).
  server = (await startServer(["--token-file", join(dir, "tokens.json"), "--preload-audience", "watch=owner"],
    { preload: "default" })) as Server;
  browser = await launchBrowser("auth");
});

afterAll(async () => {
  await browser?.close();
  if (server) expect(await server.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

describe("a server that requires tokens", () => {
  it("tells a visitor without a token how to give one", async () => {
    const { page } = browser;
    await page.goto(server.url);
    await waitFor(async () => (await probe(page)).connection === "open", 30000, "the connection");
    await waitFor(async () => (await probe(page)).lastError.includes("UNAUTHENTICATED"), 10000, "the refusal");
    expect((await probe(page)).lastError).toMatch(/requires an access token: open the page with #token=YOUR_TOKEN/);
    expect((await probe(page)).sessionId).toBe("");
  });

  it("authenticates with the token from the fragment and acts as its owner", async () => {
    const { page } = browser;
    await page.goto(`${server.url}#token=${secret}`);
    await page.reload();  // the token was kept for the tab, not only read once
    await waitFor(async () => (await probe(page)).identity === "alice (trainee)", 30000, "the identity");
    expect(page.url()).not.toContain(secret);  // removed from the address bar
    // The preloaded session belongs to the server (no owner) and is closed to trainees here.
    await page.selectOption("#scene-select", "default");
    await page.click("#create-session");
    const p = await waitFor(async () => {
      const s = await probe(page);
      return s.sessionId && s.framesReceived > 5 ? s : null;
    }, 30000, "frames of alice's session");
    const items = await page.locator("#session-list li").count();
    expect(items).toBe(1);  // only her own
    expect(p.lastError).toBe("");
    expect(server.log()).toContain("event=websocket_authenticated");
    expect(server.log()).not.toContain(secret);
  });
});
