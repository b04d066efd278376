// Mouse tools, sent to the server as tool commands once per displayed frame:
// - grab: press on the surface and drag; the grabbed vertex is pulled by a spring towards the
//   cursor, which moves in the plane facing the camera through the grabbed point. The force the
//   server reports is drawn as an arrow.
// - poke: a sphere (or a tool surface the server offers: setPokeMesh) follows the cursor at a
//   depth the wheel changes and pushes the body while the left button is held.
// In both modes the right button orbits and the middle button pans; in "orbit" mode the left
// button orbits as usual.
import * as THREE from "three";
import { MOUSE } from "three";
import { ContactModel, ContactProblemEncoding, ToolMode, ToolShape } from "../gen/softbody/v1/interact_pb";
import type { BodyView } from "../render/view";
import { CandidateReach } from "./candidate_reach";

export type ToolKind = "orbit" | "grab" | "poke";
// How the poke's contact is resolved: "auto" lets the server pick constraint contact where the
// session's step solves it (ToolCommand CONTACT_MODEL_AUTO), else penalty.
export type ContactChoice = "auto" | "constraint" | "penalty";

const CONTACT_MODELS: Record<ContactChoice, ContactModel> = {
  auto: ContactModel.AUTO,
  constraint: ContactModel.CONSTRAINT,
  penalty: ContactModel.PENALTY,
};

export interface ToolCommandInit {
  sessionId: string;
  sequence: bigint;
  clientTimeS: number;
  mode: ToolMode;
  shape: ToolShape;
  radius: number;
  toolMesh: string;
  grabVertex?: number;
  grabStiffness: number;
  contactModel: ContactModel;
  frictionCoefficient: number;
  candidateReach: number;
  pose: { position: { x: number; y: number; z: number } };
  velocity: { x: number; y: number; z: number };
}

export class ToolController {
  kind: ToolKind = "orbit";
  grabStiffness = 300;  // N/m
  // Poke by constraint contact (non-penetration, Coulomb friction) or a penalty spring; auto: the
  // server's choice for the session (`appliedContact`, from its replies).
  contact: ContactChoice = "auto";
  // What the server's last reply applied (null: no reply yet, or a server before the field).
  appliedContact: "constraint" | "penalty" | null = null;
  frictionCoefficient = 0.3;

  /** True when the poke may be a constraint one (the server may send contact problems). */
  get mayBeConstraint(): boolean {
    return this.contact !== "penalty";
  }

  /** True when the server resolves the poke as constraints (its contact problems apply). */
  get constraintContact(): boolean {
    return this.contact === "constraint" || (this.contact === "auto" && this.appliedContact === "constraint");
  }
  // How long a reply may take [s] (set from the measured round trips): with the tool's speed it
  // sets the candidate reach a constraint poke asks for (candidate_reach.ts).
  linkDelayS = 0;
  private readonly reach = new CandidateReach();
  // The server's tool surface the poke presses with (ToolShape MESH), drawn at the cursor; null:
  // the sphere.
  private pokeMesh: { name: string; object: THREE.Object3D } | null = null;

  setPokeMesh(mesh: { name: string; object: THREE.Object3D } | null): void {
    if (this.pokeMesh) this.view.scene.remove(this.pokeMesh.object);
    this.pokeMesh = mesh;
    if (mesh) {
      mesh.object.visible = false;
      this.view.scene.add(mesh.object);
    }
  }

  get pokeTool(): string {
    return this.pokeMesh?.name ?? "sphere";
  }

  /** Where the poking sphere is while it presses (null otherwise). */
  get pokePosition(): { x: number; y: number; z: number } | null {
    if (this.kind !== "poke" || !this.pressed) return null;
    return { x: this.target.x, y: this.target.y, z: this.target.z };
  }
  pokeRadiusFraction = 0.06;  // of the body's size
  private bodySize = 0.1;
  private pointer = new THREE.Vector2();
  private pointerInside = false;
  private pressed = false;
  private grabbed: { surfaceVertex: number; meshVertex: number; plane: THREE.Plane } | null = null;
  private target = new THREE.Vector3();
  private lastTarget: THREE.Vector3 | null = null;
  private lastTime = 0;
  private pokeDepth = 0.3;
  private wasActive = false;
  private sequence = 0n;
  // The pointer's moves counted, and the frames drawn since the last one (for the probe).
  private moves = 0;
  private drawnMove = 0;
  private framesSinceMove = 0;
  private drawLag = 0;
  private screenPosition: { x: number; y: number } | null = null;
  private lastMoveS = 0;

