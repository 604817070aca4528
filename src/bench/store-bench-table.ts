import { type StoreBenchResult, serveTargets } from "./store-bench.js";

/** The table `bench store` prints: one row per figure, with its target's verdict. */

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

function number(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function verdict(target: string, met: boolean): string {
  return `target ${target}: ${met ? "MET" : "MISSED"}`;
}

/** The one table `bench store` prints. */
export function formatStoreBenchTable(result: StoreBenchResult): string {
  const rows = [...ingestRows(result), ...readRows(result), ...serveRows(result)];
  const widths = [0, 1, 2].map((column) =>
    Math.max(...rows.map((row) => row[column as 0 | 1 | 2].length)),
  );
  const { machine } = result;
  const lines = [
    `shared-ctx bench store — Node ${machine.node}, SQLite ${machine.sqlite}, ${machine.cpus} CPUs, ${machine.platform}, load ${machine.loadAverage}`,
    "",
    ...rows.map(([name, value, note]) =>
      `${pad(name, widths[0] ?? 0)}  ${pad(value, widths[1] ?? 0)}  ${note}`.trimEnd(),
    ),
    "",
    `(one run, ${result.totalSeconds} s${result.loadAverageAtEnd === undefined ? "" : `; load at the end ${result.loadAverageAtEnd}`})`,
  ];
  return `${lines.join("\n")}\n`;
}

/** One row of the table: what was measured, the figure, the target's verdict (or ""). */
type Row = [string, string, string];

/** Creates per second against raw SQLite. */
function ingestRows(result: StoreBenchResult): Row[] {
  const rows: Row[] = [];
  const { ingest } = result;
  rows.push(["createEpisode, one at a time", `${number(ingest.singlePerSecond)} /s`, ""]);
  rows.push(["raw better-sqlite3 insert, same pragmas", `${number(ingest.rawPerSecond)} /s`, ""]);
  rows.push([
    "  createEpisode / raw",
    `${Math.round(ingest.singleToRaw * 100)} %`,
    verdict(">= 50 %", ingest.singleToRaw >= 0.5),
  ]);
  rows.push(["createEpisodesBatch (100 per call)", `${number(ingest.batchPerSecond)} /s`, ""]);
  rows.push(["raw insert, 100 per transaction", `${number(ingest.rawBatchPerSecond)} /s`, ""]);
  rows.push(["  batch / raw batch", `${Math.round(ingest.batchToRawBatch * 100)} %`, ""]);
  return rows;
}

/** getContext at each size, and getTimeline. */
function readRows(result: StoreBenchResult): Row[] {
  const rows: Row[] = [];
  for (const entry of result.context) {
    const target = entry.episodes === 10_000 ? 10 : entry.episodes === 100_000 ? 50 : undefined;
    rows.push([
      `getContext, ${number(entry.episodes)} episodes (${number(entry.memories)} memories)`,
      `p50 ${entry.p50.toFixed(2)} ms  p95 ${entry.p95.toFixed(2)} ms  (CPU p95 ${entry.cpuP95.toFixed(2)} ms)`,
      target === undefined ? "" : verdict(`p95 <= ${target} ms`, entry.p95 <= target),
    ]);
  }
  const { timeline } = result;
  if (timeline.episodes > 0)
    rows.push([
      `getTimeline, ${number(timeline.episodes)} episodes, first 100`,
      `p50 ${timeline.page100.p50.toFixed(2)} ms  p95 ${timeline.page100.p95.toFixed(2)} ms`,
      "",
    ]);
  if (timeline.episodes > 0)
    rows.push([
      `getTimeline, all ${number(timeline.episodes)}`,
      `p50 ${timeline.full.p50.toFixed(1)} ms`,
      "",
    ]);
  return rows;
}

/** `serve` over loopback, from another process and from autocannon in process. */
function serveRows(result: StoreBenchResult): Row[] {
  const rows: Row[] = [];
  const { serve } = result;
  if (serve && "skipped" in serve) {
    rows.push(["serve", "skipped", serve.skipped]);
  } else if (serve) {
    const { client, inProcess } = serve;
    const failures = client.failures > 0 ? ` (${client.failures} failed)` : "";
    rows.push([
      `serve: POST /v1/episodes, ${client.clients} clients in another process`,
      `${number(client.createsPerSecond)} /s  (p50 ${client.createP50Ms.toFixed(2)} ms  p95 ${client.createP95Ms.toFixed(2)} ms)`,
      `${verdict(`>= ${number(serveTargets.createsPerSecond)} /s`, client.createsPerSecond >= serveTargets.createsPerSecond)}${failures}`,
    ]);
    rows.push([
      `serve: POST /v1/context, ${number(client.contextMemories)} memories`,
      `p50 ${client.contextP50Ms.toFixed(2)} ms  p95 ${client.contextP95Ms.toFixed(2)} ms  (p10 ${client.contextP10Ms.toFixed(2)} ms)`,
      verdict(
        `p50 <= ${serveTargets.contextP50Ms} ms`,
        client.contextP50Ms <= serveTargets.contextP50Ms,
      ),
    ]);
    rows.push([
      "serve: GET /v1/timeline, same subject, first 100",
      `p50 ${client.timelineP50Ms.toFixed(2)} ms  p95 ${client.timelineP95Ms.toFixed(2)} ms  (p10 ${client.timelineP10Ms.toFixed(2)} ms)`,
      verdict(
        `p50 <= ${serveTargets.timelineP50Ms} ms`,
        client.timelineP50Ms <= serveTargets.timelineP50Ms,
      ),
    ]);
    rows.push([
      `serve: POST /v1/episodes, autocannon in process, ${inProcess.connections} conn.`,
      `${number(inProcess.createsPerSecond)} /s`,
      inProcess.non2xx + inProcess.errors > 0
        ? `(${inProcess.non2xx} non-2xx, ${inProcess.errors} errors)`
        : "",
    ]);
  }
  return rows;
}
