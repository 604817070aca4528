import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Scenario } from "./scenario-schema.js";

/**
 * Shipped scenarios validated once, by the build: `dist/scenarios/<name>.json` holds the result of
 * `loadScenario(name)` and the SHA-256 of the file it came from. Reading one needs neither YAML nor
 * zod, which are most of what the demo loads before its first frame (~50 ms of CPU). The loader
 * stays the authority: a missing, unreadable or stale file (the scenario was edited since the
 * build) reads as `undefined`, and the caller loads the scenario the usual way.
 */

/** One compiled scenario file. */
export interface CompiledScenario {
  /** The shipped file it was compiled from (`late-decision.yaml`). */
  readonly source: string;
  /** SHA-256 (hex) of that file's bytes. */
  readonly sha256: string;
  readonly scenario: Scenario;
}

/** Options of {@link readCompiledScenario}; the defaults are where the build puts the files. */
export interface ReadCompiledScenarioOptions {
  /** @default dist/scenarios (beside this module's folder, in dist/ and in the CLI bundle) */
  readonly compiledDirectory?: string;
  /** @default the shipped scenarios folder */
  readonly shippedDirectory?: string;
}

/** A shipped scenario's name, never a path: anything else is the loader's to resolve. */
const plainName = /^[\w-]+$/;

/** The SHA-256 of a scenario file's bytes, as {@link CompiledScenario.sha256} records it. */
export function scenarioSourceHash(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The shipped scenario `name` as the build validated it, or `undefined` when there is no compiled
 * file for it or its source changed since (then load it with `loadScenario`).
 */
export async function readCompiledScenario(
  name: string,
  options: ReadCompiledScenarioOptions = {},
): Promise<Scenario | undefined> {
  if (!plainName.test(name)) return undefined;
  const compiledDirectory =
    options.compiledDirectory ?? fileURLToPath(new URL("../scenarios/", import.meta.url));
  const shippedDirectory =
    options.shippedDirectory ?? fileURLToPath(new URL("../../scenarios/", import.meta.url));
  try {
    const compiled = JSON.parse(
      await readFile(join(compiledDirectory, `${name}.json`), "utf8"),
    ) as CompiledScenario;
    // The record names its source; only a file of that name in the shipped folder counts.
    if (basename(compiled.source, extname(compiled.source)) !== name) return undefined;
    const source = await readFile(join(shippedDirectory, basename(compiled.source)));
    return scenarioSourceHash(source) === compiled.sha256 ? compiled.scenario : undefined;
  } catch {
    // No usable compiled record: undefined, returned below (a `return` here would be a block no
    // test can tell from an empty one).
  }
  return undefined;
}
