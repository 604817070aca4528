#!/usr/bin/env node
// npm run test:mutation [-- [--break <score>] <path>[,<path>...] ...]
//
// One Stryker run per argument (default: the four core folders), each with its own incremental
// file and report under reports/mutation/<name>/, and its own tests: the mirror of each mutated
// path's top folder under test/ (src/scenario/... -> test/scenario/**), so a mutant counts as
// killed only by the tests written for that code, not by an end-to-end run that happens to
// cross it. Comma-join paths to mutate them in one run. `--break <score>` fails a run whose
// mutation score is below it; `--tests <glob>[,<glob>...]` replaces the mirrored tests (CI's smoke
// run judges two small modules by their own unit tests alone). Prints one score line per run.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const coreFolders = ["src/context", "src/crdt", "src/scenario", "src/server"];

/** Tests that exercise a top folder's code besides its own mirror (agents run inside scenarios). */
const extraTests = new Map([["agents", ["scenario"]]]);

const args = process.argv.slice(2);
let breakAt = 0;
let tests;
const runs = [];
for (let index = 0; index < args.length; index += 1) {
  const arg = args[index] ?? "";
  if (arg === "--break") {
    breakAt = Number(args[index + 1]);
    index += 1;
  } else if (arg === "--tests") {
    tests = args[index + 1];
    index += 1;
  } else {
    runs.push(arg);
  }
}
if (runs.length === 0) runs.push(...coreFolders);

function mutateGlobs(target) {
  const clean = target.replace(/\/+$/, "");
  if (!existsSync(clean)) throw new Error(`test:mutation: no such path ${clean}`);
  return clean.endsWith(".ts") ? [clean] : [`${clean}/**/*.ts`, `!${clean}/**/*.d.ts`];
}

function testGlobs(targets) {
  const tops = new Set();
  for (const target of targets) {
    const top = target.split("/")[1] ?? "";
    tops.add(top);
    for (const extra of extraTests.get(top) ?? []) tops.add(extra);
  }
  return [...tops].flatMap((top) => [`test/${top}/**/*.test.ts`, `test/${top}/**/*.test.tsx`]);
}

/** Stryker's score: detected / (detected + undetected); mutants that do not compile are left out. */
function scoreOf(reportFile) {
  const report = JSON.parse(readFileSync(reportFile, "utf8"));
  const counts = {};
  for (const file of Object.values(report.files)) {
    for (const mutant of file.mutants) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
  }
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const undetected = (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  const total = detected + undetected;
  return { score: total === 0 ? 100 : (100 * detected) / total, counts };
}

const stryker = path.join("node_modules", "@stryker-mutator", "core", "bin", "stryker.js");
const summary = [];
let failed = false;
for (const run of runs) {
  const targets = run.split(",").map((target) => target.replace(/\/+$/, ""));
  const name = targets
    .map((target) => target.replace(/^src\//, "").replace(/[/.]/g, "-"))
    .join("+");
  const reportDir = path.join("reports", "mutation", name);
  process.stdout.write(`\n=== mutation: ${targets.join(", ")} (report: ${reportDir}/)\n`);
  const started = Date.now();
  const result = spawnSync(
    process.execPath,
    [
      stryker,
      "run",
      "stryker.config.mjs",
      "--mutate",
      targets.flatMap(mutateGlobs).join(","),
      "--testFiles",
      tests ?? testGlobs(targets).join(","),
      "--incrementalFile",
      path.join(reportDir, "incremental.json"),
      "--tempDirName",
      path.join(".stryker-tmp", name),
    ],
    {
      stdio: "inherit",
      env: { ...process.env, STRYKER_BREAK: String(breakAt), STRYKER_REPORT_DIR: reportDir },
    },
  );
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const reportFile = path.join(reportDir, "mutation.json");
  if (result.status !== 0) failed = true;
  if (!existsSync(reportFile)) {
    summary.push(`${targets.join(", ")}: no report (exit ${result.status}) after ${minutes} min`);
    continue;
  }
  const { score, counts } = scoreOf(reportFile);
  summary.push(
    `${targets.join(", ")}: ${score.toFixed(2)} % (${JSON.stringify(counts)}) in ${minutes} min`,
  );
}
process.stdout.write(`\n--- mutation scores\n${summary.join("\n")}\n`);
process.exitCode = failed ? 1 : 0;
