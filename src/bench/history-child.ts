import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * `bench history`'s child processes: a command of the built bin run to its exit, timed from the
 * outside, with its own peak resident set reported by the child as it exits.
 */

/** Reports the child's peak RSS (kB, `process.resourceUsage().maxRSS`) on fd 3 as it exits. */
const rssProbeSource = `import { writeSync } from "node:fs";
process.on("exit", () => {
  try { writeSync(3, String(process.resourceUsage().maxRSS)); } catch {}
});
`;

/** How one child ran: wall time, exit code, peak RSS in MB (NaN when the probe said nothing). */
export interface ChildRun {
  readonly wallMs: number;
  readonly code: number | null;
  readonly rssMb: number;
  readonly stderr: string;
}

/** Writes the RSS probe into `dir` and returns its path, for {@link runChild}. */
export function writeRssProbe(dir: string): string {
  const path = join(dir, "rss-probe.mjs");
  writeFileSync(path, rssProbeSource);
  return path;
}

/**
 * Runs `node --import <probe> <bin> <args>` to its exit, its stdout thrown away (a pipe nobody
 * reads would stall it; /dev/null costs nothing), its stderr kept for the reason of a failure.
 */
export function runChild(
  bin: string,
  args: readonly string[],
  options: { probe: string; cwd: string; env?: NodeJS.ProcessEnv },
): Promise<ChildRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", options.probe, bin, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "ignore", "pipe", "pipe"],
  });
  let rss = "";
  let stderr = "";
  child.stdio[3]?.on("data", (chunk: Buffer) => {
    rss += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      resolve({
        wallMs: performance.now() - started,
        code,
        rssMb: rss === "" ? Number.NaN : Number(rss) / 1024,
        stderr,
      });
    });
  });
}
