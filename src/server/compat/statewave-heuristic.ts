/**
 * Statewave v0.7.1's heuristic compiler and context assembly, re-implemented for the emulation
 * (`../../../shared/statewave-contract.md` §8, §9). Pure functions over plain rows; no I/O.
 * Exact tiktoken counts are not reproduced: tokens are estimated as ceil(characters / 4).
 */

import { profileFactsOf } from "../../context/profile-facts.js";

/** Any JSON value, as stored. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Python's `str()` of a JSON value: `True`, `None`, `42`, lists and dicts as Python repr. */
export function pythonStr(value: Json): string {
  if (typeof value === "string") return value;
  return pythonRepr(value);
}

function pythonRepr(value: Json): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") {
    return Number.isInteger(value) && Math.abs(value) < 1e16 ? String(value) : floatRepr(value);
  }
  if (typeof value === "string") {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const escaped = value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t");
    return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  const entries = Object.entries(value).map(
    ([key, inner]) => `${pythonRepr(key)}: ${pythonRepr(inner)}`,
  );
  return `{${entries.join(", ")}}`;
}

function floatRepr(value: number): string {
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/** Thrown where v0.7.1 raises while compiling (a `messages` that is not a list of objects). */
export class HeuristicCompileError extends Error {
  override readonly name = "HeuristicCompileError";
}

/** `extract_payload_text`: `messages` lines, else `text`, else `content`, else "" (§8.1). */
export function extractPayloadText(payload: { [key: string]: Json }): string {
  if (Object.hasOwn(payload, "messages")) {
    const messages = payload.messages;
    if (!Array.isArray(messages)) throw new HeuristicCompileError("messages is not a list");
    return messages
      .map((message) => {
        if (typeof message !== "object" || message === null || Array.isArray(message)) {
          throw new HeuristicCompileError("a message is not an object");
        }
        const role = message.role ?? "";
        const content = message.content ?? "";
        return `${pythonStr(role)}: ${pythonStr(content)}`;
      })
      .join("\n");
  }
  if (Object.hasOwn(payload, "text")) return pythonStr(payload.text ?? null);
  if (Object.hasOwn(payload, "content")) return pythonStr(payload.content ?? null);
  return "";
}

/** The first `count` code points, as a Python slice counts. */
export function codePoints(text: string, count: number): string {
  return Array.from(text).slice(0, count).join("");
}

/** What one episode compiles to (before ids and timestamps). */
export interface HeuristicDraft {
  kind: "episode_summary" | "profile_fact";
  content: string;
  summary: string;
  confidence: number;
}

/** One episode -> an `episode_summary` and its `profile_fact`s; none without text (§8). */
export function compileHeuristic(payload: { [key: string]: Json }): HeuristicDraft[] {
  const text = extractPayloadText(payload);
  if (!text) return [];
  const drafts: HeuristicDraft[] = [
    {
      kind: "episode_summary",
      content: codePoints(text, 500),
      summary: codePoints(text, 200),
      confidence: 0.8,
    },
  ];
  for (const content of profileFactsOf(text)) {
    drafts.push({
      kind: "profile_fact",
      content,
      summary: codePoints(content, 200),
      confidence: 0.6,
    });
  }
  return drafts;
}

/** Jaccard similarity of lowercased whitespace tokens (conflict resolution, §8). */
export function jaccard(a: string, b: string): number {
  const left = new Set(a.toLowerCase().split(/\s+/).filter(Boolean));
  const right = new Set(b.toLowerCase().split(/\s+/).filter(Boolean));
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const token of left) if (right.has(token)) shared += 1;
  return shared / (left.size + right.size - shared);
}

/** The token estimate used for budgets and `token_estimate` (not tiktoken's exact count). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** `_clean_summary`: drop `user:`/`assistant:`/`system:` prefixes, keep the first and last line. */
export function cleanSummary(content: string): string {
  const parts = content
    .split("\n")
    .map((line) => line.replace(/^(?:user|assistant|system):\s*/i, "").trim())
    .filter(Boolean);
  if (parts.length <= 2) return parts.join(" → ");
  return `${parts[0]} → ${parts[parts.length - 1]}`;
}

/** Word-overlap relevance 0..5: share of the task's tokens found in the text's tokens (§9). */
export function relevance(task: string, text: string): number {
  const taskTokens = new Set(task.toLowerCase().split(/\s+/).filter(Boolean));
  if (taskTokens.size === 0) return 0;
  const textTokens = new Set(text.toLowerCase().split(/\s+/).filter(Boolean));
  let shared = 0;
  for (const token of taskTokens) if (textTokens.has(token)) shared += 1;
  return (shared / taskTokens.size) * 5;
}

/** Linear recency 0..5 across `times` (all equal: 5). */
export function recencyScores(times: readonly number[]): number[] {
  if (times.length === 0) return [];
  const oldest = Math.min(...times);
  const newest = Math.max(...times);
  if (newest === oldest) return times.map(() => 5);
  return times.map((time) => ((time - oldest) / (newest - oldest)) * 5);
}
