// The WebAssembly build of the tool contact re-solve (codec/tool_contact.h) in node: the C++
// test's closed forms (ToolContact.ReSolvesTheStepsProblemForTheToolsPosition) give the same here.
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ContactProblemModelSchema } from "../src/gen/softbody/v1/interact_pb";
import { ToolContactSolver } from "../src/codec/tool_contact";

// One contact under the tool, normal -y (the body below), compliance 1 mm/N in every direction, the
// step's gap closed by 2 N; friction 0.5. `compliance` gives W whole or as its upper triangle.
function oneContact(compliance: { compliance?: number[]; complianceUpper?: number[] }) {
  return create(ContactProblemModelSchema, {
    referencePosition: { x: 0, y: 0.01, z: 0 },
    contacts: 1,
    ...compliance,
    freeMotion: [-2e-3, 0, 0],
    friction: [0.5],
    frames: [0, -1, 0, 1, 0, 0, 0, 0, 1],
    forces: [2, 0, 0],
  });
}

describe("tool contact re-solve in WebAssembly", () => {
  it("gives the step's force at the stepped pose, more deeper, none above, friction sideways", async () => {
    const solver = await ToolContactSolver.create();
    const problem = oneContact({ compliance: [1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3] });
    expect(solver.load(problem)).toBe(true);
    expect(solver.force(0, 0.01, 0).y).toBeCloseTo(2, 9);
    expect(solver.force(0, 0.009, 0).y).toBeCloseTo(3, 9);
    expect(solver.force(0, 0.013, 0)).toEqual({ x: 0, y: 0, z: 0 });
    expect(solver.force(0.003, 0.01, 0).x).toBeCloseTo(-1, 9);
    // Arrays that do not fit the contact count are refused.
    expect(solver.load(create(ContactProblemModelSchema, { contacts: 2, friction: [0.5] }))).toBe(false);
    expect(solver.empty).toBe(true);
    solver.dispose();
  });

  it("takes the compliance as the float32 upper triangle the page asks for", async () => {
    const solver = await ToolContactSolver.create();
    // The same problem with W's upper triangle (6 entries for 3 rows) as the server encodes it.
    const problem = oneContact({ complianceUpper: [1e-3, 0, 0, 1e-3, 0, 1e-3] });
    expect(solver.load(problem)).toBe(true);
    // float32's 1e-3 is 1e-3 to 5e-11: the force to ~1e-7.
    expect(solver.force(0, 0.01, 0).y).toBeCloseTo(2, 6);
    expect(solver.force(0, 0.009, 0).y).toBeCloseTo(3, 6);
    expect(solver.force(0.003, 0.01, 0).x).toBeCloseTo(-1, 6);
    // A triangle that does not fit the contact count (3 rows need 6 entries) is refused.
    problem.complianceUpper = [1e-3, 0, 0, 1e-3, 0];
    expect(solver.load(problem)).toBe(false);
    expect(solver.empty).toBe(true);
    solver.dispose();
  });
});
