// Generates the TypeScript messages of ../proto/softbody/v1/*.proto with protoc-gen-es into
// src/gen/softbody/ (not committed: the .proto files are the contract). Needs Debian's protoc.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const protoDir = join(root, "..", "proto");
const outDir = join(root, "src", "gen");
const plugin = join(root, "node_modules", ".bin", "protoc-gen-es");
const protos = readdirSync(join(protoDir, "softbody", "v1"))
  .filter((f) => f.endsWith(".proto"))
  .map((f) => `softbody/v1/${f}`);

// Only the generated messages are replaced (src/gen/ also holds the WebAssembly module).
rmSync(join(outDir, "softbody"), { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
try {
  execFileSync(
    "protoc",
    [`--plugin=protoc-gen-es=${plugin}`, `--es_out=${outDir}`, "--es_opt=target=js+dts,import_extension=js", `-I${protoDir}`, ...protos],
    { stdio: "inherit" },
  );
} catch (e) {
  console.error(`gen-proto: protoc failed (is protobuf-compiler installed?): ${e.message}`);
  process.exit(1);
}
console.log(`gen-proto: ${protos.length} files -> src/gen/`);
