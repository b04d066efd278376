// The browser client over HTTPS and WSS: a server given a certificate (scripts/dev-cert.sh) serves
// the page, the WebSocket and the health endpoint over TLS only. A browser that trusts the
// development authority (installed in its NSS database, nothing ignored) opens the preloaded
// session over wss:// and steers it (a grab's forces come back); a browser that does not trust it is refused by Chromium
// itself; cleartext to the port gets no page.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, makeDevCertificate, pressOnBody, probe, startServer, waitFor } from "./harness.mjs";

type Server = { http_port: number; url: string; stop(): Promise<number>; log(): string };
type Browser = { page: Page; problems: string[]; close(): Promise<void> };

let server: Server;
let certificates = "";

beforeAll(async () => {
  certificates = makeDevCertificate("e2e");
  server = (await startServer([], { preload: "default", tlsDir: certificates })) as Server;
});

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  rmSync(certificates, { recursive: true, force: true });
});

describe("the browser client over TLS", () => {
  it("opens the preloaded session over https and wss in a browser that trusts the authority", async () => {
    expect(server.url.startsWith("https://localhost:")).toBe(true);
    expect(server.log()).toMatch(/http_tls=on/);
    const browser = (await launchBrowser("tls", { trustCa: `${certificates}/ca.pem` })) as Browser;
    try {
      const { page } = browser;
      const sockets: string[] = [];
      page.on("websocket", (ws) => sockets.push(ws.url()));
      const response = await page.goto(server.url);
      expect(response?.status()).toBe(200);
      const security = await response!.securityDetails();
      expect(security?.protocol).toMatch(/^TLS 1\.[23]$/);
      expect(security?.subjectName).toBe("localhost");
      expect(security?.issuer).toBe("softbody development CA");
      const p = await waitFor(async () => {
        const s = await probe(page);
        return s.sessionId && s.framesReceived > 5 ? s : null;
      }, 30000, "frames of the preloaded session over wss");
      expect(sockets.length).toBeGreaterThan(0);
      expect(sockets.every((url) => url.startsWith(`wss://localhost:${server.http_port}/`))).toBe(true);
      // Steering over the encrypted WebSocket: a grab pulls the body and its forces come back.
      const { x0, y0 } = await pressOnBody(page, "grab");
      try {
        await page.mouse.move(x0 + 120, y0 - 90, { steps: 20 });
        await waitFor(async () => (await probe(page)).lastForce > 0.5, 20000, "a grab force over wss");
      } finally {
        await page.mouse.up();
      }
      const later = await probe(page);
      expect(later.lastStep).toBeGreaterThan(p.lastStep);
      expect(later.roundTripMs).toBeGreaterThan(0);
      expect(later.roundTripMs).toBeLessThan(1000);
      expect(browser.problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("is refused by a browser that does not trust the certificate", async () => {
    const browser = (await launchBrowser("untrusting")) as Browser;
    try {
      await expect(browser.page.goto(server.url)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await browser.close();
    }
  });

  it("serves no page over cleartext http on the TLS port", async () => {
    const cleartext = server.url.replace("https://", "http://");
    await expect(fetch(cleartext)).rejects.toThrow();
  });
});
