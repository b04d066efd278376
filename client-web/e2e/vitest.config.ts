// End-to-end tests: real server, real Chromium. One file at a time (they start servers and
// browsers), generous timeouts for a loaded 2-core machine.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.ts"],
    testTimeout: 120000,
    hookTimeout: 120000,
    fileParallelism: false,
  },
});
