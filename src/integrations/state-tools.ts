import { randomUUID } from "node:crypto";
import type { ContextStore, Episode, Memory } from "../context/context-store.js";
import type { SharedContext } from "../context/shared-context.js";
import type { Escalation, SharedState } from "../crdt/shared-state.js";
import { messageOf } from "../errors.js";
import { ItemIndex, parseItemNamespace } from "./langgraph-items.js";
import {
  decisionDisputeView,
  type EscalationView,
  escalationView,
  isStateSyncEpisode,
  stateValueView,
  type TimelineResult,
  timelineResult,
} from "./tool-results.js";
import type {
  GetStateInput,
  GetTimelineInput,
  PutStateInput,
  ResolveEscalationInput,
} from "./tool-schemas.js";
import { given } from "./tool-schemas.js";

/**
 * The state, resolution and timeline tools' logic, shared by the MCP server and the AI SDK tools so
 * both answer alike: `get_state`, `put_state`, `resolve_escalation` and `get_timeline`. A call the
 * rules refuse throws a {@link ToolInputError} whose message says what to do instead (the MCP
 * server returns it as an `isError` result, the AI SDK hands it to the model as the tool's error).
 */

/** A tool call refused by the rules (not a failure of the store): the message says what to do. */
export class ToolInputError extends Error {
  override readonly name = "ToolInputError";
}

/** `put_state`'s result: the field as merged, and its open escalations. */
export interface PutStateResult {
  namespace: string;
  key: string;
  /** A disputed value reads `{ disputed: <escalation id>, contenders }`. */
  value: unknown;
  escalations: EscalationView[];
}

/** `get_state`'s result: `value` (one field), `fields` (one namespace) or `state` (everything). */
export interface GetStateResult {
  namespace?: string;
  key?: string;
  value?: unknown;
  fields?: Record<string, unknown>;
  state?: Record<string, Record<string, unknown>>;
  escalations: EscalationView[];
}

/** The tools over one agent's replica. */
export interface StateTools {
  /** LangGraph store items on the subject, indexed from `state`. */
  readonly items: ItemIndex;
  /** Every escalation `state` holds: its fields' and its LangGraph items'. */
  escalations(): Escalation[];
  getState(input: GetStateInput): Promise<GetStateResult>;
  putState(input: PutStateInput): Promise<PutStateResult>;
  resolveEscalation(input: ResolveEscalationInput): Promise<EscalationView>;
  getTimeline(input: GetTimelineInput): Promise<TimelineResult>;
  /** Stops indexing the replica's items. */
  close(): void;
}

/** Episodes per page when the timeline skips CRDT sync episodes. */
const timelinePageSize = 100;
/** Bounds the paging so a huge subject cannot stall a tool call. */
const timelineMaxPages = 50;

/** The four tools for `agentId` over its replica `state` (and `shared` for decision disputes). */
export function createStateTools(options: {
  state: SharedState;
  shared: SharedContext;
  store: ContextStore;
  subjectId: string;
  agentId: string;
  /** @default Date.now */
  now?: () => number;
  /** @default crypto.randomUUID */
  generateId?: () => string;
}): StateTools {
  const { state, shared, store, subjectId, agentId } = options;
  const now = options.now ?? Date.now;
  const generateId = options.generateId ?? randomUUID;
  const items = new ItemIndex(state);
  const allEscalations = (): Escalation[] => [...state.escalations(), ...items.escalations()];
  const replica: ReplicaView = {
    state,
    escalations: allEscalations,
    fieldsOf: (name) =>
      parseItemNamespace(name)
        ? viewFields(itemFields(items.view(name, undefined).value))
        : viewFields(state.list(name)),
  };

  return {
    items,
    escalations: allEscalations,
    getState: (input) => readState(replica, input),
    async putState({ namespace, key, ...input }) {
      const value = writtenValue("put_state", input);
      await state.put(namespace, key, value);
      return {
        namespace,
        key,
        value: stateValueView(state.get(namespace, key)),
        escalations: openEscalations(allEscalations(), namespace, key).map(escalationView),
      };
    },
    async resolveEscalation({ escalationId, ...input }) {
      const value = writtenValue("resolve_escalation", input);
      await state.sync();
      const known = allEscalations().find((escalation) => escalation.id === escalationId);
      if (known?.resolution !== undefined) {
        // A resolution is final, in the record as in the state: a second one is refused.
        throw new ToolInputError(
          `resolve_escalation: ${escalationId} was already resolved by ${known.resolution.by} at ${new Date(known.resolution.at).toISOString()} with ${JSON.stringify(known.resolution.value)}; a resolution is final. To change the value now, write it with put_state (everyone reads the new write).`,
        );
      }
      if (!known) throw await unknownEscalation(shared, escalationId, allEscalations);
      const item = await items.resolve(escalationId, value, {
        by: agentId,
        at: now(),
        id: generateId(),
      });
      if (!item) await state.resolve(escalationId, value, { by: agentId });
      const resolved = allEscalations().find((escalation) => escalation.id === escalationId);
      // It was found above, and a resolution does not remove it.
      if (!resolved) throw new Error(`escalation ${escalationId} vanished after its resolution`);
      return escalationView(resolved);
    },
    getTimeline(input) {
      return readTimeline(store, subjectId, {
        limit: given(input.limit) ?? 50,
        includeStateUpdates: given(input.includeStateUpdates) ?? false,
      });
    },
    close() {
      items.close();
    },
  };
}

