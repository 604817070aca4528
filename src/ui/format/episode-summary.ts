import { authorityOf, defaultAuthority } from "../../context/authority.js";
import type { Episode, JsonValue } from "../../context/context-store.js";
import { plural } from "./duration.js";

/** Strings this long without a space are encoded blobs (CRDT updates, snapshots): never shown. */
const blobLength = 48;

function isBlob(value: string): boolean {
  return value.length >= blobLength && !/\s/.test(value);
}

/** Bytes encoded by a base64 string (approximately, padding aside). */
function base64Bytes(value: string): number {
  return Math.floor((value.replace(/=+$/, "").length * 3) / 4);
}

function summariseValue(value: JsonValue): string {
  if (typeof value === "string") return isBlob(value) ? `[${base64Bytes(value)} bytes]` : value;
  if (Array.isArray(value)) return `[${plural(value.length, "item")}]`;
  if (value !== null && typeof value === "object") return `{${Object.keys(value).join(", ")}}`;
  return String(value);
}

/**
 * One readable line for an episode that is not a run event: its content/text/summary when it has
 * one, otherwise its short fields; encoded updates are shown as their size, never as base64.
 */
export function summariseEpisode(episode: Episode): string {
  const payload = episode.payload;
  // A class other than the default is said first: a person's decision must read as one.
  const authority = authorityOf(episode.metadata);
  const lead = authority === defaultAuthority ? "" : `[${authority}] `;
  const review = promotionReviewLine(episode);
  if (review !== undefined) return `${lead}${review}`;
  for (const field of ["content", "text", "summary"]) {
    const value = payload[field];
    if (typeof value === "string" && value.trim()) {
      const target = payload.target ?? payload.key;
      const line =
        typeof target === "string" && !value.includes(target) ? `${target}: ${value}` : value;
      return `${lead}${line}${promotedFromNote(episode)}`;
    }
  }
  const parts = Object.entries(payload).map(([key, value]) => `${key}=${summariseValue(value)}`);
  return parts.length > 0 ? parts.join(" ") : "(empty)";
}

/** A promotion's verdict as a sentence: "approved legacy-cache from run-42 (conflict)". */
function promotionReviewLine(episode: Episode): string | undefined {
  if (episode.type !== "promotion_review") return undefined;
  const { verdict, target, memoryId, runSubjectId, status } = episode.payload;
  const what = typeof target === "string" ? target : String(memoryId);
  return `${String(verdict)} ${what} from ${String(runSubjectId)}${typeof status === "string" ? ` (${status})` : ""}`;
}

/** " (promoted from run-42)" after a decision a promotion brought into a project. */
function promotedFromNote(episode: Episode): string {
  const promotion = episode.metadata.promotion;
  if (promotion === null || typeof promotion !== "object" || Array.isArray(promotion)) return "";
  const approvedBy =
    typeof promotion.approvedBy === "string" ? `, approved by ${promotion.approvedBy}` : "";
  return ` (promoted from ${String(promotion.subjectId)}${approvedBy})`;
}
