// The 3D view: the body's surface lit and coloured per vertex, an optional wireframe, a floor
// grid, the scene's obstacles (obstacles.ts), the tools' visuals (grab arrow, poke sphere) and an orbit camera. Positions and normals
// come from the WebAssembly pipeline's memory (no copies); colours are filled here.
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { colorByDisplacement, nextRange } from "./colormap";
import { ObstacleView } from "./obstacles";

export type ColorMode = "displacement" | "plain";

export class BodyView {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera = new THREE.PerspectiveCamera(45, 1, 0.001, 100);
  readonly controls: OrbitControls;
  readonly grabArrow = new THREE.ArrowHelper(new THREE.Vector3(0, 1, 0), new THREE.Vector3(), 0.05, 0xff5533);
  readonly pokeSphere: THREE.Mesh;
  readonly obstacles = new ObstacleView();
  private body: THREE.Mesh | null = null;
  private wire: THREE.Mesh | null = null;
  private geometry: THREE.BufferGeometry | null = null;
  private colors: Float32Array = new Float32Array(0);
  private rest: Float32Array = new Float32Array(0);
  private readonly grid: THREE.GridHelper;
  colorMode: ColorMode = "displacement";
  displacementRange = 0;
  largestDisplacement = 0;  // of the displayed positions [m]
  private rangeFloor = 1e-3;
  private framedSize = 1;  // the rest shape's diagonal, as framed [m]
  private readonly gridOrigin = new THREE.Vector3();  // where the framing put the grid

  constructor(readonly canvas: HTMLCanvasElement) {
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
    this.renderer.setPixelRatio(Math.min(2, window.devicePixelRatio));
    this.scene.background = new THREE.Color(0x1d2129);
    this.scene.add(new THREE.HemisphereLight(0xddeeff, 0x303040, 1.2));
    const sun = new THREE.DirectionalLight(0xffffff, 2.0);
    sun.position.set(1, 2, 1.5);
    this.scene.add(sun);
    this.grid = new THREE.GridHelper(1, 20, 0x556070, 0x343a46);
    this.scene.add(this.grid);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.enableDamping = true;
    this.grabArrow.visible = false;
    this.scene.add(this.grabArrow);
    this.pokeSphere = new THREE.Mesh(
      new THREE.SphereGeometry(1, 24, 16),
      new THREE.MeshStandardMaterial({ color: 0xffaa33, transparent: true, opacity: 0.6 }),
    );
    this.pokeSphere.visible = false;
    this.scene.add(this.pokeSphere, this.obstacles.group);
  }

