import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { requireBuiltCli } from "../support/built-bin.js";
import { useTempDir } from "../support/temp-dir.js";
import { type ReceivedCall, startScriptedModelApi } from "./support/scripted-model-api.js";

/**
 * The real Claude Code (2.1.197) and Gemini CLI (0.61.0), from the npm registry (devDependencies),
 * run headless against a scripted model API on loopback, in a repository with two worktrees: a
 * decision published from worktree A retires legacy-billing; the session in worktree B tries to
 * write a file of it, our hook refuses, and the refusal's reason reaches the model in the next
 * request the CLI sends. A CLI that cannot run here is skipped, saying why.
 */
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(repoRoot, "bin", "shared-ctx.js");
const claude = join(repoRoot, "node_modules", ".bin", "claude");
const gemini = join(repoRoot, "node_modules", ".bin", "gemini");

/** Why `binary` cannot run here, or undefined when `--version` answers. */
function unavailable(binary: string): string | undefined {
  if (!existsSync(binary)) return `${binary} is not installed (npm install)`;
  try {
    execFileSync(binary, ["--version"], {
      timeout: 30_000,
      stdio: "pipe",
      env: { ...process.env, HOME: "/tmp" },
    });
    return undefined;
  } catch (error) {
    return `${binary} --version failed: ${(error as Error).message.split("\n")[0]}`;
  }
}
const claudeMissing = unavailable(claude);
const geminiMissing = unavailable(gemini);
if (claudeMissing) console.warn(`skipping the real Claude Code tests: ${claudeMissing}`);
if (geminiMissing) console.warn(`skipping the real Gemini CLI tests: ${geminiMissing}`);

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    stdio: "pipe",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });

/** A repository `main` with worktree `b`, legacy-billing retired (as if session A decided it). */
async function twoWorktrees(dir: string) {
  const main = join(dir, "main");
  for (const module of ["legacy-billing", "payments"]) {
    mkdirSync(join(main, "src", module), { recursive: true });
    writeFileSync(join(main, "src", module, "index.ts"), "export const rate = 1;\n");
  }
  git(main, "init", "-q", "-b", "main");
  git(main, "add", ".");
  git(main, "commit", "-q", "-m", "start");
  const b = join(dir, "b");
  git(main, "worktree", "add", "-q", b, "-b", "feature-b");
  const db = join(main, ".shared-ctx", "store.db");
  mkdirSync(join(main, ".shared-ctx"), { recursive: true });
  const store = new EmbeddedStore({ path: db });
  const shared = new SharedContext({ store, subjectId: "acme" });
  await shared.decide("session-a", "Retire legacy-billing: invoices move to payments", {
    kind: "architectural_decision",
    target: "legacy-billing",
  });
  await shared.close();
  await store.close();
  const home = join(dir, "home");
  mkdirSync(home);
  return { main, b, db, home, target: join(b, "src", "legacy-billing", "rates.ts") };
}

