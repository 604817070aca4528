import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Starts a TypeScript file as a child process (through tsx, so tests need no build),
 * with the repo root as its working directory.
 */
export function spawnTsChild(
  scriptPath: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", scriptPath, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Collects a child's stdout and stderr and resolves with its exit code. */
export function waitForExit(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
