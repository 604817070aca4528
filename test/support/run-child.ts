import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
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

/** A child driven line by line: `send(line)` writes to its stdin, `next()` reads its next line. */
export interface DrivenChild {
  readonly child: ChildProcess;
  send(line: string): void;
  /** Resolves with the next line the child prints; rejects, with its stderr, if it exits first. */
  next(): Promise<string>;
}

/** Starts `scriptPath` as {@link spawnTsChild} does, to be driven line by line; `name` is for errors. */
export function drivenChild(
  scriptPath: string,
  args: readonly string[],
  name = "child",
): DrivenChild {
  const child = spawnTsChild(scriptPath, args);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[
    Symbol.asyncIterator
  ]();
  return {
    child,
    send: (line) => {
      child.stdin?.write(`${line}\n`);
    },
    next: async () => {
      const line = await lines.next();
      if (line.done) throw new Error(`${name} exited early: ${stderr}`);
      return line.value;
    },
  };
}
