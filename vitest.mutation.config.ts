import { defineConfig } from "vitest/config";
import { sharedTestOptions } from "./vitest.config.js";

/**
 * Stryker's vitest config (stryker.config.mjs): the shared options over every test file, without
 * the two projects of vitest.config.ts (Stryker picks its test files itself).
 */
export default defineConfig({
  test: {
    ...sharedTestOptions,
    setupFiles: [...sharedTestOptions.setupFiles],
    globalSetup: [...sharedTestOptions.globalSetup],
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
  },
});
