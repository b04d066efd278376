// The scene's rigid obstacles (floors, jaws, fixtures, mesh tools) as the topology describes them
// (Topology.obstacles, docs/api.md "Obstacles"), moved by each state frame's poses and blended
// towards the newest like the body (alpha 0: what was shown when the frame arrived, 1: the frame).
import * as THREE from "three";
import type { Pose } from "../gen/softbody/v1/geometry_pb";
import { ObstacleShape, type ObstacleGeometry } from "../gen/softbody/v1/session_pb";

interface Drawn {
  holder: THREE.Object3D;  // at the obstacle's pose
  from: { position: THREE.Vector3; quaternion: THREE.Quaternion };
  to: { position: THREE.Vector3; quaternion: THREE.Quaternion };
}

const vec = (v: { x: number; y: number; z: number } | undefined, fallback = new THREE.Vector3()) =>
  v ? new THREE.Vector3(v.x, v.y, v.z) : fallback;

// An all-zero quaternion is the identity (geometry.proto).
const quat = (q: { w: number; x: number; y: number; z: number } | undefined) =>
  q && (q.w !== 0 || q.x !== 0 || q.y !== 0 || q.z !== 0)
    ? new THREE.Quaternion(q.x, q.y, q.z, q.w).normalize()
    : new THREE.Quaternion();

// A rotation taking local y to `n` (and local x to `tangent` where given, for plates).
function basisFromNormal(n: THREE.Vector3, tangent?: THREE.Vector3): THREE.Quaternion {
  const y = n.clone().normalize();
  let x = tangent?.clone() ?? new THREE.Vector3(1, 0, 0);
  x.addScaledVector(y, -x.dot(y));
  if (x.lengthSq() < 1e-12) x = new THREE.Vector3(0, 0, 1).addScaledVector(y, -y.z);
  x.normalize();
  const z = new THREE.Vector3().crossVectors(x, y);
  return new THREE.Quaternion().setFromRotationMatrix(new THREE.Matrix4().makeBasis(x, y, z));
}

// A mesh geometry (ObstacleGeometry of shape MESH) as a three.js mesh in its own frame.
export function meshObject(o: ObstacleGeometry, material: THREE.Material): THREE.Mesh {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(Float32Array.from(o.meshVertices), 3));
  geometry.setIndex(new THREE.BufferAttribute(Uint32Array.from(o.meshTriangles), 1));
  geometry.computeVertexNormals();
  return new THREE.Mesh(geometry, material);
}

export class ObstacleView {
  readonly group = new THREE.Group();
  private drawn: Drawn[] = [];
  private shownSincePoses = false;  // an update() since the last framePoses()
  // The half-spaces' patches and how to put each under a body centre.
  private halfSpaces: Array<{ mesh: THREE.Mesh; place: (bodyCenter: THREE.Vector3) => void }> = [];
  private readonly solid = new THREE.MeshStandardMaterial({
    color: 0x9aa6b8, metalness: 0.35, roughness: 0.45, transparent: true, opacity: 0.7,
  });
  // A mesh tool's faces drawn flat: its sharp edges and corners are what it presses with.
  private readonly faceted = Object.assign(this.solid.clone(), { flatShading: true });
  private readonly floor = new THREE.MeshStandardMaterial({
    color: 0x6f7a8c, roughness: 0.9, transparent: true, opacity: 0.35, side: THREE.DoubleSide, depthWrite: false,
  });

  get count(): number {
    return this.drawn.length;
  }

  // World positions of the obstacles' reference points as drawn this frame (for tests).
  positions(): Array<{ x: number; y: number; z: number }> {
    return this.drawn.map(({ holder: { position: p } }) => ({ x: p.x, y: p.y, z: p.z }));
  }

  // The session's obstacles; `bodyCenter` and `bodySize` (its rest box's centre and diagonal) size
  // the patch drawn for an unbounded half-space.
  set(obstacles: ObstacleGeometry[], bodyCenter: { x: number; y: number; z: number }, bodySize: number): void {
    this.clear();
    this.halfSpaces = [];
    const center = vec(bodyCenter);
    for (const o of obstacles) {
      // One holder per obstacle, drawn or not, so frames' poses stay in step with the list.
      const shape = this.shape(o, center, bodySize);
      const holder = new THREE.Object3D();
      if (shape) holder.add(shape);
      const position = vec(o.pose?.position);
      const quaternion = quat(o.pose?.orientation);
      holder.position.copy(position);
      holder.quaternion.copy(quaternion);
      this.group.add(holder);
      this.drawn.push({
        holder,
        from: { position: position.clone(), quaternion: quaternion.clone() },
        to: { position: position.clone(), quaternion: quaternion.clone() },
      });
    }
  }

