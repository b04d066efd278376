// `npm run build` writes dist/, which softbody-server serves (--web-root). `npm run dev` serves the
// sources with hot reload and forwards /ws to a server on localhost:8080 (start it with
// --allowed-origin http://localhost:5173).
import { defineConfig } from "vitest/config";

const isolation = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

export default defineConfig({
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1024 },
  server: {
    headers: isolation,
    proxy: { "/ws": { target: "ws://localhost:8080", ws: true } },
  },
  preview: { headers: isolation },
  test: { include: ["test/**/*.test.ts"], testTimeout: 60000, hookTimeout: 60000 },
});
