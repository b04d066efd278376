// The browser client: connects to the gateway, lists scenes and sessions, joins one (topology,
// then a state subscription), renders it at display rate with the WebAssembly pipeline, sends the
// mouse tools' commands, and drives the simulation controls. `?server=host:port` connects to
// another server; `?session=ID` joins a session at once (a link an instructor can share).
import * as THREE from "three";
import type { SessionInfo, ToolMeshEntry, Topology } from "./gen/softbody/v1/session_pb";
import { ControlAction, SessionStatus } from "./gen/softbody/v1/session_pb";
import { StreamEnded_Stream, type StreamEnded } from "./gen/softbody/v1/gateway_pb";
import type { SessionMoved } from "./gen/softbody/v1/cluster_pb";
import type { StateFrame } from "./gen/softbody/v1/state_pb";
import { ContactModel, type ForceReply } from "./gen/softbody/v1/interact_pb";
import { FramePipeline } from "./codec/frame_pipeline";
import { ToolContactSolver } from "./codec/tool_contact";
import { couplingForce } from "./tools/coupling_force";
import { FrameClock } from "./codec/frame_clock";
import { GatewayClient, GatewayError, type ConnectionState } from "./net/gateway_client";
import { BodyView, type ColorMode } from "./render/view";
import { meshObject } from "./render/obstacles";
import { type ContactChoice, ToolController, type ToolKind } from "./tools/tool_controller";
import { Hud } from "./ui/hud";
import { drawLegend } from "./ui/legend";
import { $, button, input } from "./ui/dom";
import { SettingsPanel } from "./ui/settings_panel";
import { SubscriptionFilter } from "./net/subscription_filter";


// The bearer token for servers that require one (docs/security.md): given once in the address's
// fragment (#token=..., which browsers never send to servers or write to their logs), then kept
// for this tab in sessionStorage and removed from the address bar.
function accessToken(): string | null {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = fragment.get("token");
  if (given) {
    sessionStorage.setItem("softbody-token", given);
    fragment.delete("token");
    const address = new URL(location.href);
    address.hash = fragment.toString();
    history.replaceState(null, "", address);
  }
  return sessionStorage.getItem("softbody-token");
}

// A tool surface drawn at the cursor: the poke sphere's colour, its faces flat.
const TOOL_MATERIAL = new THREE.MeshStandardMaterial({ color: 0xffaa33, transparent: true, opacity: 0.7, flatShading: true });

// softbody-server labels the session it starts with --preload so (docs/api.md).
const PRELOADED_LABEL = "preloaded";

const TOOL_HINTS: Record<ToolKind, string> = {
  orbit: "Left drag orbits, right drag pans, wheel zooms.",
  grab: "Press on the body and drag to pull it. Right drag orbits.",
  poke: "Hold the left button to push with the sphere; the wheel sets its depth. Right drag orbits.",
};

// What the end-to-end tests and a curious user can read from the console: window.softbody.
export interface AppProbe {
  connection: ConnectionState;
  identity: string;  // "subject (role)" the server accepted the token as; "" without one
  sessionId: string;
  framesReceived: number;
  lastStep: number;
  renderFps: number;
  lastError: string;
  server: string;  // the gateway URL the page is connected to (changes when a session moves)
  lastForce: number;
  // |force| of a constraint poke re-solved in the page for the sphere's position this frame [N]
  localForce: number;
  // Contact problems loaded, and how many came with the compact compliance (float32 upper
  // triangle, which the page asks for)
  contactProblems: number;
  contactFriction: number[];  // the last contact problem's Coulomb coefficients, per contact
  compactContactProblems: number;
  // |force| drawn this frame: a grab's from the last reply's coupling model at the cursor [N]
  drawnForce: number;
  // Where the tool is drawn this frame (canvas pixels; null: not drawn), and how many frames
  // after the pointer's last move it was first drawn there (1: in the very next frame).
  toolOnScreen: { x: number; y: number } | null;
  toolDrawLagFrames: number;
  // Client time [s] of the newest reply's command: the pose the server has answered so far.
  answeredClientTimeS: number;
  // The contact model the server gave the poke in its last reply (auto resolves per session).
  appliedContact: "constraint" | "penalty" | null;
  // The forces drawn and answered in the last frame before the pointer's latest move and in the
  // first frame after it (no command sent after the move can have been answered by then).
  aroundMove: {
    moveTimeS: number;
    drawnBefore: number;
    answeredBefore: number;
    drawnAfter: number;
    answeredAfter: number;
    answeredClientTimeS: number;
  } | null;
  roundTripMs: number;
  maxDisplacement: number;  // largest |x - rest| on screen [m]
  bodyOnScreen: { x: number; y: number } | null;  // a canvas point on the body
  // The scene's obstacles drawn, and where their reference points are drawn this frame [m]
  obstacles: number;
  obstaclePositions: Array<{ x: number; y: number; z: number }>;
  floorPatches: Array<{ x: number; y: number; z: number }>;  // half-spaces' patch centres [m]
  pokeTool: string;  // what the poke presses with: "sphere" or a tool surface's name
}