  constructor(
    private readonly view: BodyView,
    // Surface index -> simulated vertex id (Topology.surface_vertex_ids).
    private surfaceIds: Uint32Array = new Uint32Array(0),
  ) {
    const canvas = view.canvas;
    canvas.addEventListener("pointermove", (e) => this.onMove(e));
    canvas.addEventListener("pointerdown", (e) => this.onDown(e));
    canvas.addEventListener("pointerup", (e) => this.onUp(e));
    canvas.addEventListener("pointerleave", () => (this.pointerInside = false));
    canvas.addEventListener("pointerenter", () => (this.pointerInside = true));
    canvas.addEventListener("wheel", (e) => this.onWheel(e), { passive: false });
  }

  // `sameBody`: the session was joined again (after a reconnect or a move to another host), so
  // a grab the user still holds goes on pulling the same vertex.
  setBody(surfaceIds: Uint32Array, bodySize: number, sameBody = false): void {
    if (sameBody && this.surfaceIds.length === surfaceIds.length) return;
    this.surfaceIds = surfaceIds;
    this.bodySize = bodySize;
    this.pokeDepth = 1.7 * bodySize;
    this.grabbed = null;
  }

  setKind(kind: ToolKind): void {
    this.kind = kind;
    this.grabbed = null;
    this.pressed = false;
    const controls = this.view.controls;
    controls.mouseButtons = {
      LEFT: kind === "orbit" ? MOUSE.ROTATE : null,
      MIDDLE: MOUSE.PAN,
      RIGHT: kind === "orbit" ? MOUSE.PAN : MOUSE.ROTATE,
    } as typeof controls.mouseButtons;
    controls.enableZoom = kind !== "poke";  // the wheel sets the poke depth
  }

  // Where the tool is (world), as of the last command() this frame.
  get toolPosition(): { x: number; y: number; z: number } {
    return { x: this.target.x, y: this.target.y, z: this.target.z };
  }

  // Canvas pixels where the tool was drawn this frame (null: not drawn).
  get drawnOnScreen(): { x: number; y: number } | null {
    return this.screenPosition;
  }

  // Frames after the pointer's last move until the tool was drawn where it pointed.
  get drawLagFrames(): number {
    return this.drawLag;
  }

  get grabbing(): boolean {
    return this.grabbed !== null;
  }

  // The command for this displayed frame, or null when the tool has nothing to say (idle and
  // already reported idle).
  command(sessionId: string, nowMs: number): ToolCommandInit | null {
    const active = this.updateTarget();
    if (!active && !this.wasActive) return null;
    this.wasActive = active;
    const dt = (nowMs - this.lastTime) / 1000;
    const velocity = { x: 0, y: 0, z: 0 };
    if (active && this.lastTarget && dt > 0 && dt < 0.25) {
      velocity.x = (this.target.x - this.lastTarget.x) / dt;
      velocity.y = (this.target.y - this.lastTarget.y) / dt;
      velocity.z = (this.target.z - this.lastTarget.z) / dt;
    }
    this.lastTarget = active ? this.target.clone() : null;
    this.lastTime = nowMs;
    this.reach.update(Math.hypot(velocity.x, velocity.y, velocity.z), dt);
    const base = {
      sessionId,
      sequence: ++this.sequence,
      clientTimeS: nowMs / 1000,
      shape: this.pokeMesh ? ToolShape.MESH : ToolShape.SPHERE,
      radius: this.pokeRadius,
      toolMesh: this.pokeMesh?.name ?? "",
      grabStiffness: this.grabStiffness,
      contactModel: CONTACT_MODELS[this.contact],
      frictionCoefficient: this.mayBeConstraint ? this.frictionCoefficient : 0,
      candidateReach: this.mayBeConstraint ? this.reach.reach(this.linkDelayS) : 0,
      contactProblemEncoding: ContactProblemEncoding.UPPER_FLOAT,
      pose: { position: { x: this.target.x, y: this.target.y, z: this.target.z } },
      velocity,
    };
    if (!active) return { ...base, mode: ToolMode.IDLE };
    if (this.kind === "grab" && this.grabbed)
      return { ...base, mode: ToolMode.GRAB, grabVertex: this.grabbed.surfaceVertex };
    return { ...base, mode: ToolMode.POKE };
  }

