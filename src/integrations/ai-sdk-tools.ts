import type { Tool } from "ai";
import type { SharedContext } from "../context/shared-context.js";
import type { SharedState } from "../crdt/shared-state.js";
import { checkResultText, checkSharedDecisions } from "./decision-checks.js";
import { createDecisionTools } from "./decision-tools.js";
import { openItemEscalations } from "./langgraph-items.js";
import { createStateTools, type GetStateResult, type PutStateResult } from "./state-tools.js";
import type {
  CheckSharedDecisionsResult,
  DecisionHistoryResult,
  EscalationView,
  PublishDecisionResult,
  TimelineResult,
} from "./tool-results.js";
import {
  type CheckSharedDecisionsInput,
  checkSharedDecisionsInput,
  type GetDecisionHistoryInput,
  type GetStateInput,
  type GetTimelineInput,
  getDecisionHistoryInput,
  getStateInput,
  getTimelineInput,
  type PublishDecisionInput,
  type PutStateInput,
  publishDecisionInput,
  putStateInput,
  type ResolveEscalationInput,
  type RetractDecisionInput,
  resolveEscalationInput,
  retractDecisionInput,
  toolDescriptions,
} from "./tool-schemas.js";

/** Options of {@link sharedContextTools}. */
export interface SharedContextToolsOptions {
  /** The agent calling the tools: reads are recorded and decisions attributed under this id. */
  callerId: string;
  /** Token budget of the context `check_shared_decisions` returns. @default 4000 (the store's default) */
  maxTokens?: number;
  /** Kind of a published decision when the model names none. @default "architectural_decision" */
  defaultKind?: string;
  /**
   * A shared-state replica of the subject (e.g. the one `shared` was made with): with it the tools
   * are the full set MCP has (`get_state`, `put_state`, `resolve_escalation`, `get_timeline` too),
   * and the open disputes of LangGraph store items on it (`SyncedStore`) are listed.
   * @default none: the decision tools only (`check_shared_decisions`, `publish_decision`,
   *   `retract_decision`, `get_decision_history`)
   */
  state?: SharedState;
}

/** The tools over shared state, added when a `state` is given (the same as MCP's). */
export type SharedStateTools = {
  get_state: Tool<GetStateInput, GetStateResult>;
  put_state: Tool<PutStateInput, PutStateResult>;
  resolve_escalation: Tool<ResolveEscalationInput, EscalationView>;
  get_timeline: Tool<GetTimelineInput, TimelineResult>;
};

/**
 * The decision tools, keyed by the names the model sees. A type alias (not an interface) so that it is
 * assignable to the AI SDK's `ToolSet` index signature.
 */
export type SharedContextTools = {
  check_shared_decisions: Tool<CheckSharedDecisionsInput, CheckSharedDecisionsResult>;
  publish_decision: Tool<PublishDecisionInput, PublishDecisionResult>;
  retract_decision: Tool<RetractDecisionInput, PublishDecisionResult>;
  get_decision_history: Tool<GetDecisionHistoryInput, DecisionHistoryResult>;
};

/**
 * Shared context as Vercel AI SDK tools, for `generateText({ tools })` or `streamText({ tools })`:
 * `check_shared_decisions` before acting and `publish_decision` after deciding, `retract_decision`
 * and `get_decision_history` for a decision's life cycle, and the state tools with a `state`.
 *
 * @example
 * ```ts
 * const { text } = await generateText({
 *   model,
 *   tools: sharedContextTools(shared, { callerId: "coder" }),
 *   stopWhen: stepCountIs(5),
 *   prompt: "Add login to the API",
 * });
 * ```
 */
export function sharedContextTools(
  shared: SharedContext,
  options: SharedContextToolsOptions & { state: SharedState },
): SharedContextTools & SharedStateTools;
export function sharedContextTools(
  shared: SharedContext,
  options: SharedContextToolsOptions,
): SharedContextTools;
export function sharedContextTools(
  shared: SharedContext,
  options: SharedContextToolsOptions,
): SharedContextTools | (SharedContextTools & SharedStateTools) {
  const { callerId, maxTokens, defaultKind = "architectural_decision", state } = options;
  const life = createDecisionTools(shared, { callerId, defaultKind });
  const decisionTools: SharedContextTools = {
    check_shared_decisions: defineTool<CheckSharedDecisionsInput, CheckSharedDecisionsResult>({
      description: toolDescriptions.checkSharedDecisions,
      inputSchema: checkSharedDecisionsInput,
      execute: ({ task }) =>
        checkSharedDecisions(shared, callerId, task, {
          ...(maxTokens === undefined ? {} : { maxTokens }),
          ...(state === undefined ? {} : { disputes: () => openItemEscalations(state) }),
        }),
      // The summary (disputes with both sides, superseded decisions) is the first thing the model reads.
      toModelOutput: ({ output }) => ({ type: "text", value: checkResultText(output) }),
    }),
    publish_decision: defineTool<PublishDecisionInput, PublishDecisionResult>({
      description: toolDescriptions.publishDecision,
      inputSchema: publishDecisionInput,
      execute: (input) => life.publishDecision(input),
    }),
    retract_decision: defineTool<RetractDecisionInput, PublishDecisionResult>({
      description: toolDescriptions.retractDecision,
      inputSchema: retractDecisionInput,
      // A refusal (not active, no such id) throws: the model reads its message as the tool's error.
      execute: (input) => life.retractDecision(input),
    }),
    get_decision_history: defineTool<GetDecisionHistoryInput, DecisionHistoryResult>({
      description: toolDescriptions.getDecisionHistory,
      inputSchema: getDecisionHistoryInput,
      execute: (input) => life.getDecisionHistory(input),
    }),
  };
  if (state === undefined) return decisionTools;
  const tools = createStateTools({
    state,
    shared,
    store: shared.store,
    subjectId: shared.subjectId,
    agentId: callerId,
  });
  const stateTools: SharedStateTools = {
    get_state: defineTool<GetStateInput, GetStateResult>({
      description: toolDescriptions.getState,
      inputSchema: getStateInput,
      // A refusal (a key without a namespace) throws: the model reads it as the tool's error.
      execute: (input) => tools.getState(input),
    }),
    put_state: defineTool<PutStateInput, PutStateResult>({
      description: toolDescriptions.putState,
      inputSchema: putStateInput,
      execute: (input) => tools.putState(input),
    }),
    resolve_escalation: defineTool<ResolveEscalationInput, EscalationView>({
      description: toolDescriptions.resolveEscalation,
      inputSchema: resolveEscalationInput,
      execute: (input) => tools.resolveEscalation(input),
    }),
    get_timeline: defineTool<GetTimelineInput, TimelineResult>({
      description: toolDescriptions.getTimeline,
      inputSchema: getTimelineInput,
      execute: (input) => tools.getTimeline(input),
    }),
  };
  return { ...decisionTools, ...stateTools };
}

/**
 * The AI SDK's `tool()` returns its argument as it is (it only helps inference); written here so that
 * making the tools loads nothing of the AI SDK (`import { sharedContextTools } from "shared-ctx"`
 * stays cheap for code that never calls a model).
 */
function defineTool<Input, Output>(definition: Tool<Input, Output>): Tool<Input, Output> {
  return definition;
}
