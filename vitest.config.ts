import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    environment: "node",
    // Child-process and HTTP tests are real I/O on a 2-core machine: give them room without hiding hangs.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
