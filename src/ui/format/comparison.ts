import type { RunSummary } from "../../scenario/scenario-events.js";
import { formatDuration, formatTokens, plural } from "./duration.js";
import { mechanismsOf, outcomeWords } from "./mode-labels.js";
import { fitWidth, textWidth } from "./text-width.js";

/** One line of the naive-vs-shared-context comparison. */
export interface ComparisonRow {
  readonly label: string;
  readonly naive: string;
  readonly statewave: string;
  /** Which side did better on this line ("same" when equal or not comparable). */
  readonly better: "naive" | "statewave" | "same";
}

function betterOf(naive: number, statewave: number): ComparisonRow["better"] {
  if (naive === statewave) return "same";
  return statewave < naive ? "statewave" : "naive";
}

function outcome(summary: RunSummary): string {
  const words = outcomeWords(summary);
  return words.endsWith("avoided") ? `${summary.conflictsAvoided} avoided` : words;
}

/** The mechanism behind the outcome: what avoided the conflicts, or what the collision lacked. */
function mechanismLine(summary: RunSummary): string {
  const used = mechanismsOf(summary);
  if (summary.collision && summary.collisionCause) {
    return `lacked ${summary.collisionCause}${used.length > 0 ? `; used ${used.join(", ")}` : ""}`;
  }
  return used.length > 0 ? used.join(", ") : "-";
}

/**
 * The cost under the one rule (docs/runner.md, *Cost*): tokens delivered into the agents'
 * contexts, and the coordination operations (messages delivered, store requests) that did it.
 */
function costLine(summary: RunSummary): string {
  const cost = summary.cost;
  if (cost === undefined) return "-";
  const operations = [
    ...(cost.messagesDelivered > 0 ? [plural(cost.messagesDelivered, "msg", "msgs")] : []),
    ...(cost.storeRequests > 0 ? [plural(cost.storeRequests, "store req", "store reqs")] : []),
  ];
  return [`${formatTokens(cost.deliveredTokens)} tokens`, ...operations].join(" · ");
}

/**
 * The comparison rows: outcome and the mechanism behind it, modules built in vain, what was
 * wasted, escalations, what agents had to read, and the totals (scenario time, never wall time).
 */
export function compareRuns(naive: RunSummary, statewave: RunSummary): ComparisonRow[] {
  const modules = (summary: RunSummary) =>
    summary.wastedModules.length > 0
      ? `${summary.wasted.modules} (${summary.wastedModules.join(", ")})`
      : String(summary.wasted.modules);
  return [
    {
      label: "Outcome",
      naive: outcome(naive),
      statewave: outcome(statewave),
      better:
        naive.collision === statewave.collision ? "same" : naive.collision ? "statewave" : "naive",
    },
    {
      label: "Mechanism",
      naive: mechanismLine(naive),
      statewave: mechanismLine(statewave),
      better: "same",
    },
    {
      label: "Modules built in vain",
      naive: modules(naive),
      statewave: modules(statewave),
      better: betterOf(naive.wasted.modules, statewave.wasted.modules),
    },
    {
      label: "Wasted",
      naive: `${formatTokens(naive.wasted.tokens)} tokens, ${formatDuration(naive.wasted.ms)}`,
      statewave: `${formatTokens(statewave.wasted.tokens)} tokens, ${formatDuration(statewave.wasted.ms)}`,
      better: betterOf(naive.wasted.tokens, statewave.wasted.tokens),
    },
    {
      label: "Escalations",
      naive: String(naive.escalations),
      statewave: String(statewave.escalations),
      better: "same",
    },
    {
      label: "Delivered",
      naive: costLine(naive),
      statewave: costLine(statewave),
      better: betterOf(naive.cost?.deliveredTokens ?? 0, statewave.cost?.deliveredTokens ?? 0),
    },
    {
      // Scenario time: the run's own clock, the same on every machine (never wall time).
      label: "Totals",
      naive: `${formatTokens(naive.totals.tokens)} tokens, ${formatDuration(naive.totals.ms)}`,
      statewave: `${formatTokens(statewave.totals.tokens)} tokens, ${formatDuration(statewave.totals.ms)}`,
      better: betterOf(naive.totals.tokens, statewave.totals.tokens),
    },
  ];
}

/** How many rows {@link compareRuns} returns (the layout reserves room for them). */
export const comparisonRowCount = 7;

/** "99 tokens (9 messages)", "278 tokens (59 store requests)": a side's cost under the rule. */
function deliveredPhrase(cost: NonNullable<RunSummary["cost"]>): string {
  const operations = [
    ...(cost.messagesDelivered > 0 ? [plural(cost.messagesDelivered, "message")] : []),
    ...(cost.storeRequests > 0 ? [plural(cost.storeRequests, "store request")] : []),
  ];
  return `${formatTokens(cost.deliveredTokens)} tokens${operations.length > 0 ? ` (${operations.join(", ")})` : ""}`;
}

/**
 * The cost, under the one rule, side by side (the cheaper side said plainly), after `lead` ("What
 * differs is the cost" for a tie, "What it costs" for a win); "" when not measured or the same.
 */
