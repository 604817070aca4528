import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    environment: "node",
    // Child-process and HTTP tests are real I/O on a 2-core machine: give them room without hiding hangs.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // fast-check properties run from FC_SEED (fixed in CI) or a random seed, named on failure.
    setupFiles: ["test/support/fast-check.ts"],
    // CI reads the counts from a JSON report (vitest's own summary is not a line CI recognises).
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: { json: "test-results/vitest.json" },
  },
});
