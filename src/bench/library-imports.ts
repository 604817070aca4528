import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { median, round, spread } from "./latency.js";
import { exitReason, type ProbeSetting, runProbed } from "./probed-child.js";

/** How long loading one library entry point takes, in a fresh process. */
export interface ImportFigure {
  /** `import shared-ctx/langgraph`, `require shared-ctx`. */
  readonly name: string;
  /** Median milliseconds of the import itself, as the importing process timed it. */
  readonly importMs: number;
  /** Median wall milliseconds of the whole process (Node's own start included). */
  readonly wallMs: number;
  readonly spreadMs: readonly [number, number];
  /** Set when the entry could not be loaded (e.g. not built, or a peer missing). */
  readonly error?: string;
}

/** The library's entry points, as a consumer loads them (`package.json` `exports`). */
const libraryEntries: ReadonlyArray<{ name: string; file: string; loader: "import" | "require" }> =
  [
    { name: "import shared-ctx", file: "index.js", loader: "import" },
    { name: "require shared-ctx", file: "index.cjs", loader: "require" },
    { name: "import shared-ctx/langgraph", file: "langgraph.js", loader: "import" },
    { name: "import shared-ctx/mcp", file: "mcp.js", loader: "import" },
    { name: "import shared-ctx/llm", file: "llm.js", loader: "import" },
    { name: "import shared-ctx/server", file: "server.js", loader: "import" },
  ];

/** Each entry point of the package at `packageRoot`, loaded `repeats` times in fresh processes. */
export async function measureLibraryImports(
  packageRoot: string,
  repeats: number,
  common: ProbeSetting,
  progress: (message: string) => void,
): Promise<ImportFigure[]> {
  const figures: ImportFigure[] = [];
  for (const entry of libraryEntries) {
    progress(`${entry.name} × ${repeats}`);
    const path = join(packageRoot, "dist", entry.file);
    // The process times the load itself (Node's own start-up is not counted in importMs) and
    // reports it on stderr, the stream the probe runner keeps.
    const report = "process.stderr.write('import-ms='+(performance.now()-t))";
    const load =
      entry.loader === "import"
        ? `const t=performance.now();await import(${JSON.stringify(pathToFileURL(path).href)});${report}`
        : `const t=performance.now();require(${JSON.stringify(path)});${report}`;
    const args = entry.loader === "import" ? ["--input-type=module", "-e", load] : ["-e", load];
    const importTimes: number[] = [];
    const wallTimes: number[] = [];
    let error: string | undefined;
    for (let index = 0; index < repeats && error === undefined; index += 1) {
      const outcome = await runProbed(args, common);
      const measured = Number.parseFloat(/import-ms=([\d.]+)/.exec(outcome.stderr)?.[1] ?? "");
      if (outcome.code !== 0 || !Number.isFinite(measured)) {
        error = exitReason(outcome);
        break;
      }
      importTimes.push(measured);
      wallTimes.push(outcome.wallMs);
    }
    figures.push(
      error === undefined
        ? {
            name: entry.name,
            importMs: round(median(importTimes)),
            wallMs: round(median(wallTimes)),
            spreadMs: spread(importTimes),
          }
        : { name: entry.name, importMs: Number.NaN, wallMs: Number.NaN, spreadMs: [0, 0], error },
    );
  }
  return figures;
}
