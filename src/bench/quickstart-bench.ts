import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchMachine, benchMachine, loadAverage } from "./bench-machine.js";
import { round } from "./latency.js";

/**
 * The README's quickstart as a newcomer runs it, on a fresh clone: `git clone`, `npm install`
 * (which builds, through `prepare`), then `npm run demo` in a pseudo-terminal, timed from spawn
 * to the demo's first frame (its header line), the first time and again. A benchmark, never a
 * test: the figure depends on the machine.
 */

/** Options of {@link runQuickstartBench}. */
export interface QuickstartBenchOptions {
  /** The repository to clone (a path or URL git accepts). */
  readonly repository: string;
  /** A scratch folder; the clone goes in `clone/` inside it. */
  readonly dir: string;
  /** `npm run demo` starts timed after the first one. @default 3 */
  readonly repeats?: number;
  /** Called before each step. */
  readonly onProgress?: (message: string) => void;
  /**
   * A clone already installed (by an earlier run of this bench, say): only `npm run demo` is
   * timed, to measure again on a quieter machine without minutes of install.
   */
  readonly installed?: string;
}

/** What {@link runQuickstartBench} measured. */
export interface QuickstartBenchResult {
  readonly machine: BenchMachine;
  /** Wall milliseconds of `git clone` and of `npm install` (the build included); absent with `installed`. */
  readonly cloneMs?: number;
  readonly installMs?: number;
  /** Spawn of `npm run demo` to its first frame, the first time after the install. */
  readonly firstFrameMs: number;
  /** The same, the later starts (median and each). */
  readonly againMs: readonly number[];
  /**
   * Medians of 5 in the same run: `node -e 0` and `npm --version` to their exit. A busy machine
   * slows them as it slows the demo; the first frame is judged against its target all the same.
   */
  readonly baselineMs: { readonly node: number; readonly npm: number };
  /** The target for the first frame. */
  readonly targetMs: number;
  readonly met: boolean;
}

/** This package's own folder (dist/bench/ or src/bench/ is two levels down): what is cloned. */
export const packageRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The first frame must be drawn within this, the first time. */
export const quickstartTargetMs = 1000;

const script = ["/usr/bin/script", "/bin/script"].find((path) => existsSync(path));

/** Runs a command to its end; rejects with its last stderr line on a non-zero exit. */
function runToEnd(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { ...options, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve(performance.now() - started);
      else {
        const said = stderr.trim().split("\n").at(-1) ?? "";
        reject(new Error(`${command} ${args.join(" ")} exited with ${code}: ${said}`));
      }
    });
  });
}

/** Milliseconds from spawn to the demo's header line in a pseudo-terminal; then stops it. */
function timeFirstFrame(cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  if (!script) return Promise.reject(new Error("needs `script` (util-linux) for a terminal"));
  const started = performance.now();
  // `exec` so the signal below reaches npm itself, and npm passes it on to the demo.
  const child = spawn(script, ["-qfec", "exec npm run demo", "/dev/null"], {
    cwd,
    env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error("no first frame within 60 s"));
    }, 60_000);
    const stop = () => {
      // The whole group: script, npm and the demo under it.
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {
          // Already gone.
        }
      }
    };
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      // The demo's own first line, not npm's banner before it.
      if (!output.includes("shared-ctx demo ·")) return;
      const elapsed = performance.now() - started;
      clearTimeout(timer);
      child.removeAllListeners("close");
      child.once("close", () => resolve(elapsed));
      stop();
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run demo exited with ${code} before its first frame`));
    });
  });
}

/** Clones, installs and times the quickstart's first frame; see the module comment. */
export async function runQuickstartBench(
  options: QuickstartBenchOptions,
): Promise<QuickstartBenchResult> {
  const progress = options.onProgress ?? (() => undefined);
  const repeats = Math.max(0, options.repeats ?? 3);
  const loadBefore = loadAverage(1);
  const clone = options.installed ?? join(options.dir, "clone");
  // As a newcomer's shell: no store, model or server settings of the caller's, not CI (Ink draws
  // only the last frame under CI).
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SHARED_CTX_DB: "",
    SHARED_CTX_DATABASE_URL: "",
    STATEWAVE_URL: "",
    LLM_MODEL: "",
    CI: "false",
    TERM: "xterm-256color",
    npm_config_loglevel: "error",
  };
  let setUp: { cloneMs: number; installMs: number } | undefined;
  if (options.installed === undefined) {
    progress(`git clone ${options.repository}`);
    const cloneMs = await runToEnd("git", ["clone", "--quiet", options.repository, clone], {
      cwd: options.dir,
      env,
    });
    progress("npm install (runs the build through `prepare`)");
    const installMs = await runToEnd("npm", ["install", "--no-audit", "--no-fund"], {
      cwd: clone,
      env,
    });
    setUp = { cloneMs: round(cloneMs), installMs: round(installMs) };
  }
  progress("npm run demo, the first time");
  const firstFrameMs = await timeFirstFrame(clone, env);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
  const baseline = async (command: string, args: string[]) => {
    const times: number[] = [];
    for (let index = 0; index < 5; index += 1)
      times.push(await runToEnd(command, args, { cwd: clone, env }));
    return round(median(times));
  };
  progress("node -e 0 and npm --version × 5 (the machine's own start-up, now)");
  const baselineMs = {
    node: await baseline(process.execPath, ["-e", "0"]),
    npm: await baseline("npm", ["--version"]),
  };
  const againMs: number[] = [];
  for (let index = 0; index < repeats; index += 1) {
    progress(`npm run demo, again (${index + 1}/${repeats})`);
    againMs.push(round(await timeFirstFrame(clone, env)));
  }
  return {
    machine: benchMachine({ loadBefore, loadAfter: loadAverage(1) }),
    ...setUp,
    firstFrameMs: round(firstFrameMs),
    againMs,
    baselineMs,
    targetMs: quickstartTargetMs,
    met: firstFrameMs <= quickstartTargetMs,
  };
}

/** The result as a few lines, the first frame against its target. */
export function formatQuickstartBench(result: QuickstartBenchResult): string {
  const { machine } = result;
  const again = result.againMs.length > 0 ? `; again: ${result.againMs.join(", ")} ms` : "";
  return `${[
    `shared-ctx bench quickstart — Node ${machine.node}, ${machine.cpus} CPUs, ${machine.platform}, load ${machine.loadBefore} → ${machine.loadAfter}`,
    "",
    ...(result.cloneMs !== undefined && result.installMs !== undefined
      ? [
          `  git clone          ${result.cloneMs} ms`,
          `  npm install        ${result.installMs} ms (dependencies and the build, through prepare)`,
        ]
      : ["  (an installed clone: only npm run demo timed)"]),
    `  npm run demo       first frame ${result.firstFrameMs} ms the first ${result.cloneMs === undefined ? "of these starts" : "time"}${again}`,
    `                     target ≤ ${result.targetMs} ms the first time: ${result.met ? "MET" : "MISSED"}`,
    `  for scale, now     node -e 0 ${result.baselineMs.node} ms, npm --version ${result.baselineMs.npm} ms`,
    "",
    "The first frame is the demo's header line in a pseudo-terminal (script), timed from the spawn of `npm run demo`.",
  ].join("\n")}\n`;
}
