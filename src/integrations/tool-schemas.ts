import { z } from "zod";
import { authorities } from "../context/authority.js";

/**
 * The input schemas of the tools shared-ctx gives to agents, shared by the AI SDK tools and the
 * MCP server so both surfaces accept exactly the same arguments under the same names.
 */

/** Tool names, identical in the AI SDK and over MCP. */
export const toolNames = {
  checkSharedDecisions: "check_shared_decisions",
  publishDecision: "publish_decision",
  getTimeline: "get_timeline",
  putState: "put_state",
  getState: "get_state",
  resolveEscalation: "resolve_escalation",
} as const;

/** Tool descriptions: what a model reads when it decides whether to call the tool. */
export const toolDescriptions = {
  checkSharedDecisions:
    "Read the shared context before acting: the decisions other agents already made (use them, do not contradict them), open disputes, and what changed since your last read. Call this before starting any unit of work.",
  publishDecision:
    "Publish a decision so every other agent sees it before they act (e.g. 'Deprecate legacy-session-token; use JWT'). A newer decision with the same kind and target supersedes the older one, unless the older one has higher authority (a person's): then the two are a dispute only a person settles.",
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
  getTimeline: "Read the subject's timeline",
  putState: "Write a shared-state field",
  getState: "Read the shared state",
  resolveEscalation: "Resolve an escalation",
} as const;

/**
 * MCP tool annotations. Reads are read-only (a check records what its caller read, which is
 * bookkeeping, not a change of the shared context). A decision published twice is two episodes,
 * so not idempotent; `put_state` of the same value again changes nothing; a resolution is final
 * (a second one is refused), so repeating it changes nothing either. None deletes anything; each
 * talks to the subject's store only (`openWorldHint: false`).
 */
export const toolAnnotations = {
  checkSharedDecisions: { readOnlyHint: true, openWorldHint: false },
  publishDecision: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
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

const jsonScalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/**
 * Any JSON value, with a schema a provider can read (not `{}`): a scalar, a list, or an object,
 * each typed. Not recursive: a `$ref` schema is what some strict providers reject first.
 */
export const jsonValueInput = z.union([
  jsonScalar,
  z.array(z.union([jsonScalar, z.array(z.unknown()), z.record(z.string(), z.unknown())])),
  z.record(z.string(), z.unknown()),
]);

/** `check_shared_decisions` input. */
export const checkSharedDecisionsInput = z.object({
  task: z
    .string()
    .min(1)
    .describe("What you are about to do, in a sentence: the context is ranked for it."),
});
/** `check_shared_decisions` input, as parsed. */
export type CheckSharedDecisionsInput = z.infer<typeof checkSharedDecisionsInput>;

/** `publish_decision` input. */
export const publishDecisionInput = z.object({
  content: z.string().min(1).describe("The decision, stated so another agent can act on it."),
  kind: z
    .string()
    .min(1)
    .optional()
    .describe(
      "architectural_decision (default), implementation_note or review_finding; any other string is kept as is.",
    ),
  target: z
    .string()
    .min(1)
    .optional()
    .describe(
      "What the decision is about (a module, an API, a setting). A later decision on the same target supersedes this one.",
    ),
  confidence: z.number().min(0).max(1).optional().describe("0..1; how sure you are."),
  authority: z
    .enum(authorities)
    .optional()
    .describe(
      "How it was established: user (a person told you so; use it only then), verified (a tool or test showed it), agent (your own decision; the default) or speculative (a guess). A decision never supersedes one of higher authority: that stays a dispute.",
    ),
});
/** `publish_decision` input, as parsed. */
export type PublishDecisionInput = z.infer<typeof publishDecisionInput>;

/** `get_timeline` input. */
export const getTimelineInput = z.object({
  limit: z
    .number()
    .int()
    .min(1)
    .max(500)
    .optional()
    .describe("At most this many episodes (and memories). Default 50."),
  includeStateUpdates: z
    .boolean()
    .optional()
    .describe("Also list the shared-state sync episodes (binary CRDT updates). Default false."),
});
/** `get_timeline` input, as parsed. */
export type GetTimelineInput = z.infer<typeof getTimelineInput>;

/** `put_state` input. */
export const putStateInput = z.object({
  namespace: z.string().min(1).describe("A group of related fields, e.g. 'plan' or 'modules'."),
  key: z.string().min(1).describe("The field, e.g. 'owners', 'database', 'notes'."),
  value: jsonValueInput.describe(
    "Any JSON value. Arrays merge as sets, objects deep-merge, scalars are registers.",
  ),
});
/** `put_state` input, as parsed. */
export type PutStateInput = z.infer<typeof putStateInput>;

/** `get_state` input. */
export const getStateInput = z.object({
  namespace: z.string().min(1).optional().describe("Only this namespace. Default: everything."),
  key: z.string().min(1).optional().describe("Only this field (needs namespace)."),
});
/** `get_state` input, as parsed. */
export type GetStateInput = z.infer<typeof getStateInput>;

/** `resolve_escalation` input. */
export const resolveEscalationInput = z.object({
  escalationId: z.string().min(1).describe("The id of an open escalation (from get_state)."),
  value: jsonValueInput.describe("The value everyone should use from now on."),
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
  changedSinceLastRead: z.array(decisionOutput),
  context: z.string(),
});

/** `publish_decision` output. */
export const publishDecisionOutput = z.object({
  episodeId: z.string(),
  memories: z.array(decisionOutput),
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
