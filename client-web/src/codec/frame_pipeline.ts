// The WebAssembly frame pipeline (codec/wasm, the server's own C++ codec built with Emscripten):
// decode a state frame, interpolate between the two newest states, compute smooth normals. The
// displayed positions and normals are Float32Array views of WebAssembly memory that three.js
// uploads directly: no copies on the way to the GPU.
import createSoftbodyCodec from "../gen/softbody_codec.mjs";

interface WasmPipeline {
  reset(vertexCount: number, triangles: Uint32Array): boolean;
  input(bytes: number): Uint8Array;
  push(bytes: number): boolean;
  interpolate(alpha: number): void;
  computeNormals(): void;
  displayed(): Float32Array;
  normals(): Float32Array;
  target(): Float32Array;
  vertexCount(): number;
  frames(): number;
  error(): string;
  delete(): void;
}

interface CodecModule {
  FramePipeline: new () => WasmPipeline;
}

let modulePromise: Promise<CodecModule> | null = null;

export function loadCodec(): Promise<CodecModule> {
  modulePromise ??= (createSoftbodyCodec as () => Promise<CodecModule>)();
  return modulePromise;
}

export class FramePipeline {
  private readonly wasm: WasmPipeline;
  // Views of WebAssembly memory: valid until the next reset() (memory never grows).
  positions: Float32Array = new Float32Array(0);
  normals: Float32Array = new Float32Array(0);

  private constructor(module: CodecModule) {
    this.wasm = new module.FramePipeline();
  }

  static async create(): Promise<FramePipeline> {
    return new FramePipeline(await loadCodec());
  }

  // Sizes the pipeline for a surface; throws with the module's message on bad triangles.
  reset(vertexCount: number, triangles: Uint32Array): void {
    if (!this.wasm.reset(vertexCount, triangles)) throw new Error(this.wasm.error());
    this.positions = this.wasm.displayed();
    this.normals = this.wasm.normals();
  }

  // Decodes one frame's `positions` bytes; false (see error) when it cannot.
  push(frame: Uint8Array): boolean {
    this.wasm.input(frame.length).set(frame);
    return this.wasm.push(frame.length);
  }

  // Fills `positions` (alpha 0: what was shown when the newest frame arrived, 1: the newest frame)
  // and, when asked, `normals`.
  update(alpha: number, normals = true): void {
    this.wasm.interpolate(alpha);
    if (normals) this.wasm.computeNormals();
  }

  // The newest decoded frame (a view; copy it to keep it).
  target(): Float32Array {
    return this.wasm.target();
  }

  /** Vertices of the surface the pipeline was last reset for. */
  get vertexCount(): number {
    return this.wasm.vertexCount();
  }

  get frames(): number {
    return this.wasm.frames();
  }

  get error(): string {
    return this.wasm.error();
  }

  dispose(): void {
    this.wasm.delete();
  }
}
