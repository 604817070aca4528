#!/usr/bin/env node
// npm run test:mutation [-- [--break <score>] <path>[,<path>...] ...]
//
// One Stryker run per argument (default: the four core folders), each with its own incremental
// file and report under reports/mutation/<name>/, and its own tests: the mirror of each mutated
// path's top folder under test/ (src/scenario/... -> test/scenario/**), so a mutant counts as
// killed only by the tests written for that code, not by an end-to-end run that happens to
// cross it (less `slowTests`, and the Postgres files unless src/context/postgres is mutated).
// Comma-join paths to mutate them in one run. `--break <score>` fails a run whose
// mutation score is below it; `--tests <glob>[,<glob>...]` replaces the mirrored tests (CI's smoke
// run judges two small modules by their own unit tests alone). Prints one score line per run.
// `--batches <n>` splits each folder into n runs of about equal size (own incremental file and
// report each, reports/mutation/<name>.part-<k>of<n>/), then prints the folder's score over them:
// Stryker writes its results only when a run ends, so a long folder run (an hour or more on a
// 2-core machine) that is stopped keeps the batches that finished, and a rerun reuses them.
// `--plan` prints the runs (what each mutates, which tests judge it) without running them.
// `--equivalents` lists the mutants shown equivalent in the given paths, from
// mutation-equivalents.json (the source carries no directives, so Stryker counts them as
// survivors: the list explains that part of the gap), one line each with its reason.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const coreFolders = ["src/context", "src/crdt", "src/scenario", "src/server"];

/** Tests that exercise a top folder's code besides its own mirror (agents run inside scenarios). */
const extraTests = new Map([["agents", ["scenario"]]]);

const args = process.argv.slice(2);
let breakAt = 0;
let tests;
let batches = 1;
let planOnly = false;
let listEquivalents = false;
const runs = [];
for (let index = 0; index < args.length; index += 1) {
  const arg = args[index] ?? "";
  if (arg === "--break") {
    breakAt = Number(args[index + 1]);
    index += 1;
  } else if (arg === "--plan") {
    planOnly = true;
  } else if (arg === "--equivalents") {
    listEquivalents = true;
  } else if (arg === "--batches") {
    batches = Number(args[index + 1]);
    index += 1;
    if (!Number.isInteger(batches) || batches < 1) {
      throw new Error("test:mutation: --batches takes a whole number of runs, 1 or more");
    }
  } else if (arg === "--tests") {
    tests = args[index + 1];
    index += 1;
  } else {
    runs.push(arg);
  }
}
if (runs.length === 0) runs.push(...coreFolders);

/**
 * The mutants shown equivalent under the given paths, from mutation-equivalents.json beside the
 * Stryker configuration (file, the code the mutant sits on, the mutators, why no test can tell
 * them apart). The source carries no directives: Stryker counts these mutants as survivors, and
 * this list explains that part of the gap between a folder's score and 100 %.
 */
function printEquivalents(paths) {
  const equivalents = JSON.parse(readFileSync("mutation-equivalents.json", "utf8"));
  for (const target of paths) {
    const inTarget = (file) =>
      target.endsWith(".ts") ? file === target : file.startsWith(`${target}/`);
    const found = equivalents
      .filter((entry) => inTarget(entry.file))
      .map(
        (entry) =>
          `${entry.file}  ${entry.mutators.join(",")} on \`${entry.code}\`: ${entry.reason}`,
      );
    process.stdout.write(
      `\n=== ${target}: ${found.length} listed equivalent\n${found.join("\n")}\n`,
    );
  }
}

if (listEquivalents) {
  printEquivalents(
    runs.flatMap((run) => run.split(",")).map((target) => target.replace(/\/+$/, "")),
  );
  process.exit(0);
}

function mutateGlobs(target) {
  const clean = target.replace(/\/+$/, "");
  if (!existsSync(clean)) throw new Error(`test:mutation: no such path ${clean}`);
  return clean.endsWith(".ts") ? [clean] : [`${clean}/**/*.ts`, `!${clean}/**/*.d.ts`];
}

/** The TypeScript sources under a folder (no declaration files), in path order. */
function sourcesUnder(folder) {
  return readdirSync(folder, { recursive: true })
    .map((entry) => path.join(folder, String(entry)))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .sort();
}

/** `files` in `count` groups of about equal size (biggest file first into the smallest group). */
function splitBySize(files, count) {
  const groups = Array.from({ length: Math.min(count, files.length) }, () => ({
    size: 0,
    files: [],
  }));
  const bySize = files.map((file) => ({ file, size: statSync(file).size }));
  bySize.sort((left, right) => right.size - left.size);
  for (const { file, size } of bySize) {
    const smallest = groups.reduce((best, group) => (group.size < best.size ? group : best));
    smallest.files.push(file);
    smallest.size += size;
  }
  return groups.map((group) => group.files.sort());
}

/**
 * Test files of a mirror that judge no mutant there: each starts processes or whole runs (seconds a
 * test), and Stryker runs a covering test once per mutant, so with them a folder run takes hours and
 * its dry run times out on a busy machine. Their code paths are judged by the unit tests beside them.
 */
