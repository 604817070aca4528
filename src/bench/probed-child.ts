import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { platform } from "node:os";

/**
 * Child processes timed from the outside, for `bench startup`: to their exit with their own CPU
 * use (the probe below), or to the first output a test of theirs accepts.
 */

/** Reports the child's own CPU use on fd 3 as it exits; loaded with `--import` into every probe. */
export const cpuProbeSource = `import { writeSync } from "node:fs";
process.on("exit", () => {
  const usage = process.cpuUsage();
  try { writeSync(3, String((usage.user + usage.system) / 1000)); } catch {}
});
`;

/** How a probed child ended: its wall time, its own CPU time (when the probe reported it). */
export interface ChildOutcome {
  readonly wallMs: number;
  readonly cpuMs?: number;
  readonly code: number | null;
  readonly stderr: string;
}

/** Where and how a probed child runs: the CPU probe's file, its folder and environment. */
export interface ProbeSetting {
  readonly probe: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** Runs `node <args>` to its exit with the CPU probe; resolves with its wall and CPU time. */
export function runProbed(
  args: readonly string[],
  options: ProbeSetting & { input?: string },
): Promise<ChildOutcome> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", options.probe, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.input === undefined ? "ignore" : "pipe", "ignore", "pipe", "pipe"],
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  let cpu = "";
  let stderr = "";
  child.stdio[3]?.on("data", (chunk: Buffer) => {
    cpu += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      const cpuMs = Number(cpu);
      resolve({
        wallMs: performance.now() - started,
        ...(cpu !== "" && Number.isFinite(cpuMs) ? { cpuMs } : {}),
        code,
        stderr,
      });
    });
  });
}

/** "exit 1: <the first line of stderr>": why a probed child's figure could not be measured. */
export function exitReason(outcome: ChildOutcome): string {
  return `exit ${outcome.code}: ${outcome.stderr.trim().split("\n")[0] ?? ""}`;
}

/**
 * Spawns a command and resolves with the milliseconds until `ready(output)` holds for its stdout,
 * then stops it. Rejects when it exits first or takes over 30 s.
 */
export function timeUntilOutput(
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    input?: string;
    ready: (output: string) => boolean;
  },
): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  let stderr = "";
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("no answer within 30 s"));
    }, 30_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (!options.ready(output)) return;
      const elapsed = performance.now() - started;
      clearTimeout(timer);
      child.removeAllListeners("close");
      child.once("close", () => resolve(elapsed));
      child.kill("SIGTERM");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      const said = stderr.trim().split("\n")[0] ?? "";
      reject(new Error(`exited with ${code} before answering${said ? `: ${said}` : ""}`));
    });
    if (options.input !== undefined) child.stdin.write(options.input);
  });
}

/** True when a frame has visible text (not only cursor and mode escapes). */
export function hasVisibleText(output: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what is stripped.
  return /\S/.test(output.replace(/\u001B\[[0-9;?]*[ -/]*[@-~]|\u001B[()][0-9A-Za-z]/g, ""));
}

/** The `script` command that gives the demo a pseudo-terminal (util-linux), when there is one. */
export function findScript(): string | undefined {
  if (platform() !== "linux") return undefined;
  return ["/usr/bin/script", "/bin/script"].find((path) => existsSync(path));
}

/** `argument` quoted for the shell `script -c` runs. */
export function shellQuote(argument: string): string {
  return `'${argument.replace(/'/g, `'\\''`)}'`;
}
