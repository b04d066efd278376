// A constraint-contact tool's contact problem (ForceReply.contact_problem), re-solved in the page
// for the tool's newest position (the server's C++, codec/tool_contact.h, built into the
// WebAssembly module): the page shows the force where the cursor is at once, not a round trip later.
import type { ContactProblemModel } from "../gen/softbody/v1/interact_pb";
import { loadCodec } from "./frame_pipeline";

interface WasmSolver {
  load(x: number, y: number, z: number, contacts: number, compliance: number[], upper: boolean,
    freeMotion: number[], friction: number[], frames: number[], forces: number[]): boolean;
  empty(): boolean;
  force(x: number, y: number, z: number): number[];
  delete(): void;
}

export class ToolContactSolver {
  private constructor(private readonly wasm: WasmSolver) {}

  static async create(): Promise<ToolContactSolver> {
    const module = (await loadCodec()) as unknown as { ToolContactSolver: new () => WasmSolver };
    return new ToolContactSolver(new module.ToolContactSolver());
  }

  /**
   * Takes a reply's problem, its compliance whole or as the upper triangle the page asks for
   * (ContactProblemEncoding.UPPER_FLOAT); false (and empty) when its arrays do not fit its
   * contact count.
   */
  load(p: ContactProblemModel): boolean {
    const r = p.referencePosition ?? { x: 0, y: 0, z: 0 };
    const upper = p.complianceUpper.length > 0;
    return this.wasm.load(r.x, r.y, r.z, p.contacts, upper ? [...p.complianceUpper] : [...p.compliance], upper,
      [...p.freeMotion], [...p.friction], [...p.frames], [...p.forces]);
  }

  /** Forgets the problem (a poke the server no longer resolves by constraints). */
  clear(): void {
    this.wasm.load(0, 0, 0, 0, [], false, [], [], [], []);
  }

  get empty(): boolean {
    return this.wasm.empty();
  }

  /** The force on the tool at (x, y, z) [N]; zero without contacts. */
  force(x: number, y: number, z: number): { x: number; y: number; z: number } {
    const [fx, fy, fz] = this.wasm.force(x, y, z);
    return { x: fx, y: fy, z: fz };
  }

  dispose(): void {
    this.wasm.delete();
  }
}
