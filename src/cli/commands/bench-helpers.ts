import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidArgumentError } from "commander";
import type { CliDeps } from "../cli-deps.js";

/** A commander parser for `--repeats`: a whole number from `min` to `max`. */
export function wholeNumberWithin(min: number, max: number): (raw: string) => number {
  return (raw) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`expected a whole number ${min}..${max}`);
    }
    return value;
  };
}

/** A benchmark's progress, one `… message` line each on stderr, so that stdout stays clean. */
export function progressOnStderr(deps: CliDeps): (message: string) => void {
  return (message) => deps.stderr.write(`… ${message}\n`);
}

/** Runs `use` in a fresh temporary folder (named `prefix…`), removed afterwards whatever happens. */
export async function inScratchFolder<T>(
  prefix: string,
  use: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