  // Draws the grab arrow (from the grabbed vertex towards the cursor, length by the force) and
  // the poke sphere.
  updateVisuals(force: { x: number; y: number; z: number } | null): void {
    const { grabArrow, pokeSphere } = this.view;
    grabArrow.visible = false;
    pokeSphere.visible = false;
    if (this.pokeMesh) this.pokeMesh.object.visible = false;
    this.screenPosition = null;
    ++this.framesSinceMove;
    if (this.kind === "grab" && this.grabbed) {
      const from = this.view.vertexPosition(this.grabbed.meshVertex);
      const pull = this.target.clone().sub(from);
      const magnitude = force ? Math.hypot(force.x, force.y, force.z) : 0;
      if (pull.length() > 1e-9) {
        grabArrow.position.copy(from);
        grabArrow.setDirection(pull.clone().normalize());
        // 1 N draws as a tenth of the body's size, at least to the cursor, at most 1.5 sizes.
        const length = Math.min(1.5 * this.bodySize, Math.max(pull.length(), 0.1 * this.bodySize * magnitude));
        grabArrow.setLength(length, 0.15 * Math.min(length, this.bodySize), 0.08 * Math.min(length, this.bodySize));
        grabArrow.visible = true;
        this.drawnAt(this.target);
      }
    } else if (this.kind === "poke" && this.pointerInside) {
      const drawn = this.pokeMesh?.object ?? pokeSphere;
      drawn.position.copy(this.target);
      if (!this.pokeMesh) pokeSphere.scale.setScalar(this.pokeRadius);
      drawn.visible = true;
      this.drawnAt(this.target);
    }
  }

  private drawnAt(world: THREE.Vector3): void {
    const ndc = world.clone().project(this.view.camera);
    const canvas = this.view.canvas;
    this.screenPosition = { x: ((ndc.x + 1) / 2) * canvas.clientWidth, y: ((1 - ndc.y) / 2) * canvas.clientHeight };
    if (this.drawnMove !== this.moves) {
      this.drawnMove = this.moves;
      this.drawLag = this.framesSinceMove;
    }
  }

  private get pokeRadius(): number {
    return Math.min(1, Math.max(1e-4, this.pokeRadiusFraction * this.bodySize));
  }

  // Where the tool is now; whether it acts on the body.
  private updateTarget(): boolean {
    const ray = new THREE.Raycaster();
    ray.setFromCamera(this.pointer, this.view.camera);
    if (this.kind === "grab" && this.grabbed) {
      ray.ray.intersectPlane(this.grabbed.plane, this.target);
      return true;
    }
    if (this.kind === "poke" && this.pointerInside) {
      ray.ray.at(this.pokeDepth, this.target);
      return this.pressed;
    }
    return false;
  }

  private setPointer(e: PointerEvent | WheelEvent): void {
    const rect = this.view.canvas.getBoundingClientRect();
    this.pointer.set(((e.clientX - rect.left) / rect.width) * 2 - 1, -((e.clientY - rect.top) / rect.height) * 2 + 1);
  }

  private onMove(e: PointerEvent): void {
    this.pointerInside = true;
    this.setPointer(e);
    ++this.moves;
    this.framesSinceMove = 0;
    this.lastMoveS = e.timeStamp / 1000;
  }

  // The pointer's moves so far, and when the last one happened (performance.now() clock) [s].
  get moveCount(): number {
    return this.moves;
  }
  get lastMoveTimeS(): number {
    return this.lastMoveS;
  }

  private onDown(e: PointerEvent): void {
    this.setPointer(e);
    if (e.button !== 0 || this.kind === "orbit") return;
    this.pressed = true;
    this.view.canvas.setPointerCapture?.(e.pointerId);
    if (this.kind !== "grab") return;
    const hit = this.view.pick(this.pointer);
    if (!hit || hit.vertex >= this.surfaceIds.length) return;
    const normal = this.view.camera.getWorldDirection(new THREE.Vector3()).negate();
    this.grabbed = {
      surfaceVertex: this.surfaceIds[hit.vertex],
      meshVertex: hit.vertex,
      plane: new THREE.Plane().setFromNormalAndCoplanarPoint(normal, hit.point),
    };
    this.target.copy(hit.point);
  }

  private onUp(e: PointerEvent): void {
    if (e.button !== 0) return;
    this.pressed = false;
    this.grabbed = null;
  }

  private onWheel(e: WheelEvent): void {
    if (this.kind !== "poke") return;
    e.preventDefault();
    this.setPointer(e);
    this.pokeDepth = Math.max(0.05 * this.bodySize, this.pokeDepth * (1 + 0.001 * e.deltaY));
  }
}
