import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { requireBuiltCli } from "../support/built-bin.js";
import { waitForExit } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const readme = readFileSync(join(repoRoot, "README.md"), "utf8");

/** A fenced `sh` block of README, with the marker comment just above it, if any. */
interface ShellBlock {
  readonly line: number;
  readonly commands: readonly string[];
  /** `<!-- readme-test: skip (why) -->` right above the block. */
  readonly skip?: string;
}

/** Every ```sh block in README, in order. */
function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split("\n");
  const blocks: ShellBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (lines[index]?.trim() !== "```sh") continue;
    const start = index;
    const commands: string[] = [];
    for (index += 1; index < lines.length && lines[index]?.trim() !== "```"; index += 1) {
      const command = lines[index]?.trim() ?? "";
      if (command && !command.startsWith("#")) commands.push(command);
    }
    const marker = /<!-- readme-test: skip \((.+)\) -->/.exec(lines[start - 1] ?? "");
    blocks.push({ line: start + 1, commands, ...(marker ? { skip: marker[1] } : {}) });
  }
  return blocks;
}

/**
 * `npm install` is what made the build these blocks run on (a test cannot download the
 * dependencies again): it is the one command taken as done.
 */
const setUp = new Set(["npm install"]);

describe("README's shell blocks work as written, on the built bin", () => {
  const tempDir = useTempDir("shared-ctx-readme-");

  beforeAll(requireBuiltCli);

  it("has shell blocks to run, and every skipped one says why", () => {
    const blocks = shellBlocks(readme);
    expect(blocks.filter((block) => block.skip === undefined).length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) if (block.skip !== undefined) expect(block.skip).not.toBe("");
  });

  it("stays a front door: at most ~300 lines, the picture first", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
    const picture = readme.indexOf("![");
    expect(picture).toBeGreaterThan(-1);
    expect(picture).toBeLessThan(readme.indexOf("## "));
    expect(existsSync(join(repoRoot, "docs", "demo.svg"))).toBe(true);
  });

  for (const block of shellBlocks(readme).filter((candidate) => candidate.skip === undefined)) {
    it(`the block at README.md:${block.line} exits 0`, async () => {
      // One store for the block, so a later line (runs, timeline last) sees an earlier one's run.
      const db = join(tempDir(), "store.db");
      const script = block.commands.filter((command) => !setUp.has(command)).join("\n");
      const result = await waitForExit(
        spawn("bash", ["-euo", "pipefail", "-c", script], {
          cwd: repoRoot,
          env: {
            ...process.env,
            SHARED_CTX_DB: db,
            NO_COLOR: "1",
            LLM_MODEL: "",
            STATEWAVE_URL: "",
            SHARED_CTX_DATABASE_URL: "",
            npm_config_loglevel: "error",
          },
          stdio: ["ignore", "pipe", "pipe"],
        }),
      );
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
      expect(result.stdout).not.toContain("shared-ctx:");
    }, 120_000);
  }
});