/** What `get_state` reads: the replica's fields and LangGraph items, and every escalation of both. */
interface ReplicaView {
  readonly state: SharedState;
  escalations(): Escalation[];
  /** A namespace's fields; a LangGraph item shows as its value. */
  fieldsOf(name: string): Record<string, unknown>;
}

/** `get_state`: one field, one namespace or everything, caught up with what others stored. */
async function readState(replica: ReplicaView, input: GetStateInput): Promise<GetStateResult> {
  const { state, fieldsOf } = replica;
  const namespace = given(input.namespace);
  const key = given(input.key);
  // Pull in what the other agents already stored, so a read never lags a finished write.
  await state.sync();
  if (key !== undefined && namespace === undefined) {
    const holding = Object.keys(state.toJSON()).filter((name) => key in fieldsOf(name));
    throw new ToolInputError(
      `get_state: "key" needs a "namespace" (a key is only unique within one). ${
        holding.length > 0
          ? `"${key}" is a field of: ${holding.map((name) => JSON.stringify(name)).join(", ")}.`
          : `No namespace has a field "${key}" yet.`
      } Call get_state with { namespace, key }, or { namespace } for all its fields.`,
    );
  }
  const escalations = openEscalations(replica.escalations(), namespace, key).map(escalationView);
  if (namespace !== undefined && key !== undefined) {
    const value = parseItemNamespace(namespace)
      ? fieldsOf(namespace)[key]
      : stateValueView(state.get(namespace, key));
    return { namespace, key, value, escalations };
  }
  if (namespace !== undefined) return { namespace, fields: fieldsOf(namespace), escalations };
  const everything: Record<string, Record<string, unknown>> = {};
  for (const name of Object.keys(state.toJSON())) everything[name] = fieldsOf(name);
  return { state: everything, escalations };
}

/**
 * `resolve_escalation`'s refusal of an id no field or item has: a dispute between decisions is
 * settled by publishing one, anything else names the open escalations to choose from.
 */
async function unknownEscalation(
  shared: SharedContext,
  escalationId: string,
  escalations: () => Escalation[],
): Promise<ToolInputError> {
  const decision = (await shared.contradictions()).find(
    (dispute) => decisionDisputeView(dispute).id === escalationId,
  );
  // Listed after the decisions were read, as they stand then.
  const open = escalations()
    .filter((escalation) => escalation.resolution === undefined)
    .map((escalation) => escalation.id);
  return new ToolInputError(
    decision
      ? `resolve_escalation: ${escalationId} is a dispute between decisions on "${decision.target}", not a state field: settle it with publish_decision (same kind "${decision.kind}" and target "${decision.target}"), which supersedes every side.`
      : `resolve_escalation: no escalation ${escalationId} on this subject. Open escalations: ${open.length > 0 ? open.join(", ") : "none"} (see get_state or check_shared_decisions).`,
  );
}

/**
 * The value a write names: `value`, or `valueJson` parsed (what a strict schema cannot state, an
 * object). Exactly one of them: a `null` value beside JSON text is the strict providers' "not this one".
 */
function writtenValue(
  tool: string,
  input: { value?: unknown; valueJson?: string | null },
): unknown {
  const text = given(input.valueJson);
  if (text === undefined) {
    if (input.value === undefined) {
      throw new ToolInputError(
        `${tool}: give the value, as value (a JSON scalar or list) or as valueJson (any JSON value as text)`,
      );
    }
    return input.value;
  }
  if (input.value !== undefined && input.value !== null) {
    throw new ToolInputError(`${tool}: give value or valueJson, not both (set the other to null)`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ToolInputError(
      `${tool}: valueJson is not JSON (${messageOf(error)}); send the value as JSON text, e.g. {"owner": "coder-1"}`,
    );
  }
}

/** An item's value as fields: an object is its own fields, anything else put whole is `value`. */
function itemFields(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  return { value };
}

function viewFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [key, stateValueView(value)]),
  );
}

function openEscalations(
  escalations: readonly Escalation[],
  namespace?: string,
  key?: string,
): Escalation[] {
  return escalations.filter(
    (escalation) =>
      escalation.resolution === undefined &&
      (namespace === undefined || escalation.namespace === namespace) &&
      (key === undefined || escalation.key === key),
  );
}

async function readTimeline(
  store: ContextStore,
  subjectId: string,
  options: { limit: number; includeStateUpdates: boolean },
): Promise<TimelineResult> {
  const episodes: Episode[] = [];
  const memories = new Map<string, Memory>();
  for (let page = 0; page < timelineMaxPages && episodes.length < options.limit; page += 1) {
    const timeline = await store.getTimeline(subjectId, {
      limit: timelinePageSize,
      offset: page * timelinePageSize,
    });
    for (const memory of timeline.memories) memories.set(memory.id, memory);
    for (const episode of timeline.episodes) {
      if (episodes.length >= options.limit) break;
      if (options.includeStateUpdates || !isStateSyncEpisode(episode)) episodes.push(episode);
    }
    if (
      timeline.episodes.length < timelinePageSize &&
      timeline.memories.length < timelinePageSize
    ) {
      break;
    }
  }
  return timelineResult(
    { subjectId, episodes, memories: [...memories.values()].slice(0, options.limit) },
    { includeStateUpdates: true },
  );
}
