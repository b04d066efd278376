// The page's evaluation of a reply's coupling model at another tool position (a grab's force
// drawn at the cursor before the server answers there).
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { CouplingModelSchema } from "../src/gen/softbody/v1/interact_pb";
import { couplingForce } from "../src/tools/coupling_force";

describe("couplingForce", () => {
  it("is the model's force at its reference and grows by its stiffness away from it", () => {
    // A grab spring of 200 N/m along every axis, pulled 1 cm in x at the reference.
    const model = create(CouplingModelSchema, {
      referencePosition: { x: 0.01, y: 0, z: 0 },
      force: { x: -2, y: 0, z: 0 },
      dforceDposition: { values: [-200, 0, 0, 0, -200, 0, 0, 0, -200] },
    });
    expect(couplingForce(model, { x: 0.01, y: 0, z: 0 })).toEqual({ x: -2, y: 0, z: 0 });
    const f = couplingForce(model, { x: 0.02, y: 0.005, z: 0 });
    expect(f.x).toBeCloseTo(-4, 12);
    expect(f.y).toBeCloseTo(-1, 12);
    expect(f.z).toBe(0);
  });

  it("without a stiffness is the model's force anywhere", () => {
    const model = create(CouplingModelSchema, { force: { x: 0, y: 1, z: 0 } });
    expect(couplingForce(model, { x: 5, y: 5, z: 5 })).toEqual({ x: 0, y: 1, z: 0 });
  });
});
