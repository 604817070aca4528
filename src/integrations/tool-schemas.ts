import { z } from "zod";
import { authorities } from "../context/authority.js";
import { decisionEffects } from "../context/decision-effect.js";

/**
 * The input schemas of the tools shared-ctx gives to agents, shared by the AI SDK tools and the
 * MCP server so both surfaces accept exactly the same arguments under the same names.
 */

export { toolNames } from "./tool-names.js";

/** Tool descriptions: what a model reads when it decides whether to call the tool. */
export const toolDescriptions = {
  checkSharedDecisions:
    "Read the shared context before acting: the decisions other agents already made (use them, do not contradict them), open disputes, and what changed since your last read. Call this before starting any unit of work.",
  publishDecision:
    "Publish a decision so every other agent sees it before they act (e.g. 'Deprecate legacy-session-token; use JWT'). When it is about a module or other target, set target and effect: retire (nobody builds on it), keep, freeze (no edits by anyone until lifted) or replace (with replacement): the edit hooks enforce the effect, not the wording. A newer decision with the same kind and target supersedes the older one you had read, unless the older one has higher authority (a person's): then the two are a dispute only a person settles; name an id in supersedes to replace exactly that decision. An idempotencyKey makes a retry safe.",
  retractDecision:
    "Take back an active decision: it stops being active for everyone, the retraction is recorded under your name (with your reason), and whoever read it is told. Nothing is deleted: get_decision_history still shows it.",
  getDecisionHistory:
    "The history of one decision: who wrote it, who read it (declared when they next wrote), and who superseded or retracted it, with what.",
  getTimeline:
    "The subject's history, oldest first: who wrote what and when (episodes) and the memories compiled from it.",
  putState:
    "Write a field of the shared state. Concurrent writes merge: lists are unioned, objects deep-merged, notes appended; two agents setting one scalar to different values is escalated instead of silently keeping one.",
  getState:
    "Read the shared state (one field: namespace and key; one namespace; or everything) together with the open escalations. A disputed field lists every contender.",
  resolveEscalation:
    "Settle an open escalation of a state field with the value everyone should use; the resolution is attributed to you and final (a second one is refused). A dispute between decisions is settled by publishing a decision instead.",
} as const;

/** Tool titles: what a client shows a person (MCP `title`). */
export const toolTitles = {
  checkSharedDecisions: "Check shared decisions",
  publishDecision: "Publish a decision",
  retractDecision: "Retract a decision",
  getDecisionHistory: "Read a decision's history",
  getTimeline: "Read the subject's timeline",
  putState: "Write a shared-state field",
  getState: "Read the shared state",
  resolveEscalation: "Resolve an escalation",
} as const;

/**
 * MCP tool annotations. Reads are read-only (a check records what its caller read, which is
 * bookkeeping, not a change of the shared context). A decision published twice is two episodes,
 * so not idempotent (unless both name one `idempotencyKey`); `put_state` of the same value again
 * changes nothing; a resolution is final and a retracted decision is no longer active (a second
 * one is refused), so repeating either changes nothing. None deletes anything (a retraction is an
 * episode of its own, and the decision stays in its history); each talks to the subject's store
 * only (`openWorldHint: false`).
 */
export const toolAnnotations = {
  checkSharedDecisions: { readOnlyHint: true, openWorldHint: false },
  publishDecision: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  retractDecision: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  getDecisionHistory: { readOnlyHint: true, openWorldHint: false },
  getTimeline: { readOnlyHint: true, openWorldHint: false },
  putState: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  getState: { readOnlyHint: true, openWorldHint: false },
  resolveEscalation: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
} as const;

