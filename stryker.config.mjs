// Mutation testing (StrykerJS). Run it through `npm run test:mutation [-- <src path>...]`
// (scripts/test-mutation.mjs), which runs one Stryker process per path with that path's own
// incremental file, report and tests; this file holds what every run shares.
//
// Stryker 9.x, not 10: 10 requires Node >= 22 and this package supports Node 20.

/** Mutation score under which a run fails; scripts/test-mutation.mjs sets it per run. */
const breakAt = Number(process.env.STRYKER_BREAK ?? "0");

/** Where this run's HTML and JSON reports go; scripts/test-mutation.mjs names one per run. */
const reportDir = process.env.STRYKER_REPORT_DIR ?? "reports/mutation";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  // Drops mutants that do not compile before any test runs them (strict TS: many do not).
  checkers: ["typescript"],
  // src only: a test file mid-edit elsewhere in the tree must not stop a run over src.
  tsconfigFile: "tsconfig.build.json",
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: "perTest",
  // A busy 2-core machine shared with other work: one test runner, one checker. A machine left to
  // the run can take more (STRYKER_CONCURRENCY=2 on an idle 2-core machine).
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? "1"),
  // Only what reruns an unchanged mutant cost: results for unchanged code and tests are reused.
  incremental: true,
  // Mutants only executed while a module loads (constant tables) would rerun every test file.
  ignoreStatic: true,
  timeoutMS: 20_000,
  dryRunTimeoutMinutes: 15,
  thresholds: { high: 90, low: 80, break: breakAt > 0 ? breakAt : null },
  // Nothing the unit tests need from these; the sandbox copy stays small.
  ignorePatterns: ["dist", "coverage", "test-results", "scratch", ".scratch-*", "docs"],
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: `${reportDir}/mutation.html` },
  jsonReporter: { fileName: `${reportDir}/mutation.json` },
};
