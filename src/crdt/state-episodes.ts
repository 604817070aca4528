import type {
  CreateEpisodeInput,
  Episode,
  JsonObject,
  JsonValue,
} from "../context/context-store.js";
import type { Escalation } from "./escalation.js";

/** Episode types the shared state writes to its subject. */
export const stateEpisodeTypes = {
  /** One replica's new Loro operations (incremental update bytes, base64). */
  update: "state_update",
  /** A full Loro snapshot, so opening imports it plus the updates it does not cover. */
  snapshot: "state_snapshot",
  /** A genuine conflict, announced once (see docs/crdt.md). */
  escalation: "escalation",
  /** Someone resolved an escalation. */
  resolution: "escalation_resolution",
} as const;

/** What a `state_update` episode carries. */
export interface StateUpdatePayload {
  update: Uint8Array;
  /** The writing replica's peer id: a replica skips its own updates. */
  peer: string;
  /** The peer's operation counters this update holds: [from, to). */
  from: number;
  to: number;
}

/** What a `state_snapshot` episode carries. */
export interface StateSnapshotPayload {
  snapshot: Uint8Array;
  peer: string;
  /** Operations covered per peer: updates within it need not be imported after the snapshot. */
  version: Record<string, number>;
}

export function encodeBytes(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

export function decodeBytes(text: string): Uint8Array {
  const buffer = Buffer.from(text, "base64");
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** The episode for one replica's update. */
export function updateEpisode(
  subjectId: string,
  agentId: string,
  payload: StateUpdatePayload,
): CreateEpisodeInput {
  return {
    subjectId,
    source: agentId,
    type: stateEpisodeTypes.update,
    payload: {
      update: encodeBytes(payload.update),
      peer: payload.peer,
      from: payload.from,
      to: payload.to,
    },
  };
}

/** The episode for a snapshot. */
export function snapshotEpisode(
  subjectId: string,
  agentId: string,
  payload: StateSnapshotPayload,
): CreateEpisodeInput {
  return {
    subjectId,
    source: agentId,
    type: stateEpisodeTypes.snapshot,
    payload: {
      snapshot: encodeBytes(payload.snapshot),
      peer: payload.peer,
      version: payload.version,
    },
  };
}

/**
 * The idempotency key of an escalation's announcement: the escalation id is deterministic (every
 * replica derives the same one from the same writes), so every replica that announces it writes
 * the same key, and a store that honours keys (embedded, Postgres, `serve`) keeps one episode.
 */
export function escalationAnnouncementKey(escalation: Escalation): string {
  return `escalation:${escalation.subjectId}:${escalation.id}`;
}

/** The timeline episode announcing an escalation; `target` makes the resolution supersede it. */
export function escalationEpisode(escalation: Escalation, source: string): CreateEpisodeInput {
  const contenders = escalation.contenders
    .map((contender) => `${contender.agentId}: ${JSON.stringify(contender.value)}`)
    .join("; ");
  const what = escalation.reason === "kind-mismatch" ? "different kinds" : "different values";
  return {
    subjectId: escalation.subjectId,
    source,
    type: stateEpisodeTypes.escalation,
    payload: {
      content: `Disputed ${escalation.namespace}/${escalation.key}: ${what} written concurrently (${contenders})`,
      target: `${escalation.namespace}/${escalation.key}`,
      escalationId: escalation.id,
      namespace: escalation.namespace,
      field: escalation.key,
      reason: escalation.reason,
      contenders: toJson(escalation.contenders),
      raisedAt: escalation.raisedAt,
    },
    idempotencyKey: escalationAnnouncementKey(escalation),
  };
}

/** The timeline episode recording a resolution. */
export function resolutionEpisode(
  escalation: Escalation,
  value: unknown,
  by: string,
  at: number,
): CreateEpisodeInput {
  return {
    subjectId: escalation.subjectId,
    source: by,
    type: stateEpisodeTypes.resolution,
    payload: {
      content: `Resolved ${escalation.namespace}/${escalation.key} to ${JSON.stringify(value)}`,
      target: `${escalation.namespace}/${escalation.key}`,
      escalationId: escalation.id,
      namespace: escalation.namespace,
      field: escalation.key,
      value: toJson(value),
      by,
      at,
    },
  };
}

/** Reads a `state_update` episode; undefined when it is malformed. */
export function readUpdate(episode: Episode): StateUpdatePayload | undefined {
  const { update, peer, from, to } = episode.payload;
  if (typeof update !== "string" || typeof peer !== "string") return undefined;
  if (typeof from !== "number" || typeof to !== "number") return undefined;
  return { update: decodeBytes(update), peer, from, to };
}

/** Reads a `state_snapshot` episode; undefined when it is malformed. */
export function readSnapshot(episode: Episode): StateSnapshotPayload | undefined {
  const { snapshot, peer, version } = episode.payload;
  if (typeof snapshot !== "string" || typeof peer !== "string") return undefined;
  if (typeof version !== "object" || version === null || Array.isArray(version)) return undefined;
  const counts: Record<string, number> = {};
  for (const [name, count] of Object.entries(version as JsonObject)) {
    if (typeof count === "number") counts[name] = count;
  }
  return { snapshot: decodeBytes(snapshot), peer, version: counts };
}

function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}