/**
 * The input rules every tool follows, so that a strict provider accepts each schema (OpenAI's
 * Structured Outputs "strict mode" is the bar; test/integrations/tool-schemas-strict.test.ts
 * checks each tool against those rules):
 * - every property is listed in `required`, and an optional one is a union with `null` (the JSON
 *   schema says so through `meta`; parsing still lets a lenient client leave the key out, and an
 *   absent key and `null` both read as "not given", {@link given});
 * - `additionalProperties: false` on every object;
 * - no keyword strict mode refuses (`minLength`, `maxLength`, `format` …): a non-empty string is
 *   `pattern: "\S"` (it must contain a non-space character).
 */

/** A non-empty string (one non-space character at least), as a `pattern` strict mode accepts. */
export function text() {
  return z.string().regex(/\S/, { message: "must not be empty" });
}

/**
 * An optional input: "this or null" in the JSON schema, and the key may be left out. The tools
 * read an absent key and `null` alike (see {@link given}).
 */
export function optionalInput<Schema extends z.ZodType>(schema: Schema) {
  return schema.nullable().optional();
}

/** An optional input as given: `undefined` for an absent key and for `null` (strict providers send `null`). */
export function given<Value>(value: Value | null | undefined): Value | undefined {
  return value ?? undefined;
}

/**
 * Optional inputs as the library's options: a key whose input is absent or `null` is left out,
 * so that the option takes its default (as {@link given}, for several inputs at once).
 */
export function givenOptions<Inputs extends Record<string, unknown>>(
  inputs: Inputs,
): { [Key in keyof Inputs]?: NonNullable<Inputs[Key]> } {
  // Only absent options are dropped: the keys left keep their inputs' types.
  return Object.fromEntries(
    Object.entries(inputs).filter(([, value]) => value !== undefined && value !== null),
  ) as { [Key in keyof Inputs]?: NonNullable<Inputs[Key]> };
}

/** A tool's input object: every key required in its JSON schema, no other key allowed. */
export function toolInput<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object(shape).meta({ required: Object.keys(shape), additionalProperties: false });
}

const jsonScalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const jsonScalarSchema = {
  anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }, { type: "null" }],
};
/**
 * Any JSON value. Parsed as such (a client may send an object); its JSON schema is the part a
 * strict schema can state: a scalar or a list of scalars. Strict mode needs the keys of every
 * object spelled out, so an object (or a nested list) travels as JSON text in `valueJson`.
 */
export const jsonValueInput = z
  .union([
    jsonScalar,
    z.array(z.union([jsonScalar, z.array(z.unknown()), z.record(z.string(), z.unknown())])),
    z.record(z.string(), z.unknown()),
  ])
  .meta({ anyOf: [...jsonScalarSchema.anyOf, { type: "array", items: jsonScalarSchema }] });

/** `valueJson`: any JSON value as text, for what `value`'s strict schema cannot state. */
const valueJsonInput = optionalInput(z.string()).describe(
  'Any JSON value as JSON text, e.g. {"owner": "coder-1"}: for an object or a nested list. Give value or valueJson (the other null).',
);

/** `idempotencyKey`: a retry with the same key stores nothing twice. */
const idempotencyKeyInput = optionalInput(text()).describe(
  "Any string unique to this write (1..256 characters), e.g. a UUID: calling again with the same key (a retry) returns the first result and stores nothing new. Null: every call writes.",
);

/** `check_shared_decisions` input. */
export const checkSharedDecisionsInput = toolInput({
  task: text().describe("What you are about to do, in a sentence: the context is ranked for it."),
});
/** `check_shared_decisions` input, as parsed. */
export type CheckSharedDecisionsInput = z.infer<typeof checkSharedDecisionsInput>;

