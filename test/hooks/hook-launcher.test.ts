import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { launcherOf } from "../../src/cli/commands/init-files.js";
import { guardedHookCommand, type Launcher, serverCommand } from "../../src/hooks/hook-launcher.js";
import { useTempDir } from "../support/temp-dir.js";

/** Runs a hook command line as Claude Code does: through a shell, the input on stdin. */
function runHookLine(command: string, env: Record<string, string>, cwd: string) {
  const result = spawnSync("/bin/sh", ["-c", command], {
    cwd,
    input: '{"session_id":"s1"}',
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** An executable that echoes its arguments and its stdin, and exits 3. */
function fakeBin(path: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, '#!/bin/sh\necho "ran $*"; cat; exit 3\n');
  chmodSync(path, 0o755);
  return path;
}

describe("guardedHookCommand", () => {
  const tempDir = useTempDir("shared-ctx-launcher-");
  const args = ["hook", "pre-tool-use", "--subject", "my repo"];

  it("runs the binary with the arguments and stdin, and passes its exit status on", () => {
    const dir = realpathSync(tempDir());
    const bin = fakeBin(join(dir, "with space", "shared-ctx.js"));
    const line = guardedHookCommand({ kind: "path", path: bin }, args, "PreToolUse", "deny");
    const run = runHookLine(line, {}, dir);
    expect(run).toEqual({
      code: 3,
      stdout: 'ran hook pre-tool-use --subject my repo\n{"session_id":"s1"}',
      stderr: "",
    });
  });

  it("a missing binary with whenStoreDown deny: exit 2 (Claude Code blocks), naming the path and the fix", () => {
    const dir = realpathSync(tempDir());
    const missing = join(dir, "gone", "bin", "shared-ctx.js");
    const run = runHookLine(
      guardedHookCommand({ kind: "path", path: missing }, args, "PreToolUse", "deny"),
      {},
      dir,
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`shared-ctx: cannot run ${missing} (missing or not executable)`);
    expect(run.stderr).toContain('refused (hooks.whenStoreDown = "deny")');
    expect(run.stderr).toContain("Fix: ");
  });

  it("a missing binary with whenStoreDown allow: exit 0 with a warning for the person and the model", () => {
    const dir = realpathSync(tempDir());
    const run = runHookLine(
      guardedHookCommand({ kind: "project" }, args, "PostToolUse", "allow"),
      { CLAUDE_PROJECT_DIR: dir },
      dir,
    );
    expect(run.code).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(output.systemMessage).toContain("node_modules/.bin/shared-ctx");
    expect(output.systemMessage).toContain("UNCHECKED");
    expect(output.hookSpecificOutput).toEqual({
      hookEventName: "PostToolUse",
      additionalContext: output.systemMessage,
    });
  });

  it("the project's install is found from a subfolder session, by the hook and the MCP server", () => {
    const dir = realpathSync(tempDir());
    fakeBin(join(dir, "node_modules", ".bin", "shared-ctx"));
    mkdirSync(join(dir, "packages", "web"), { recursive: true });
    const env = { CLAUDE_PROJECT_DIR: join(dir, "packages", "web") };
    const hook = runHookLine(
      guardedHookCommand({ kind: "project" }, args, "PreToolUse", "deny"),
      env,
      join(dir, "packages", "web"),
    );
    expect(hook.stdout).toContain("ran hook pre-tool-use");
    const server = serverCommand({ kind: "project" }, ["mcp"]);
    const spawned = spawnSync(server.command, server.args, {
      cwd: join(dir, "packages", "web"),
      input: "",
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    expect(spawned.stdout).toBe("ran mcp\n");
  });
});

describe("launcherOf", () => {
  const tempDir = useTempDir("shared-ctx-launcher-of-");

  it("a clone (or a global install) is run by its bin's absolute path", () => {
    const dir = realpathSync(tempDir());
    const clone = join(dir, "tools", "shared-ctx");
    mkdirSync(clone, { recursive: true });
    expect(launcherOf(join(dir, "acme"), clone)).toEqual<Launcher>({
      kind: "path",
      path: join(clone, "bin", "shared-ctx.js"),
    });
  });

  it("the project's own node_modules package (or one above it) is run as node_modules/.bin/shared-ctx", () => {
    const dir = realpathSync(tempDir());
    const installed = join(dir, "acme", "node_modules", "shared-ctx");
    mkdirSync(installed, { recursive: true });
    expect(launcherOf(join(dir, "acme"), installed)).toEqual({ kind: "project" });
    expect(launcherOf(join(dir, "acme", "packages", "web"), installed)).toEqual({
      kind: "project",
    });
    // Another project's install is not this one's.
    expect(launcherOf(join(dir, "other"), installed)).toEqual({
      kind: "path",
      path: join(installed, "bin", "shared-ctx.js"),
    });
    // --command wins: an executable that exists, or a name on PATH.
    const own = join(dir, "opt-shared-ctx");
    writeFileSync(own, "");
    expect(launcherOf(join(dir, "acme"), installed, own)).toEqual({ kind: "path", path: own });
    expect(launcherOf(join(dir, "acme"), installed, "shared-ctx")).toEqual({
      kind: "path",
      path: "shared-ctx",
    });
    // A command line, or a path that is not there, is named, never written into the hooks.
    expect(() => launcherOf(join(dir, "acme"), installed, "node /opt/shared-ctx.js")).toThrow(
      "--command node /opt/shared-ctx.js: no such file",
    );
  });
});