/** Runs `command args` in `cwd` to its end; its output, for the failure message. */
function run(command: string, args: readonly string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(command, [...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

function shared(cwd: string, ...args: string[]) {
  return execFileSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8" });
}

/**
 * What the CLI sent the model back from its tool calls: Claude Code's `tool_result` blocks and
 * Gemini CLI's `functionResponse` parts, as text.
 */
function toolResults(calls: readonly ReceivedCall[]): string {
  const found: unknown[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) walk(item);
    else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      if (record.type === "tool_result" || "functionResponse" in record) found.push(record);
      else for (const item of Object.values(record)) walk(item);
    }
  };
  for (const call of calls) walk(call.body.messages ?? call.body.contents);
  return found.map((result) => JSON.stringify(result)).join("\n");
}

describe.skipIf(claudeMissing !== undefined)("the real Claude Code CLI", () => {
  const tempDir = useTempDir("shared-ctx-claude-");
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
  });

  async function session(
    cwd: string,
    home: string,
    target: string,
    env: Record<string, string> = {},
  ) {
    const api = await startScriptedModelApi((_, turn) =>
      turn === 0
        ? { tool: "Write", input: { file_path: target, content: "export const rate = 2;\n" } }
        : { text: "Done." },
    );
    try {
      const result = await run(
        claude,
        [
          "-p",
          "Raise the legacy billing rate to 2.",
          "--permission-mode",
          "acceptEdits",
          "--output-format",
          "json",
        ],
        cwd,
        {
          HOME: home,
          ANTHROPIC_BASE_URL: api.url,
          ANTHROPIC_API_KEY: "sk-ant-scripted",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_AUTOUPDATER: "1",
          ...env,
        },
      );
      return { ...result, calls: api.calls };
    } finally {
      await api.close();
    }
  }

  it("refuses worktree B's write of a module retired from worktree A, and the model reads why (command hooks)", async () => {
    requireBuiltCli();
    const { b, db, home, target } = await twoWorktrees(tempDir());
    shared(b, "init", "claude-code", "--subject", "acme", "--db", db, "--command", bin);
    const { out, calls } = await session(b, home, target);
    const sent = toolResults(calls);
    expect(sent, out).toContain("src/legacy-billing/rates.ts belongs to module legacy-billing");
    expect(sent).toContain("Retire legacy-billing: invoices move to payments");
    // A new file: Claude Code checks that an existing file was read before it runs the hooks.
    expect(existsSync(target)).toBe(false);
  }, 120_000);

  it("refuses it through HTTP hooks to shared-ctx serve", async () => {
    requireBuiltCli();
    const { b, db, home, target } = await twoWorktrees(tempDir());
    // A server that needs a key: Claude Code must fill X-API-Key from the allowedEnvVars. Without
    // the key the hook's 401 is a non-blocking error and the file IS written (tried with this test).
    const apiKey = "scripted-team-key";
    const server = await startServer({ store: new EmbeddedStore({ path: db }), port: 0, apiKey });
    running.push(server);
    shared(b, "init", "claude-code", "--subject", "acme", "--server", server.url, "--command", bin);
    const { out, calls } = await session(b, home, target, { SHARED_CTX_API_KEY: apiKey });
    const sent = toolResults(calls);
    expect(sent, out).toContain("src/legacy-billing/rates.ts belongs to module legacy-billing");
    // A new file: Claude Code checks that an existing file was read before it runs the hooks.
    expect(existsSync(target)).toBe(false);
  }, 120_000);
});

describe.skipIf(geminiMissing !== undefined)("the real Gemini CLI", () => {
  const tempDir = useTempDir("shared-ctx-gemini-cli-");

  it("refuses worktree B's write_file of a module retired from worktree A, and the model reads why", async () => {
    requireBuiltCli();
    const { b, db, home, target } = await twoWorktrees(tempDir());
    shared(b, "init", "gemini-cli", "--subject", "acme", "--db", db, "--command", bin);
    // API-key auth (with GOOGLE_GEMINI_BASE_URL alone the CLI picks its gateway auth and stops).
    mkdirSync(join(home, ".gemini"));
    writeFileSync(
      join(home, ".gemini", "settings.json"),
      JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
    );
    const api = await startScriptedModelApi((_, turn) =>
      turn === 0
        ? {
            tool: "write_file",
            input: {
              file_path: "src/legacy-billing/rates.ts",
              content: "export const rate = 2;\n",
            },
          }
        : { text: "Done." },
    );
    try {
      const { out } = await run(
        gemini,
        [
          "-p",
          "Raise the legacy billing rate to 2.",
          "-m",
          "gemini-2.5-flash",
          "--yolo",
          "-o",
          "stream-json",
        ],
        b,
        {
          HOME: home,
          GOOGLE_GEMINI_BASE_URL: api.url,
          GEMINI_API_KEY: "scripted",
          // Project settings (and so their hooks) are read only in a trusted folder.
          GEMINI_CLI_TRUST_WORKSPACE: "true",
        },
      );
      const sent = toolResults(api.calls);
      expect(sent, out).toContain(
        "Tool execution blocked: shared-ctx: src/legacy-billing/rates.ts belongs to module legacy-billing",
      );
      // A new file: Claude Code checks that an existing file was read before it runs the hooks.
      expect(existsSync(target)).toBe(false);
    } finally {
      await api.close();
    }
  }, 120_000);
});