  clear(): void {
    for (const d of this.drawn) {
      d.holder.traverse((o) => {
        if (o instanceof THREE.Mesh) o.geometry.dispose();
      });
      this.group.remove(d.holder);
    }
    this.drawn = [];
  }

  // Moves the half-spaces' patches under `bodyCenter` (the camera followed a body that went
  // away: a block sliding down its incline would otherwise leave the patch behind).
  centreHalfSpaces(bodyCenter: { x: number; y: number; z: number }): void {
    for (const h of this.halfSpaces) h.place(vec(bodyCenter));
  }

  // World centres of the half-spaces' patches as drawn (for tests).
  halfSpaceCentres(): Array<{ x: number; y: number; z: number }> {
    return this.halfSpaces.map(({ mesh }) => {
      const p = mesh.getWorldPosition(new THREE.Vector3());
      return { x: p.x, y: p.y, z: p.z };
    });
  }

  // A frame's poses (one per obstacle, or none when none moves): blending starts from what is
  // shown or, when no update() came since the last frame (frames faster than draws: a busy page
  // gets them in bursts just before it draws), from the previous frame's poses, so the drawing
  // is at most one frame behind instead of frozen (as the WebAssembly pipeline does for the body).
  framePoses(poses: Pose[]): void {
    if (poses.length !== this.drawn.length) return;
    const shown = this.shownSincePoses;
    this.shownSincePoses = false;
    poses.forEach((pose, i) => {
      const d = this.drawn[i];
      d.from.position.copy(shown ? d.holder.position : d.to.position);
      d.from.quaternion.copy(shown ? d.holder.quaternion : d.to.quaternion);
      d.to.position.copy(vec(pose.position));
      d.to.quaternion.copy(quat(pose.orientation));
    });
  }

  update(alpha: number): void {
    this.shownSincePoses = true;
    for (const d of this.drawn) {
      d.holder.position.lerpVectors(d.from.position, d.to.position, alpha);
      d.holder.quaternion.slerpQuaternions(d.from.quaternion, d.to.quaternion, alpha);
    }
  }

  private shape(o: ObstacleGeometry, bodyCenter: THREE.Vector3, bodySize: number): THREE.Object3D | null {
    switch (o.shape) {
      case ObstacleShape.HALF_SPACE: {
        // Unbounded: a square patch four body sizes wide under the body, in the plane.
        const n = vec(o.normal, new THREE.Vector3(0, 1, 0)).normalize();
        const mesh = new THREE.Mesh(new THREE.PlaneGeometry(4 * bodySize, 4 * bodySize).rotateX(-Math.PI / 2), this.floor);
        mesh.quaternion.copy(basisFromNormal(n));
        // The body's centre projected onto the plane, in the obstacle's frame.
        const reference = vec(o.pose?.position);
        const unturn = quat(o.pose?.orientation).invert();
        const place = (center: THREE.Vector3) => {
          const offset = center.clone().sub(reference);
          mesh.position.copy(offset.addScaledVector(n, -offset.dot(n)).applyQuaternion(unturn));
        };
        place(bodyCenter);
        this.halfSpaces.push({ mesh, place });
        mesh.renderOrder = -1;
        return mesh;
      }
      case ObstacleShape.PLATE: {
        // The contact face is the plane; the solid lies behind it (a thin slab for drawing).
        const [a, b] = [o.halfExtent[0] ?? 0, o.halfExtent[1] ?? 0];
        const thickness = Math.max(1e-4, 0.15 * Math.min(a, b));
        const slab = new THREE.BoxGeometry(2 * a, thickness, 2 * b).translate(0, -thickness / 2, 0);
        const mesh = new THREE.Mesh(slab, this.solid);
        const n = vec(o.normal, new THREE.Vector3(0, 1, 0));
        const tangent = vec(o.tangent, new THREE.Vector3(1, 0, 0));
        // Local x along the tangent, y along the normal, z along tangent x normal (= -w: the box
        // is symmetric).
        mesh.quaternion.copy(basisFromNormal(n, tangent));
        return mesh;
      }
      case ObstacleShape.SPHERE:
        return new THREE.Mesh(new THREE.SphereGeometry(o.radius, 32, 16), this.solid);
      case ObstacleShape.CAPSULE: {
        const mesh = new THREE.Mesh(new THREE.CapsuleGeometry(o.radius, 2 * o.halfLength, 8, 24), this.solid);
        mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), vec(o.axis, new THREE.Vector3(1, 0, 0)).normalize());
        return mesh;
      }
      case ObstacleShape.MESH: {
        return o.meshTriangles.length === 0 ? null : meshObject(o, this.faceted);
      }
      default:
        return null;
    }
  }
}
