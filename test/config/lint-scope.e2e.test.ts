import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../support/temp-dir.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const biome = join(repoRoot, "node_modules", ".bin", "biome");
const run = promisify(execFile);

/** `biome check` as `npm run lint` runs it, in a copy of the project's layout under `root`. */
async function lint(root: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(biome, ["check", "--error-on-warnings", "."], {
      cwd: root,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("npm run lint's scope (biome.json includes)", () => {
  const tempDir = useTempDir("shared-ctx-lint-");

  function layout(): string {
    const root = tempDir();
    copyFileSync(join(repoRoot, "biome.json"), join(root, "biome.json"));
    // vcs.useIgnoreFile wants a repository and its ignore file, as a clone has.
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, ".gitignore"), "node_modules/\n");
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "ok.ts"), 'export const ok = "yes";\n');
    return root;
  }

  it("leaves a user's own files in the clone alone (README's `scenario init --out mine.yaml`)", async () => {
    const root = layout();
    writeFileSync(join(root, "mine.yaml"), "costs:\n  tokensPerModule: 2400      # spent evenly\n");
    mkdirSync(join(root, "scratch"));
    writeFileSync(join(root, "scratch", "try.ts"), "const  unused = 1\n");
    const { code, output } = await lint(root);
    expect(output).not.toMatch(/mine\.yaml|try\.ts/);
    expect(code).toBe(0);
  });

  it("still checks the project's own folders", async () => {
    const root = layout();
    writeFileSync(join(root, "src", "bad.ts"), "export const  bad = 1\n");
    mkdirSync(join(root, "scenarios"));
    writeFileSync(join(root, "scenarios", "x.yaml"), "a:   1      # spaced\n");
    const { code, output } = await lint(root);
    expect(code).not.toBe(0);
    expect(output).toMatch(/src\/bad\.ts/);
    expect(output).toMatch(/scenarios\/x\.yaml/);
  });
});