const slowTests = [
  "test/context/embedded/embedded-store.processes.e2e.test.ts",
  "test/context/statewave/statewave-v0-7-1.scenarios.e2e.test.ts",
  "test/context/statewave/statewave-v0-7-1.mcp.test.ts",
];

/** The Postgres store's tests need a Postgres started per file: they judge src/context/postgres only. */
const postgresTests = "test/context/postgres/";

function testGlobs(targets) {
  const tops = new Set();
  for (const target of targets) {
    const top = target.split("/")[1] ?? "";
    tops.add(top);
    for (const extra of extraTests.get(top) ?? []) tops.add(extra);
  }
  const postgres = targets.some((target) => target.startsWith("src/context/postgres"));
  return [...tops].flatMap((top) =>
    existsSync(path.join("test", top))
      ? readdirSync(path.join("test", top), { recursive: true })
          .map((entry) => path.join("test", top, String(entry)))
          .filter((file) => /\.test\.tsx?$/.test(file) && !slowTests.includes(file))
          .filter((file) => postgres || !file.startsWith(postgresTests))
          .sort()
      : [],
  );
}

/** Whether a report's file is one of the run's targets (a file, or a file under a folder). */
function isMutatedBy(targets, file) {
  return targets.some((target) => file === target || file.startsWith(`${target}/`));
}

/**
 * Stryker's score: detected / (detected + undetected); mutants that do not compile are left out, and
 * the equivalents of mutation-equivalents.json count as undetected (the list explains them). Only the
 * run's own files count: a report also carries files its incremental file remembers from runs that
 * mutated them (a file `--batches` moved to another batch would otherwise count twice).
 */
function scoreOf(reportFile, targets) {
  const report = JSON.parse(readFileSync(reportFile, "utf8"));
  const counts = {};
  for (const [file, result] of Object.entries(report.files)) {
    if (!isMutatedBy(targets, file)) continue;
    for (const mutant of result.mutants) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
  }
  return { score: scoreOfCounts(counts), counts };
}

function scoreOfCounts(counts) {
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const undetected = (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  const total = detected + undetected;
  return total === 0 ? 100 : (100 * detected) / total;
}

const stryker = path.join("node_modules", "@stryker-mutator", "core", "bin", "stryker.js");
const summary = [];
let failed = false;

function nameOf(targets) {
  const name = targets
    .map((target) => target.replace(/^src\//, "").replace(/[/.]/g, "-"))
    .join("+");
  if (name.length <= 150) return name;
  // A folder name has a length limit (255 bytes): a long list is named by its first path, its
  // size and a digest of the whole list, so the same list finds its incremental file again.
  const digest = createHash("sha256").update(name).digest("hex").slice(0, 10);
  return `${name.split("+")[0]}+${targets.length - 1}-more-${digest}`;
}

/** One Stryker run; the counts of its report, or undefined when it wrote none. */
function runStryker({ label, name, targets, testFiles }) {
  const mutate = targets.flatMap(mutateGlobs);
  const reportDir = path.join("reports", "mutation", name);
  process.stdout.write(`\n=== mutation: ${label} (report: ${reportDir}/)\n`);
  if (planOnly) {
    process.stdout.write(`mutate: ${mutate.join(" ")}\ntests: ${testFiles}\n`);
    return undefined;
  }
  const started = Date.now();
  const result = spawnSync(
    process.execPath,
    [
      stryker,
      "run",
      "stryker.config.mjs",
      "--mutate",
      mutate.join(","),
      "--testFiles",
      testFiles,
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
    summary.push(`${label}: no report (exit ${result.status}) after ${minutes} min`);
    return undefined;
  }
  const { score, counts } = scoreOf(reportFile, targets);
  summary.push(`${label}: ${score.toFixed(2)} % (${JSON.stringify(counts)}) in ${minutes} min`);
  return counts;
}

for (const run of runs) {
  const targets = run.split(",").map((target) => target.replace(/\/+$/, ""));
  const testFiles = tests ?? testGlobs(targets).join(",");
  const folder = targets.length === 1 && !targets[0].endsWith(".ts") ? targets[0] : undefined;
  if (batches === 1 || folder === undefined) {
    runStryker({
      label: targets.join(", "),
      name: nameOf(targets),
      targets,
      testFiles,
    });
    continue;
  }
  mutateGlobs(folder);
  const parts = splitBySize(sourcesUnder(folder), batches);
  const total = {};
  let complete = true;
  parts.forEach((files, index) => {
    const part = `part-${index + 1}of${parts.length}`;
    const counts = runStryker({
      label: `${folder} ${part} (${files.length} files)`,
      name: `${nameOf([folder])}.${part}`,
      targets: files,
      testFiles,
    });
    if (counts === undefined) complete = false;
    for (const [status, count] of Object.entries(counts ?? {})) {
      total[status] = (total[status] ?? 0) + count;
    }
  });
  if (planOnly) continue;
  const score = scoreOfCounts(total);
  summary.push(
    `${folder}, ${complete ? "all" : "NOT all"} ${parts.length} batches: ${score.toFixed(2)} % (${JSON.stringify(total)})`,
  );
  if (breakAt > 0 && score < breakAt) failed = true;
}
if (!planOnly) process.stdout.write(`\n--- mutation scores\n${summary.join("\n")}\n`);
process.exitCode = failed ? 1 : 0;