export class App {
  private client: GatewayClient;
  private readonly view: BodyView;
  private readonly tools: ToolController;
  private readonly hud: Hud;
  private readonly clock = new FrameClock();
  private readonly subscription = new SubscriptionFilter();
  private pipeline!: FramePipeline;
  private contactSolver: ToolContactSolver | null = null;
  private movesSeen = 0;
  private previousFrame = { drawn: 0, answered: 0 };
  private sessionId = "";
  private info: SessionInfo | null = null;
  private readonly settings: SettingsPanel;
  private lastForce: ForceReply | null = null;
  private lastLegend = 0;
  private wasDisconnected = false;
  private errorTimer: ReturnType<typeof setTimeout> | null = null;
  private toolMeshes = new Map<string, ToolMeshEntry>();  // the server's tool surfaces by name
  readonly probe: AppProbe = {
    connection: "connecting",
    sessionId: "",
    framesReceived: 0,
    lastStep: -1,
    renderFps: 0,
    lastError: "",
    server: "",
    lastForce: 0,
    localForce: 0,
    contactProblems: 0,
    compactContactProblems: 0,
    contactFriction: [],
    drawnForce: 0,
    toolOnScreen: null,
    toolDrawLagFrames: 0,
    answeredClientTimeS: 0,
    appliedContact: null,
    aroundMove: null,
    roundTripMs: NaN,
    maxDisplacement: 0,
    bodyOnScreen: null,
    identity: "",
    obstacles: 0,
    obstaclePositions: [],
    floorPatches: [],
    pokeTool: "sphere",
  };

  constructor() {
    const params = new URLSearchParams(location.search);
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.client = this.connectTo(`${scheme}://${params.get("server") ?? location.host}/ws`);
    this.view = new BodyView($("view") as HTMLCanvasElement);
    this.tools = new ToolController(this.view);
    this.hud = new Hud($("hud"), $("chart") as HTMLCanvasElement);
    this.settings = new SettingsPanel(
      $("settings-controls"),
      async (settings) => {
        if (!this.sessionId) return;
        const reply = await this.client.request({ case: "updateSettings", value: { sessionId: this.sessionId, settings } });
        if (reply.body.case === "session") this.applyInfo(reply.body.value);
      },
      (what, error) => {
        this.showError(`The server refused the ${what}.`, error);
        if (this.info) this.applyInfo(this.info);
      },
    );
    // Computed when read (a pass over the vertices), not on every displayed frame.
    Object.defineProperty(this.probe, "identity", {
      enumerable: true,
      get: () => (this.client.identity ? `${this.client.identity.subject} (${this.client.identity.role})` : ""),
    });
    Object.defineProperty(this.probe, "bodyOnScreen", { enumerable: true, get: () => this.view.bodyPointOnScreen() });
    Object.defineProperty(this.probe, "pokeTool", { enumerable: true, get: () => this.tools.pokeTool });
    Object.defineProperty(this.probe, "obstacles", { enumerable: true, get: () => this.view.obstacles.count });
    Object.defineProperty(this.probe, "obstaclePositions", { enumerable: true, get: () => this.view.obstacles.positions() });
    Object.defineProperty(this.probe, "floorPatches", { enumerable: true, get: () => this.view.obstacles.halfSpaceCentres() });
  }