  // A new body: surface triangles (indices into the surface vertices), rest positions of those
  // vertices, and the pipeline's position and normal views.
  setBody(triangles: Uint32Array, rest: Float32Array, positions: Float32Array, normals: Float32Array): void {
    this.clearBody();
    const geometry = new THREE.BufferGeometry();
    geometry.setIndex(new THREE.BufferAttribute(triangles, 1));
    geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3).setUsage(THREE.DynamicDrawUsage));
    geometry.setAttribute("normal", new THREE.BufferAttribute(normals, 3).setUsage(THREE.DynamicDrawUsage));
    this.colors = new Float32Array(positions.length);
    geometry.setAttribute("color", new THREE.BufferAttribute(this.colors, 3).setUsage(THREE.DynamicDrawUsage));
    this.rest = rest;
    this.geometry = geometry;
    this.body = new THREE.Mesh(
      geometry,
      new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.55, metalness: 0.0, side: THREE.DoubleSide }),
    );
    this.body.frustumCulled = false;  // positions change every frame; no bounding sphere upkeep
    this.wire = new THREE.Mesh(
      geometry,
      new THREE.MeshBasicMaterial({ color: 0x0b0d12, wireframe: true, transparent: true, opacity: 0.35 }),
    );
    this.wire.frustumCulled = false;
    this.wire.visible = false;
    this.scene.add(this.body, this.wire);
    this.frame(rest);
  }

  clearBody(): void {
    if (this.body) this.scene.remove(this.body);
    if (this.wire) this.scene.remove(this.wire);
    this.geometry?.dispose();
    this.body = this.wire = null;
    this.geometry = null;
    this.obstacles.clear();
  }

  get hasBody(): boolean {
    return this.body !== null;
  }

  set wireframe(on: boolean) {
    if (this.wire) this.wire.visible = on;
  }

  // Call after the pipeline updated positions and normals.
  updateBody(): void {
    if (!this.geometry) return;
    const positions = this.geometry.getAttribute("position") as THREE.BufferAttribute;
    const normals = this.geometry.getAttribute("normal") as THREE.BufferAttribute;
    if (this.colorMode === "displacement") {
      const largest = colorByDisplacement(positions.array as Float32Array, this.rest, this.displacementRange, this.colors);
      this.displacementRange = nextRange(this.displacementRange, largest, this.rangeFloor);
      this.largestDisplacement = largest;
    } else {
      this.colors.fill(0.72);
    }
    positions.needsUpdate = true;
    normals.needsUpdate = true;
    (this.geometry.getAttribute("color") as THREE.BufferAttribute).needsUpdate = true;
    this.follow(positions.array as Float32Array);
  }

  // Keeps a body that travels (a block sliding down an incline, a body falling off its support)
  // in view: once its centroid is more than 0.4 of its size from where the camera looks, the
  // camera, the grid and the half-spaces' patches move with it by a translation that brings it back
  // to that distance (the user's view direction and distance stay; a travelling body is followed
  // smoothly, at every drawn frame). The framing sees about 0.9 sizes to either side, so the body
  // stays on the canvas however fast it goes; with a whole size as the threshold a sliding block
  // left the canvas before the camera moved. A body that only deforms never moves the view.
  private follow(p: Float32Array): void {
    const n = p.length / 3;
    if (n === 0) return;
    const c = new THREE.Vector3();
    for (let i = 0; i < p.length; i += 3) c.set(c.x + p[i], c.y + p[i + 1], c.z + p[i + 2]);
    c.divideScalar(n);
    const reach = 0.4 * this.framedSize;
    const distance = c.distanceTo(this.controls.target);
    if (!Number.isFinite(distance) || distance <= reach) return;
    const shift = c.clone().sub(this.controls.target).multiplyScalar(1 - reach / distance);
    this.camera.position.add(shift);
    this.controls.target.add(shift);
    // The grid by whole cells (a tenth of the body's size): its lines stay where they were on the
    // floor, so the body is seen to move over it.
    // (Snapped from where the framing put it: the small shifts of a smooth follow add up.)
    const cell = this.framedSize / 10;
    this.grid.position.x = this.gridOrigin.x + Math.round((this.controls.target.x - this.gridOrigin.x) / cell) * cell;
    this.grid.position.z = this.gridOrigin.z + Math.round((this.controls.target.z - this.gridOrigin.z) / cell) * cell;
    this.obstacles.centreHalfSpaces(c);
    this.controls.update();
  }

  // The surface point under a canvas position: the hit point and the nearest corner of the face.
  pick(ndc: THREE.Vector2): { point: THREE.Vector3; vertex: number } | null {
    if (!this.body || !this.geometry) return null;
    this.geometry.computeBoundingSphere();
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const hit = ray.intersectObject(this.body, false)[0];
    if (!hit || !hit.face) return null;
    const positions = this.geometry.getAttribute("position");
    let best = hit.face.a;
    let bestDistance = Infinity;
    for (const v of [hit.face.a, hit.face.b, hit.face.c]) {
      const d = new THREE.Vector3().fromBufferAttribute(positions, v).distanceTo(hit.point);
      if (d < bestDistance) [best, bestDistance] = [v, d];
    }
    return { point: hit.point.clone(), vertex: best };
  }

  // Canvas coordinates (CSS pixels) of the displayed surface vertex nearest the body's centroid:
  // a point where a click lands on the body.
  bodyPointOnScreen(): { x: number; y: number } | null {
    if (!this.geometry) return null;
    const p = this.geometry.getAttribute("position").array as Float32Array;
    const n = p.length / 3;
    if (n === 0) return null;
    const c = [0, 0, 0];
    for (let i = 0; i < p.length; ++i) c[i % 3] += p[i] / n;
    let best = 0;
    let bestDistance = Infinity;
    for (let v = 0; v < n; ++v) {
      const d = Math.hypot(p[3 * v] - c[0], p[3 * v + 1] - c[1], p[3 * v + 2] - c[2]);
      if (d < bestDistance) [best, bestDistance] = [v, d];
    }
    const ndc = new THREE.Vector3(p[3 * best], p[3 * best + 1], p[3 * best + 2]).project(this.camera);
    return { x: ((ndc.x + 1) / 2) * this.canvas.clientWidth, y: ((1 - ndc.y) / 2) * this.canvas.clientHeight };
  }

  vertexPosition(vertex: number, out = new THREE.Vector3()): THREE.Vector3 {
    if (!this.geometry) return out.set(0, 0, 0);
    return out.fromBufferAttribute(this.geometry.getAttribute("position"), vertex);
  }

  resize(): void {
    const { clientWidth: w, clientHeight: h } = this.canvas;
    if (w === 0 || h === 0) return;
    const size = this.renderer.getSize(new THREE.Vector2());
    if (size.x !== w || size.y !== h) {
      this.renderer.setSize(w, h, false);
      this.camera.aspect = w / h;
      this.camera.updateProjectionMatrix();
    }
  }

  render(): void {
    this.resize();
    this.controls.update();
    this.renderer.render(this.scene, this.camera);
  }

  // Puts the camera and the floor grid around the body's rest shape.
  private frame(rest: Float32Array): void {
    const box = new THREE.Box3();
    const p = new THREE.Vector3();
    for (let i = 0; i < rest.length; i += 3) box.expandByPoint(p.set(rest[i], rest[i + 1], rest[i + 2]));
    const center = box.getCenter(new THREE.Vector3());
    const size = box.getSize(new THREE.Vector3()).length() || 1;
    this.framedSize = size;
    this.rangeFloor = 1e-3 * size;
    this.displacementRange = this.rangeFloor;
    this.grid.scale.setScalar(size * 2);
    this.grid.position.set(center.x, box.min.y - 1e-4 * size, center.z);
    this.gridOrigin.copy(this.grid.position);
    this.camera.near = size / 1000;
    this.camera.far = size * 100;
    this.camera.position.copy(center).add(new THREE.Vector3(0.9, 0.7, 1.4).multiplyScalar(size));
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(center);
    this.controls.update();
  }
}