/** `publish_decision` input. */
export const publishDecisionInput = toolInput({
  content: text().describe("The decision, stated so another agent can act on it."),
  kind: optionalInput(text()).describe(
    "architectural_decision (null: the default, or the superseded decision's kind), implementation_note or review_finding; any other string is kept as is.",
  ),
  target: optionalInput(text()).describe(
    "What the decision is about (a module, an API, a setting). A later decision on the same target supersedes this one.",
  ),
  confidence: optionalInput(z.number().min(0).max(1)).describe("0..1; how sure you are."),
  supersedes: optionalInput(text()).describe(
    "The id of the active decision this one replaces (from check_shared_decisions): it supersedes exactly that one and takes its kind and target. Null: supersede by target as usual.",
  ),
  effect: optionalInput(z.enum(decisionEffects)).describe(
    "What the decision does to its target; set it whenever the decision retires, keeps, freezes or replaces something: retire (nobody builds on it), keep (it stays; lifts an earlier retire or freeze), freeze (no edits by anyone until a later decision lifts it) or replace (give replacement). Needs target. Null: the decision only informs.",
  ),
  replacement: optionalInput(text()).describe(
    "With effect replace: what replaces the target (a module name). Null otherwise.",
  ),
  authority: optionalInput(z.enum(authorities)).describe(
    "How it was established: user (a person told you so; use it only then), verified (a tool or test showed it), agent (your own decision; null: the default) or speculative (a guess). A decision never supersedes one of higher authority: that stays a dispute.",
  ),
  idempotencyKey: idempotencyKeyInput,
});
/** `publish_decision` input, as parsed. */
export type PublishDecisionInput = z.infer<typeof publishDecisionInput>;

/** `retract_decision` input. */
export const retractDecisionInput = toolInput({
  memoryId: text().describe(
    "The id of the active decision to take back (from check_shared_decisions).",
  ),
  reason: optionalInput(text()).describe("Why, so the agents who relied on it know what to do."),
  idempotencyKey: idempotencyKeyInput,
});
/** `retract_decision` input, as parsed. */
export type RetractDecisionInput = z.infer<typeof retractDecisionInput>;

/** `get_decision_history` input. */
export const getDecisionHistoryInput = toolInput({
  memoryId: text().describe(
    "The id of a decision (active or not), from check_shared_decisions or get_timeline.",
  ),
});
/** `get_decision_history` input, as parsed. */
export type GetDecisionHistoryInput = z.infer<typeof getDecisionHistoryInput>;

/** `get_timeline` input. */
export const getTimelineInput = toolInput({
  limit: optionalInput(z.number().int().min(1).max(500)).describe(
    "At most this many episodes (and memories). Null: 50.",
  ),
  includeStateUpdates: optionalInput(z.boolean()).describe(
    "Also list the shared-state sync episodes (binary CRDT updates). Null: false.",
  ),
});
/** `get_timeline` input, as parsed. */
export type GetTimelineInput = z.infer<typeof getTimelineInput>;

/** `put_state` input. */
export const putStateInput = toolInput({
  namespace: text().describe("A group of related fields, e.g. 'plan' or 'modules'."),
  key: text().describe("The field, e.g. 'owners', 'database', 'notes'."),
  value: jsonValueInput
    .optional()
    .describe(
      "A JSON scalar or list (for an object, use valueJson and set this to null). Arrays merge as sets, objects deep-merge, scalars are registers.",
    ),
  valueJson: valueJsonInput,
});
/** `put_state` input, as parsed. */
export type PutStateInput = z.infer<typeof putStateInput>;

/** `get_state` input. */
export const getStateInput = toolInput({
  namespace: optionalInput(text()).describe("Only this namespace. Null: everything."),
  key: optionalInput(text()).describe("Only this field (needs namespace). Null: every field."),
});
/** `get_state` input, as parsed. */
export type GetStateInput = z.infer<typeof getStateInput>;

/** `resolve_escalation` input. */
export const resolveEscalationInput = toolInput({
  escalationId: text().describe("The id of an open escalation (from get_state)."),
  value: jsonValueInput
    .optional()
    .describe(
      "The value everyone should use from now on: a JSON scalar or list (for an object, use valueJson and set this to null).",
    ),
  valueJson: valueJsonInput,
});
/** `resolve_escalation` input, as parsed. */
export type ResolveEscalationInput = z.infer<typeof resolveEscalationInput>;