  // A gateway connection whose events reach the page only while it is the current one (after a
  // session moved, the old host's late events must not touch the new session).
  private connectTo(url: string): GatewayClient {
    const client: GatewayClient = new GatewayClient(url, {
      onState: (state, detail) => client === this.client && this.onConnection(state, detail),
      onFrame: (frame, bytes) => client === this.client && this.onFrame(frame, bytes),
      onForce: (reply) => client === this.client && this.onForce(reply),
      onStreamEnded: (ended) => client === this.client && this.onStreamEnded(ended),
    });
    client.token = accessToken();
    this.probe.server = url;
    return client;
  }

  private onStreamEnded(ended: StreamEnded): void {
    if (ended.sessionId !== this.sessionId) return;
    if (ended.stream !== StreamEnded_Stream.STATE) return;
    if (ended.moved?.httpUrl) {
      void this.follow(ended.moved);
      return;
    }
    if (ended.code === 14) {
      // The server is going away (drained to the snapshot store, or restarting): keep the
      // session and ask for it again after the reconnect; a host behind the same address
      // restores it from the store.
      this.showError(`The server closed the stream (${ended.message}); reconnecting…`);
      return;
    }
    this.showError(`The session ended: ${ended.message}`);
    this.clearSession();
  }

  // The session went to another host (migration): connect to that host's gateway, join the same
  // session there, and put the host in the address bar so a reload or a shared link finds it.
  private async follow(moved: SessionMoved): Promise<void> {
    let target: URL;
    try {
      target = new URL(moved.httpUrl);
    } catch {
      this.showError(`Session ${moved.sessionId} moved to an unusable address '${moved.httpUrl}'.`);
      return;
    }
    const scheme = target.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${target.host}/ws`;
    if (url === this.client.url) return;  // already there
    this.showError(`Session ${moved.sessionId} moved to ${target.host} (${moved.reason || "moved"}); following it…`);
    this.sessionId = moved.sessionId;
    const old = this.client;
    this.client = this.connectTo(url);
    old.close();
    this.wasDisconnected = true;  // the new connection's first open rejoins the session
    const address = new URL(location.href);
    if (target.host === location.host) address.searchParams.delete("server");
    else address.searchParams.set("server", target.host);
    history.replaceState(null, "", address);
    await this.client.connect();
  }

  async start(): Promise<void> {
    this.pipeline = await FramePipeline.create();
    this.contactSolver = await ToolContactSolver.create();
    this.bindControls();
    requestAnimationFrame((t) => this.animate(t));
    await this.client.connect();
    const wanted = new URLSearchParams(location.search).get("session");
    if (wanted) {
      await this.join(wanted);
      return;
    }
    // A newcomer's first sight should be the simulation, not an empty view: open the session
    // the server preloaded, or the only one there is. With several, the list lets them choose.
    const opening = await this.openingSession();
    if (opening) await this.join(opening).catch((e) => this.showError(`Could not join ${opening}.`, e));
  }

  /** The session to open when the address names none: the preloaded one, else the only one. */
  private async openingSession(): Promise<string | null> {
    try {
      const reply = await this.client.request({ case: "listSessions", value: {} });
      if (reply.body.case !== "sessions") return null;
      const sessions = reply.body.value.sessions;
      const preloaded = sessions.find((s) => s.label === PRELOADED_LABEL);
      if (preloaded) return preloaded.id;
      return sessions.length === 1 ? sessions[0].id : null;
    } catch {
      return null;  // the session list shows what went wrong when it refreshes
    }
  }

  // --- connection and data ---

  private onConnection(state: ConnectionState, detail: string): void {
    this.probe.connection = state;
    const element = $("connection");
    element.dataset.state = state;
    element.textContent =
      state === "open" ? "connected" : state === "connecting" ? `connecting… ${detail}` : detail || "disconnected";
    if (state !== "open") {
      this.wasDisconnected = true;
      return;
    }
    void this.refreshScenes();
    void this.refreshSessions();
    if (this.wasDisconnected && this.sessionId) void this.rejoin();
    this.wasDisconnected = false;
  }

  private async rejoin(): Promise<void> {
    const id = this.sessionId;
    try {
      await this.join(id);
      this.showError("");
    } catch (e) {
      this.clearSession();
      this.showError(`Session ${id} is gone after the reconnect (the server restarted?). Create or join a session.`, e);
    }
  }

  private onFrame(frame: StateFrame, bytes: number): void {
    if (!this.sessionId || !this.subscription.accepts(frame)) return;
    if (!this.pipeline.push(frame.positions)) {
      this.showError(`Could not decode a state frame: ${this.pipeline.error}; resubscribing.`);
      void this.subscribe(this.sessionId);
      return;
    }
    this.view.obstacles.framePoses(frame.obstaclePoses);
    const now = performance.now();
    this.clock.arrived(now);
    const s = frame.stats;
    this.hud.frame(now, {
      step: Number(s?.step ?? 0),
      stepMs: s?.stepMs ?? 0,
      iterations: s?.iterations ?? 0,
      residual: s?.residual ?? 0,
      realTimeFactor: s?.realTimeFactor ?? 0,
      invertedElements: s?.invertedElements ?? 0,
      frameBytes: bytes,
      dropped: frame.framesDropped,
    });
    this.probe.framesReceived = this.hud.framesReceived;
    this.probe.lastStep = Number(s?.step ?? -1);
  }

  private onForce(reply: ForceReply): void {
    this.hud.roundTrip(performance.now() - reply.clientTimeS * 1000);
    this.probe.roundTripMs = this.hud.roundTripMedian;
    // Twice the median: a bound on the round trips the loop meets, with their spread.
    if (Number.isFinite(this.probe.roundTripMs)) this.tools.linkDelayS = (2 * this.probe.roundTripMs) / 1000;
    if (reply.rejected) {
      this.showError(`Tool command rejected: ${reply.rejected}`);
      return;
    }
    this.lastForce = reply;
    this.probe.answeredClientTimeS = reply.clientTimeS;
    if (reply.contactModel === ContactModel.CONSTRAINT || reply.contactModel === ContactModel.PENALTY) {
      const applied = reply.contactModel === ContactModel.CONSTRAINT ? "constraint" : "penalty";
      // A poke the server resolves as a penalty spring (auto on a session whose step has no
      // constraint contact, or after its solver changed) is not drawn from a contact problem.
      if (applied === "penalty") this.contactSolver?.clear();
      this.tools.appliedContact = applied;
      this.hud.contactModel = applied;
      this.probe.appliedContact = applied;
    }
    if (reply.contactProblem && reply.contactModel !== ContactModel.PENALTY &&
        this.contactSolver?.load(reply.contactProblem)) {
      ++this.probe.contactProblems;
      this.probe.contactFriction = Array.from(reply.contactProblem.friction);
      if (reply.contactProblem.complianceUpper.length > 0) ++this.probe.compactContactProblems;
    }
    const f = reply.force;
    this.probe.lastForce = f ? Math.hypot(f.x, f.y, f.z) : 0;
  }

  private animate(now: number): void {
    requestAnimationFrame((t) => this.animate(t));
    if (this.view.hasBody && this.pipeline.frames > 0) {
      const alpha = this.clock.alpha(now);
      this.pipeline.update(alpha);
      this.view.obstacles.update(alpha);
      this.view.updateBody();
      this.probe.maxDisplacement = this.view.largestDisplacement;
    }
    if (this.sessionId) {
      const command = this.tools.command(this.sessionId, now);
      // Commands wait for the socket only when it keeps up; a stalled one drops them.
      if (command && this.client.bufferedAmount < 65536) this.client.sendTool(command);
    }
    // A constraint poke's force where the sphere is now, from the last step's contact problem.
    const poke = this.tools.constraintContact ? this.tools.pokePosition : null;
    if (poke && this.contactSolver && !this.contactSolver.empty) {
      const f = this.contactSolver.force(poke.x, poke.y, poke.z);
      this.probe.localForce = Math.hypot(f.x, f.y, f.z);
    }
    // A grab's force where the cursor is now, from the last reply's coupling model: the arrow
    // follows the hand in this frame however late the server's answer comes.
    const model = this.tools.grabbing ? this.lastForce?.model : undefined;
    const force = model ? couplingForce(model, this.tools.toolPosition) : null;
    this.probe.drawnForce = force ? Math.hypot(force.x, force.y, force.z) : 0;
    this.tools.updateVisuals(force);
    this.probe.toolOnScreen = this.tools.drawnOnScreen;
    this.probe.toolDrawLagFrames = this.tools.drawLagFrames;
    if (this.tools.moveCount !== this.movesSeen) {
      this.movesSeen = this.tools.moveCount;
      this.probe.aroundMove = {
        moveTimeS: this.tools.lastMoveTimeS,
        drawnBefore: this.previousFrame.drawn,
        answeredBefore: this.previousFrame.answered,
        drawnAfter: this.probe.drawnForce,
        answeredAfter: this.probe.lastForce,
        answeredClientTimeS: this.probe.answeredClientTimeS,
      };
    }
    this.previousFrame = { drawn: this.probe.drawnForce, answered: this.probe.lastForce };
    this.view.render();
    this.hud.rendered(now);
    this.hud.draw(now);
    this.probe.renderFps = this.hud.renderFps;
    if (now - this.lastLegend > 250) {
      this.lastLegend = now;
      const legend = $("legend") as HTMLCanvasElement;
      legend.hidden = !this.view.hasBody || this.view.colorMode !== "displacement";
      if (!legend.hidden) drawLegend(legend, this.view.displacementRange, "|u| mm");
    }
  }

  // --- sessions ---

  private async refreshScenes(): Promise<void> {
    try {
      const reply = await this.client.request({ case: "listScenes", value: {} });
      if (reply.body.case !== "scenes") return;
      this.settings.describe(reply.body.value.settings);
      const select = $("scene-select") as HTMLSelectElement;
      const current = select.value;
      select.replaceChildren(
        ...reply.body.value.scenes.map((s) => {
          const option = document.createElement("option");
          option.value = s.name;
          option.textContent = s.name;
          option.title = s.description;
          return option;
        }),
      );
      select.value = current && [...select.options].some((o) => o.value === current) ? current : "default";
      if (!select.value && select.options.length) select.selectedIndex = 0;
      this.toolMeshes = new Map(reply.body.value.toolMeshes.map((t) => [t.name, t]));
      const shapes = $("poke-shape") as HTMLSelectElement;
      const chosen = shapes.value;
      shapes.replaceChildren(
        new Option("sphere", ""),
        ...reply.body.value.toolMeshes.map((t) => Object.assign(new Option(t.name, t.name), { title: t.description })),
      );
      shapes.value = this.toolMeshes.has(chosen) ? chosen : "";
    } catch (e) {
      this.showError("Could not list scenes.", e);
    }
  }

  private async refreshSessions(): Promise<void> {
    if (this.client.state !== "open") return;
    try {
      const reply = await this.client.request({ case: "listSessions", value: {} });
      if (reply.body.case !== "sessions") return;
      const list = $("session-list");
      list.replaceChildren(
        ...reply.body.value.sessions.map((s) => {
          const item = document.createElement("li");
          item.dataset.sessionId = s.id;
          item.classList.toggle("joined", s.id === this.sessionId);
          const name = document.createElement("span");
          const paused = s.status === SessionStatus.PAUSED ? " · paused" : "";
          name.textContent = `${s.label || s.sceneName} (${s.sceneName}, ${s.numVertices} v${paused})`;
          name.title = s.id;
          if (s.warnings.length > 0) {
            // What the server noticed about the session's scene (a mesh with slivers).
            const mark = document.createElement("span");
            mark.className = "session-warning";
            mark.textContent = " ⚠";
            mark.title = s.warnings.join("\n");
            name.append(mark);
          }
          const join = document.createElement("button");
          join.className = "small";
          join.textContent = s.id === this.sessionId ? "joined" : "Join";
          join.disabled = s.id === this.sessionId;
          join.addEventListener("click", () => void this.join(s.id).catch((e) => this.showError(`Could not join ${s.id}.`, e)));
          item.append(name, join);
          return item;
        }),
      );
    } catch (e) {
      if (e instanceof GatewayError && e.code === 14) return;  // disconnected: the status says so
      this.showError("Could not list sessions.", e);
    }
  }

  private async createSession(): Promise<void> {
    const scene = ($("scene-select") as HTMLSelectElement).value;
    const create = button("create-session");
    create.disabled = true;
    create.textContent = "Creating…";
    try {
      const reply = await this.client.request({ case: "createSession", value: { source: { case: "sceneName", value: scene }, label: `${scene} (browser)` } });
      if (reply.body.case === "session") await this.join(reply.body.value.id);
    } catch (e) {
      this.showError(`Could not create a session of '${scene}'.`, e);
    } finally {
      create.disabled = false;
      create.textContent = "Create";
    }
  }

  async join(id: string): Promise<void> {
    let reply;
    try {
      reply = await this.client.request({ case: "getTopology", value: { sessionId: id } });
    } catch (e) {
      // A link to the host a session left: the old host says where it went.
      if (e instanceof GatewayError && e.moved?.httpUrl) return this.follow(e.moved);
      throw e;
    }
    if (reply.body.case !== "topology") throw new Error("unexpected reply to getTopology");
    this.setBody(reply.body.value, id === this.sessionId);
    this.sessionId = id;
    this.probe.sessionId = id;
    await this.subscribe(id);
    const url = new URL(location.href);
    url.searchParams.set("session", id);
    history.replaceState(null, "", url);
    $("placeholder").hidden = true;
    void this.refreshSessions();
  }

  private async subscribe(id: string): Promise<void> {
    this.subscription.switched(this.pipeline.vertexCount);
    const reply = await this.client.request({ case: "subscribe", value: { sessionId: id, maxRateHz: 60 } });
    if (reply.body.case === "session") this.applyInfo(reply.body.value);
  }

  private setBody(topology: Topology, rejoined: boolean): void {
    const ids = Uint32Array.from(topology.surfaceVertexIds);
    const triangles = Uint32Array.from(topology.surfaceTriangles);
    const rest = new Float32Array(3 * ids.length);
    ids.forEach((v, i) => {
      for (let k = 0; k < 3; ++k) rest[3 * i + k] = topology.restPositions[3 * v + k];
    });
    this.pipeline.reset(ids.length, triangles);
    this.view.setBody(triangles, rest, this.pipeline.positions, this.pipeline.normals);
    const b = topology.restBounds;
    const size = b?.min && b?.max ? Math.hypot(b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z) : 0.1;
    const center = b?.min && b?.max
      ? { x: (b.min.x + b.max.x) / 2, y: (b.min.y + b.max.y) / 2, z: (b.min.z + b.max.z) / 2 }
      : { x: 0, y: 0, z: 0 };
    this.view.obstacles.set(topology.obstacles, center, size);
    this.tools.setBody(ids, size, rejoined);
    if (!rejoined) {
      // Another session: its solver decides afresh what an auto poke becomes.
      this.tools.appliedContact = null;
      this.hud.contactModel = null;
      this.contactSolver?.clear();
    }
  }

  private async leave(): Promise<void> {
    if (!this.sessionId) return;
    try {
      await this.client.request({ case: "unsubscribe", value: {} });
      await this.client.request({ case: "releaseTool", value: {} });
    } catch {
      // Leaving a connection that dropped needs nothing more.
    }
    this.clearSession();
    void this.refreshSessions();
  }

  private clearSession(): void {
    this.sessionId = "";
    this.probe.sessionId = "";
    this.info = null;
    this.view.clearBody();
    $("placeholder").hidden = false;
    $("session-name").textContent = "";
    const url = new URL(location.href);
    url.searchParams.delete("session");
    history.replaceState(null, "", url);
    this.applyInfo(null);
  }

  // --- controls ---

  private applyInfo(info: SessionInfo | null): void {
    this.info = info;
    const joined = info !== null;
    const paused = info?.status === SessionStatus.PAUSED;
    button("pause").disabled = !joined || paused;
    button("resume").disabled = !joined || !paused;
    button("step").disabled = !joined || !paused;
    button("reset").disabled = !joined;
    button("leave-session").disabled = !joined;
    this.settings.show(info?.settings ?? null);
    if (!info) return;
    $("session-name").textContent = `· ${info.label || info.sceneName}${paused ? " (paused)" : ""}`;
  }

  private async control(action: ControlAction): Promise<void> {
    if (!this.sessionId) return;
    try {
      const reply = await this.client.request({ case: "controlSession", value: { sessionId: this.sessionId, action, steps: 1 } });
      if (reply.body.case === "session") this.applyInfo(reply.body.value);
      void this.refreshSessions();
    } catch (e) {
      this.showError(`${ControlAction[action].toLowerCase()} failed.`, e);
    }
  }

  private bindControls(): void {
    button("create-session").addEventListener("click", () => void this.createSession());
    button("refresh-sessions").addEventListener("click", () => void this.refreshSessions());
    button("leave-session").addEventListener("click", () => void this.leave());
    button("pause").addEventListener("click", () => void this.control(ControlAction.PAUSE));
    button("resume").addEventListener("click", () => void this.control(ControlAction.RESUME));
    button("step").addEventListener("click", () => void this.control(ControlAction.STEP));
    button("reset").addEventListener("click", () => void this.control(ControlAction.RESET));
    input("wireframe").addEventListener("change", (e) => (this.view.wireframe = (e.target as HTMLInputElement).checked));
    ($("color-mode") as HTMLSelectElement).addEventListener("change", (e) => {
      this.view.colorMode = (e.target as HTMLSelectElement).value as ColorMode;
    });
    for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="tool"]')) {
      radio.addEventListener("change", () => {
        const kind = radio.value as ToolKind;
        this.tools.setKind(kind);
        $("tool-hint").textContent = TOOL_HINTS[kind];
      });
    }
    ($("contact-model") as HTMLSelectElement).addEventListener("change", (e) => {
      this.tools.contact = (e.target as HTMLSelectElement).value as ContactChoice;
      // Until the server says what it made of the new choice, nothing of the old one is drawn.
      this.tools.appliedContact = null;
      this.hud.contactModel = null;
      this.probe.appliedContact = null;
      this.contactSolver?.clear();
    });
    input("contact-mu").addEventListener("change", (e) => {
      // The server takes [0, 10]; what the field cannot hold it clamps, so what is sent is shown.
      const field = e.target as HTMLInputElement;
      const mu = Math.min(10, Math.max(0, Number.isFinite(field.valueAsNumber) ? field.valueAsNumber : 0.3));
      field.value = String(mu);
      this.tools.frictionCoefficient = mu;
    });
    ($("poke-shape") as HTMLSelectElement).addEventListener("change", (e) => {
      const tool = this.toolMeshes.get((e.target as HTMLSelectElement).value);
      this.tools.setPokeMesh(tool?.geometry ? { name: tool.name, object: meshObject(tool.geometry, TOOL_MATERIAL) } : null);
    });
    setInterval(() => void this.refreshSessions(), 3000);
  }

  // Shows a message for 10 s (empty: hides it). A GatewayError adds the server's words.
  private showError(message: string, error?: unknown): void {
    const element = $("error");
    let text = message;
    if (error instanceof GatewayError) text += `\n${error.status}: ${error.message}`;
    // A server that requires a token: say how to give one (the fragment never reaches logs).
    if (error instanceof GatewayError && error.code === 16)
      text += this.client.tokenRefusal
        ? `\nThe token was refused (${this.client.tokenRefusal}); open the page with #token=YOUR_TOKEN.`
        : "\nThis server requires an access token: open the page with #token=YOUR_TOKEN.";
    else if (error instanceof Error) text += `\n${error.message}`;
    this.probe.lastError = text;
    element.textContent = text;
    element.hidden = text === "";
    if (this.errorTimer) clearTimeout(this.errorTimer);
    if (text) this.errorTimer = setTimeout(() => (element.hidden = true), 10000);
    if (text) console.warn(text);
  }
}
