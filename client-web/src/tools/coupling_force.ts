// The force a reply's coupling model gives at another tool position (design guide §5):
// F = force + dF/dx (x - x0). The page draws a grab's force from it at the cursor's position in
// the frame the cursor moved, instead of waiting a round trip for the server's answer there
// (a slow link: 100 ms or more). The velocity term is left out: the page's tool velocity is a
// finite difference over one display frame, too coarse to be worth its noise.
import type { CouplingModel } from "../gen/softbody/v1/interact_pb";

export interface Vec3Like {
  x: number;
  y: number;
  z: number;
}

export function couplingForce(model: CouplingModel, at: Vec3Like): Vec3Like {
  const f = model.force ?? { x: 0, y: 0, z: 0 };
  const x0 = model.referencePosition ?? { x: 0, y: 0, z: 0 };
  const k = model.dforceDposition?.values ?? [];
  const d = [at.x - x0.x, at.y - x0.y, at.z - x0.z];
  const row = (r: number) => (k.length === 9 ? k[3 * r] * d[0] + k[3 * r + 1] * d[1] + k[3 * r + 2] * d[2] : 0);
  return { x: f.x + row(0), y: f.y + row(1), z: f.z + row(2) };
}
