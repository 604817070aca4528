import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Two projects. `unit`: everything in-process (`npm test`). `e2e`: every file named
 * `*.e2e.test.ts(x)`, a test that starts a process (the built bin, a tsx child, npm, biome, a
 * real agent CLI, an MCP server over stdio, a Postgres cluster): `npm run test:e2e`. CI runs
 * both (`.ci/run`). CONTRIBUTING.md says what runs where and how long each takes.
 */
export const e2eFiles = ["test/**/*.e2e.test.ts", "test/**/*.e2e.test.tsx"];

/** What every test file runs with, whichever project (and Stryker's one, vitest.mutation.config.ts). */
export const sharedTestOptions = {
  environment: "node",
  // Child-process and HTTP tests are real I/O on a 2-core machine: give them room without hiding hangs.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: "forks",
  // fast-check properties run from FC_SEED (fixed in CI) or a random seed, named on failure.
  setupFiles: ["test/support/fast-check.ts"],
  // One Postgres cluster per run, started by the first file that needs one (postgres-run.ts).
  globalSetup: ["test/support/postgres-run.ts"],
} as const;

export default defineConfig({
  test: {
    ...sharedTestOptions,
    setupFiles: [...sharedTestOptions.setupFiles],
    globalSetup: [...sharedTestOptions.globalSetup],
    // CI reads the counts from a JSON report (vitest's own summary is not a line CI recognises).
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: { json: "test-results/vitest.json" },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
          exclude: e2eFiles,
          // vitest's default is a worker less than the cores: one, on a 2-core machine.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          // Each project runs as its own group (vitest asks it of projects with their own workers).
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: e2eFiles,
          // Most of the time goes in waiting on children and sockets, not on the CPU: a worker
          // more than the cores keeps both busy.
          maxWorkers: Math.max(3, availableParallelism()),
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
