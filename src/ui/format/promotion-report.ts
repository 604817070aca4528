/**
 * A promotion as people and scripts read it: one block per item (status, who wrote what, with
 * which authority, and the project decisions it supersedes or conflicts with), then what was
 * applied and what is held. Pure: lines in, lines out; `promotionDocument` is the `--json` shape.
 */
import type { AppliedItem, PromotionResult } from "../../promotion/apply-promotion.js";
import type {
  PromotionCandidate,
  PromotionItem,
  PromotionPlan,
} from "../../promotion/plan-promotion.js";

function targetOf(candidate: PromotionCandidate): string | undefined {
  const target = candidate.memory.metadata.target;
  return typeof target === "string" ? target : undefined;
}

/** `coder (agent): "Use JWT"`: who, with which authority, said what. */
function said(candidate: PromotionCandidate): string {
  return `${candidate.author} (${candidate.authority}): ${JSON.stringify(candidate.memory.content)}`;
}

const statusWidth = 11;

function itemLines(item: PromotionItem, outcome: AppliedItem | undefined): string[] {
  const target = targetOf(item.decision);
  const head = `${item.status.padEnd(statusWidth)}${item.id}${target ? `  on ${target}` : ""}`;
  const lines = [head, `${" ".repeat(statusWidth)}${said(item.decision)}`];
  const indent = " ".repeat(statusWidth + 2);
  switch (item.status) {
    case "new":
      break;
    case "supersedes":
      for (const older of item.supersedes)
        lines.push(`${indent}supersedes ${older.memory.id} ${said(older)}`);
      break;
    case "conflict":
      for (const side of item.against) {
        const why = [
          side.unread ? `${item.decision.author} never read it` : "",
          side.outranks ? `it outranks ${item.decision.authority}` : "",
        ]
          .filter(Boolean)
          .join("; ");
        lines.push(
          `${indent}conflicts with ${side.decision.memory.id} ${said(side.decision)} (${why})`,
        );
      }
      break;
    case "unchanged":
      lines.push(
        `${indent}promoted before as ${item.promoted.memory.id} (${item.promoted.memory.status})`,
      );
      break;
    case "rejected":
      lines.push(`${indent}rejected by ${item.rejection.by} at ${item.rejection.at}`);
      break;
  }
  if (outcome !== undefined) lines.push(`${indent}-> ${outcomeWords(outcome)}`);
  return lines;
}

function outcomeWords(applied: AppliedItem): string {
  switch (applied.outcome) {
    case "promoted": {
      const ids = applied.memories.map((memory) => memory.id).join(", ");
      return `promoted${ids ? ` as ${ids}` : ""}`;
    }
    case "rejected":
      return `rejected (recorded as ${applied.verdict.id})`;
    case "held":
      return "held: needs --approve or --reject";
    case "unchanged":
      return "unchanged";
  }
}

/**
 * The report of a plan (`result` undefined: a dry run) or of an applied promotion.
 * The last line says what happened and, when something is held, how to settle it.
 */
export function formatPromotionReport(plan: PromotionPlan, result?: PromotionResult): string[] {
  const outcomes = new Map(result?.items.map((applied) => [applied.item.id, applied]));
  const lines = [`Promotion of ${plan.runSubjectId} into ${plan.projectSubjectId}`, ""];
  if (plan.items.length === 0) lines.push("  (the run has no active decisions)");
  for (const item of plan.items) {
    lines.push(...itemLines(item, outcomes.get(item.id)).map((line) => `  ${line}`), "");
  }
  const count = (status: PromotionItem["status"]) =>
    plan.items.filter((item) => item.status === status).length;
  lines.push(
    `Plan: ${count("new")} new, ${count("supersedes")} superseding, ${count("conflict")} conflicting, ${count("unchanged")} unchanged, ${count("rejected")} rejected before.`,
  );
  if (result === undefined) {
    lines.push("Dry run: nothing was written.");
    return lines;
  }
  const promoted = result.items.filter((applied) => applied.outcome === "promoted").length;
  const rejected = result.items.filter((applied) => applied.outcome === "rejected").length;
  lines.push(
    `Applied: ${promoted} promoted, ${rejected} rejected, ${result.verdicts.length} verdict${result.verdicts.length === 1 ? "" : "s"} recorded.`,
  );
  if (result.held.length > 0) {
    lines.push(
      `Held: ${result.held.length} conflicting (${result.held.map((item) => item.id).join(", ")}): settle each with --approve <id> or --reject <id>.`,
    );
  }
  return lines;
}
