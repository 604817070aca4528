#!/usr/bin/env node
// Start-up (issue 12): run after `tsc` by `npm run build`. Validates every shipped scenario with the
// built loader and writes dist/scenarios/<name>.json (the scenario and the SHA-256 of its file), so
// the demo reads its scenario without loading YAML and zod before its first frame. See
// src/scenario/compiled-scenarios.ts; a scenario edited after the build is loaded as usual.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const shipped = resolve(root, "scenarios");
const output = resolve(root, "dist", "scenarios");
const { loadScenario } = await import(resolve(root, "dist/scenario/load-scenario.js"));
const { scenarioSourceHash } = await import(resolve(root, "dist/scenario/compiled-scenarios.js"));

rmSync(output, { recursive: true, force: true });
mkdirSync(output, { recursive: true });
let count = 0;
for (const file of readdirSync(shipped).sort()) {
  if (![".yaml", ".yml", ".json"].includes(extname(file).toLowerCase())) continue;
  const name = basename(file, extname(file));
  // Throws (and fails the build) on a shipped scenario that does not validate.
  const scenario = await loadScenario(name);
  const sha256 = scenarioSourceHash(readFileSync(resolve(shipped, file)));
  writeFileSync(
    resolve(output, `${name}.json`),
    JSON.stringify({ source: file, sha256, scenario }),
  );
  count += 1;
}
process.stdout.write(
  `compile-scenarios: ${count} shipped scenarios validated into dist/scenarios\n`,
);
