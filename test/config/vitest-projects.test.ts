import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sharedCluster } from "../support/postgres-run.js";
import { useTempDir } from "../support/temp-dir.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Every test file under test/, relative to the repository. */
function testFiles(folder = join(repoRoot, "test")): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return /\.test\.tsx?$/.test(entry.name) ? [relative(repoRoot, path)] : [];
  });
}

const isE2e = (file: string) => /\.e2e\.test\.tsx?$/.test(file);

/** What starts a process from a test file: the rule CONTRIBUTING.md states for `*.e2e.test.ts`. */
const startsProcess =
  /\bspawn\(|\bexecFile(Sync)?\(|\bexecSync\(|\bfork\(|spawnTsChild|drivenChild|connectMcpAgent|requireBuiltCli|usePostgres\(|freshPostgresStores\(/;

describe("the vitest projects (vitest.config.ts, CONTRIBUTING.md 'What runs where')", () => {
  it("puts every test file that starts a process in the e2e project (*.e2e.test.ts)", () => {
    const misplaced = testFiles()
      .filter((file) => !isE2e(file) && file !== "test/config/vitest-projects.test.ts")
      .filter((file) => startsProcess.test(readFileSync(join(repoRoot, file), "utf8")));
    // Each one: rename it to *.e2e.test.ts (npm test leaves it to npm run test:e2e and CI).
    expect(misplaced).toEqual([]);
  });

  it("leaves no test out: npm test runs the unit project, test:e2e the other, CI both", () => {
    const packageJson = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
    expect(packageJson.scripts.test).toMatch(/vitest run --project unit\b/);
    expect(packageJson.scripts["test:e2e"]).toMatch(/vitest run --project e2e\b/);
    const ci = readFileSync(join(repoRoot, ".ci", "run"), "utf8");
    expect(ci).toMatch(/^unit_status=0; npm test /m);
    expect(ci).toMatch(/^e2e_status=0; npm run test:e2e /m);
    expect(ci).toContain('for (const name of ["vitest-unit", "vitest-e2e"])');
  });
});

describe("one Postgres cluster per test run (postgres-run.ts)", () => {
  const tempDir = useTempDir("shared-ctx-pg-run-test-");

  it("starts the cluster once for every file that asks, however many ask at once", async () => {
    const folder = tempDir();
    let starts = 0;
    const start = async () => {
      starts += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { url: `postgres://cluster-${starts}` };
    };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => sharedCluster(folder, start)),
    );
    expect(starts).toBe(1);
    expect(answers).toEqual(Array.from({ length: 5 }, () => ({ url: "postgres://cluster-1" })));
    expect(await sharedCluster(folder, start)).toEqual({ url: "postgres://cluster-1" });
    expect(starts).toBe(1);
  });
});