/** One side of a dispute (the library's `Contender`). */
const contenderOutput = z.object({
  agentId: z.string(),
  value: z.unknown(),
  at: z.number().describe("ms since the epoch"),
  memoryId: z.string().optional(),
  removed: z.literal(true).optional(),
  authority: z.enum(authorities).optional(),
});

/** A dispute: the one shape of `EscalationView`, the library's `Escalation` as JSON. */
export const escalationOutput = z.object({
  id: z.string(),
  subjectId: z.string(),
  namespace: z.string(),
  key: z.string(),
  reason: z.string(),
  contenders: z.array(contenderOutput),
  raisedAt: z.number(),
  resolution: z.object({ value: z.unknown(), by: z.string(), at: z.number() }).optional(),
});

const decisionOutput = z.object({
  id: z.string(),
  kind: z.string(),
  content: z.string(),
  confidence: z.number(),
  target: z.string().optional(),
  status: z.string(),
  author: z.string(),
  at: z.string(),
  disputed: z.string().optional(),
  supersededBy: z.object({ id: z.string(), author: z.string(), content: z.string() }).optional(),
  authority: z.enum(authorities).optional(),
  effect: z.enum(decisionEffects).optional(),
  replacement: z.string().optional(),
});

/** `check_shared_decisions` output. */
export const checkSharedDecisionsOutput = z.object({
  summary: z.string().describe("Read this first: what changed, what is disputed and by whom."),
  notices: z.array(
    z.object({
      target: z.string().optional(),
      memoryId: z.string().optional(),
      reason: z.string(),
      by: z.string(),
    }),
  ),
  disputes: z.array(escalationOutput),
  decisions: z.array(decisionOutput),
  decisionsLeftOut: z
    .number()
    .int()
    .optional()
    .describe("Active decisions not listed, left out for the token budget (the context says so)."),
  changedSinceLastRead: z.array(decisionOutput),
  context: z.string(),
});

/** `publish_decision` output. */
export const publishDecisionOutput = z.object({
  episodeId: z.string(),
  memories: z.array(decisionOutput),
});

/** `retract_decision` output: the retraction's episode and memory. */
export const retractDecisionOutput = publishDecisionOutput;

/** `get_decision_history` output. */
export const getDecisionHistoryOutput = z.object({
  decision: decisionOutput,
  status: z.enum(["active", "superseded", "retracted", "deleted"]),
  author: z.string(),
  supersedes: z.array(z.string()).describe("The ids of the decisions it replaced."),
  supersededBy: z
    .object({ memoryId: z.string(), agentId: z.string(), content: z.string(), at: z.string() })
    .optional(),
  readers: z.array(z.string()),
  events: z.array(
    z.object({
      type: z.enum(["written", "read", "superseded", "retracted"]),
      agentId: z.string(),
      at: z.string(),
      episodeId: z.string(),
      memoryId: z.string().optional(),
      content: z.string().optional(),
    }),
  ),
});

/** `get_timeline` output. */
export const getTimelineOutput = z.object({
  subjectId: z.string(),
  episodes: z.array(
    z.object({
      id: z.string(),
      at: z.string(),
      source: z.string(),
      type: z.string(),
      text: z.string().optional(),
    }),
  ),
  memories: z.array(decisionOutput),
});

/** `put_state` output: the field as merged, and its open escalations. */
export const putStateOutput = z.object({
  namespace: z.string(),
  key: z.string(),
  value: z.unknown().describe("A disputed value reads { disputed: <escalation id>, contenders }."),
  escalations: z.array(escalationOutput),
});

/** `get_state` output: `value` (one field), `fields` (one namespace) or `state` (everything). */
export const getStateOutput = z.object({
  namespace: z.string().optional(),
  key: z.string().optional(),
  value: z.unknown().optional(),
  fields: z.record(z.string(), z.unknown()).optional(),
  state: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  escalations: z.array(escalationOutput),
});

/** `resolve_escalation` output: the escalation with its resolution. */
export const resolveEscalationOutput = escalationOutput;