function deliveredSentence(baseline: RunSummary, shared: RunSummary, lead: string): string {
  const [a, b] = [baseline.cost, shared.cost];
  if (a === undefined || b === undefined || a.deliveredTokens === b.deliveredTokens) return "";
  const cheaper = a.deliveredTokens < b.deliveredTokens ? baseline.mode : "shared context";
  return ` ${lead}, under one rule for both: ${baseline.mode} delivered ${deliveredPhrase(a)}, shared context ${deliveredPhrase(b)}; ${cheaper} delivered less.`;
}

/**
 * What a `restart: coordinator` step did to each side, when the baseline is group-chat (the only
 * message passing with a coordinator to lose: its room's transcript and its claims live in memory,
 * the store's log is durable); "" when nothing restarted.
 */
function restartSentence(baseline: RunSummary, shared: RunSummary): string {
  if (baseline.mode !== "group-chat" || (baseline.coordinatorRestarts ?? []).length === 0)
    return "";
  const store =
    (shared.coordinatorRestarts ?? []).length > 0 ? "; the store's log lost nothing" : "";
  return ` The coordinator restarted: group-chat's room lost its transcript and claims (kept in memory)${store}.`;
}

/**
 * The one-sentence takeaway under the comparison, with the mechanism that made the difference. A
 * tie is said to be one; a baseline that did better is said to have.
 */
export function comparisonHeadline(
  naive: RunSummary,
  statewave: RunSummary,
  /** `none` leaves the cost out (a one-line view shows it apart: {@link comparisonCostLine}). */
  options: { cost?: "sentence" | "none" } = {},
): string {
  const tokens = naive.wasted.tokens - statewave.wasted.tokens;
  const ms = naive.wasted.ms - statewave.wasted.ms;
  const used = mechanismsOf(statewave);
  const by = used.length > 0 ? `, by ${used.join(" and ")}` : "";
  const open = (summary: RunSummary) => summary.referee?.openDisputes.length ?? 0;
  if (open(statewave) > 0) {
    return open(naive) > 0
      ? "Unresolved on both sides: a dispute nobody settled is still open; no side wins."
      : "Unresolved on the shared-context side: a dispute is still open; no win is claimed.";
  }
  if (tokens === 0 && ms === 0 && naive.collision === statewave.collision) {
    const reads =
      options.cost === "none"
        ? ""
        : deliveredSentence(naive, statewave, "What differs is the cost");
    const baselineUsed = mechanismsOf(naive);
    const both =
      baselineUsed.length > 0 && baselineUsed.join() === used.join()
        ? ` (both${by.slice(1)})`
        : by
          ? ` (shared context${by.slice(1)}; the baseline read the same decision)`
          : "";
    return naive.wasted.tokens === 0
      ? `A tie: neither side wasted work${both}.${reads}`
      : `A tie: both sides wasted the same work${both}.${reads}`;
  }
  if (tokens < 0 || (tokens === 0 && ms < 0)) {
    return `The baseline wasted less: ${formatTokens(-tokens)} tokens and ${formatDuration(Math.max(0, -ms))} fewer.`;
  }
  const saved = `${formatTokens(Math.max(0, tokens))} tokens and ${formatDuration(Math.max(0, ms))}`;
  const restart = restartSentence(naive, statewave);
  // A live view's one row (120 columns; at 80 the cause is what stays): the mechanism has its row.
  if (options.cost === "none" && restart !== "") {
    return `A coordinator restart lost group-chat's transcript, not the store's log: shared context saved ${saved}.`;
  }
  const costs = options.cost === "none" ? "" : deliveredSentence(naive, statewave, "What it costs");
  return `Shared context saved ${saved} of wasted work${by}.${restart}${costs}`;
}

/**
 * The cost under the one rule in a line short enough for a live view's one row: "Cost, one rule
 * for both: group-chat delivered less (99 vs 278 tokens)"; "" when not measured.
 */
export function comparisonCostLine(baseline: RunSummary, shared: RunSummary): string {
  const [a, b] = [baseline.cost?.deliveredTokens, shared.cost?.deliveredTokens];
  if (a === undefined || b === undefined) return "";
  if (a === b) return `Cost, one rule for both: the same (${formatTokens(a)} tokens delivered)`;
  const cheaper = a < b ? baseline.mode : "shared context";
  return `Cost, one rule for both: ${cheaper} delivered less (${formatTokens(a)} vs ${formatTokens(b)} tokens)`;
}

/** Column headers of the comparison. */
export const comparisonColumns = {
  label: "",
  naive: "Naive",
  statewave: "Shared context",
} as const;

/**
 * The comparison as a plain text table that fits `width` columns (the values column is cut with
 * "…" when the terminal is narrow). Used by the non-TTY output; the Ink view lays out the same rows.
 * @param titles the two columns' titles (@default "Naive", "Shared context")
 */
export function formatComparisonTable(
  rows: readonly ComparisonRow[],
  width: number,
  titles: readonly [string, string] = [comparisonColumns.naive, comparisonColumns.statewave],
): string[] {
  const labelWidth = Math.max(...rows.map((row) => textWidth(row.label)));
  const valueWidth = Math.max(8, Math.floor((width - labelWidth - 4) / 2));
  const line = (label: string, naive: string, statewave: string) =>
    `${fitWidth(label, labelWidth)}  ${fitWidth(naive, valueWidth)}  ${fitWidth(statewave, valueWidth)}`.trimEnd();
  return [
    line(comparisonColumns.label, titles[0], titles[1]),
    ...rows.map((row) => line(row.label, row.naive, row.statewave)),
  ];
}
