import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Throws, saying how to fix it, when `dist/` holds no built CLI: a test of the built bin would
 * otherwise fail with a spawn error that does not say why.
 */
export function requireBuiltCli(): void {
  if (!existsSync(join(repoRoot, "dist", "cli", "main.js"))) {
    throw new Error("dist/ is missing: run `npm run build` before these tests");
  }
}
