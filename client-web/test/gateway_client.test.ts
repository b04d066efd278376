// The TypeScript gateway client against the real softbody-server (node WebSocket from `ws`):
// requests and replies, refusals as GatewayError with the field at fault, frames decoded by the
// WebAssembly pipeline, and reconnection after the server restarts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { FramePipeline } from "../src/codec/frame_pipeline";
import { GatewayClient, GatewayError, type ConnectionState } from "../src/net/gateway_client";
import { Backoff } from "../src/net/backoff";
import { startServer, waitFor } from "../e2e/harness.mjs";

type Server = { http_port: number; stop(): Promise<number> };
let server: Server;

beforeAll(async () => {
  server = await startServer([], { needClient: false });
});
afterAll(async () => {
  await server?.stop();
});

function connect(port: number, events = {}) {
  return new GatewayClient(
    `ws://127.0.0.1:${port}/ws`,
    events,
    WebSocket as unknown as new (url: string) => globalThis.WebSocket,
    new Backoff(50, 200),
  );
}

describe("GatewayClient", () => {
  it("creates a session, subscribes and decodes its frames", async () => {
    const frames: Uint8Array[] = [];
    const client = connect(server.http_port, { onFrame: (f: { positions: Uint8Array }) => frames.push(f.positions) });
    await client.connect();
    const created = await client.request({
      case: "createSession",
      value: { source: { case: "sceneName", value: "default" }, label: "vitest" },
    });
    expect(created.body.case).toBe("session");
    const id = created.body.case === "session" ? created.body.value.id : "";
    const topology = await client.request({ case: "getTopology", value: { sessionId: id } });
    if (topology.body.case !== "topology") throw new Error("no topology");
    const t = topology.body.value;
    const pipeline = await FramePipeline.create();
    pipeline.reset(t.surfaceVertexIds.length, Uint32Array.from(t.surfaceTriangles));
    await client.request({ case: "subscribe", value: { sessionId: id, maxRateHz: 30 } });
    await waitFor(() => frames.length >= 5, 20000, "5 frames");
    for (const f of frames) expect(pipeline.push(f), pipeline.error).toBe(true);
    pipeline.update(1);
    // The decoded surface lies near its rest shape (the knight stands on its feet).
    const v = 7;
    const rest = t.surfaceVertexIds[v];
    const d = Math.hypot(
      pipeline.positions[3 * v] - t.restPositions[3 * rest],
      pipeline.positions[3 * v + 1] - t.restPositions[3 * rest + 1],
      pipeline.positions[3 * v + 2] - t.restPositions[3 * rest + 2],
    );
    expect(d).toBeLessThan(0.05);
    client.close();
  });

  it("rejects refused requests with the status and the field", async () => {
    const client = connect(server.http_port);
    await client.connect();
    const error = await client
      .request({ case: "updateSettings", value: { sessionId: "nope", settings: { dt: 1 } } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.status).toBe("NOT_FOUND");
    const created = await client.request({ case: "createSession", value: { source: { case: "sceneName", value: "default" }, startPaused: true } });
    const id = created.body.case === "session" ? created.body.value.id : "";
    const bad = await client.request({ case: "updateSettings", value: { sessionId: id, settings: { dt: 1 } } }).catch((e) => e);
    expect(bad.status).toBe("INVALID_ARGUMENT");
    expect(bad.message).toContain("settings.dt");
    client.close();
  });

  it("reconnects by itself after the server restarts", async () => {
    const states: ConnectionState[] = [];
    const client = connect(server.http_port, { onState: (s: ConnectionState) => states.push(s) });
    await client.connect();
    const port = server.http_port;
    await server.stop();
    await waitFor(() => client.state !== "open", 10000, "the drop");
    await expect(client.request({ case: "listScenes", value: {} })).rejects.toThrow(/not connected/);
    server = await startServer([], { needClient: false, httpPort: port });
    await waitFor(() => client.state === "open", 15000, "the reconnection");
    const scenes = await client.request({ case: "listScenes", value: {} });
    expect(scenes.body.case).toBe("scenes");
    expect(states).toContain("closed");
    client.close();
  });
});
