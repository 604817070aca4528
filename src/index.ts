/**
 * shared-ctx: one shared, authoritative context for parallel AI agents. Read before acting, publish
 * what you decide, merge concurrent writes, escalate genuine conflicts.
 *
 * Explicit named exports only. This entry loads what the stores and `SharedContext` need, and no
 * more: the LangGraph.js store is `shared-ctx/langgraph` (`@langchain/*` is an optional peer), the
 * MCP server `shared-ctx/mcp`, the LLM provider `shared-ctx/llm` and the HTTP server
 * `shared-ctx/server`, each loading its own packages (the MCP SDK, the AI SDK's providers, hono)
 * only when imported.
 *
 * @example
 * ```ts
 * import { EmbeddedStore, SharedContext, SharedState } from "shared-ctx";
 *
 * const store = new EmbeddedStore({ path: ".shared-ctx/store.db" });
 * const state = await SharedState.open({ store, subjectId: "repo", agentId: "coder" });
 * const shared = new SharedContext({ store, subjectId: "repo", state });
 * const read = await shared.beforeActing("coder", "build the login endpoint");
 * await shared.decide("coder", "Login issues RS256 JWTs", { kind: "implementation_note", target: "login" });
 * ```
 */

// Stores: the ContextStore contract, the embedded store, the Statewave client, and the factory.
export type {
  ChangePage,
  CompileJob,
  CompileJobStatus,
  CompileResult,
  CompileWaitOptions,
  ContextBundle,
  ContextStore,
  CreateEpisodeInput,
  DeleteSubjectResult,
  Episode,
  GetContextOptions,
  JsonObject,
  JsonValue,
  ListSubjectsOptions,
  ListSubjectsResult,
  Memory,
  MemoryKind,
  MemoryPage,
  MemoryQuery,
  MemoryStatus,
  SearchMemoriesOptions,
  StoreChange,
  SubjectSummary,
  Subscription,
  Timeline,
  TimelineOptions,
  WatchOptions,
} from "./context/context-store.js";
export {
  type CreateContextStoreOptions,
  createContextStore,
} from "./context/create-context-store.js";
// The two-call primitive and the merging shared state.
export type { DecisionHistory, DecisionHistoryEvent } from "./context/decision-history.js";
export type { DecideResult } from "./context/decision-life.js";
export { EmbeddedStore, type EmbeddedStoreOptions } from "./context/embedded/embedded-store.js";
// Errors.
export { CompileJobNotFoundError } from "./context/errors/compile-job-not-found-error.js";
export { CompileTimeoutError } from "./context/errors/compile-timeout-error.js";
export {
  DecisionLifecycleError,
  type DecisionLifecycleProblem,
} from "./context/errors/decision-lifecycle-error.js";
export { InvalidCursorError } from "./context/errors/invalid-cursor-error.js";
export { StoreClosedError } from "./context/errors/store-closed-error.js";
export { StoreSchemaError } from "./context/errors/store-schema-error.js";
export { StoreValidationError } from "./context/errors/store-validation-error.js";
export { listAllMemories } from "./context/memory-query.js";
export { openContextStore } from "./context/open-context-store.js";
export { PostgresConnectionError } from "./context/postgres/errors/postgres-connection-error.js";
export { PostgresStore, type PostgresStoreOptions } from "./context/postgres/postgres-store.js";
export { type ContextRead, type MemoryDispute, SharedContext } from "./context/shared-context.js";
export { StatewaveAPIError } from "./context/statewave/errors/statewave-api-error.js";
export { StatewaveConnectionError } from "./context/statewave/errors/statewave-connection-error.js";
export { StatewaveTimeoutError } from "./context/statewave/errors/statewave-timeout-error.js";
export {
  StatewaveClient,
  type StatewaveClientOptions,
} from "./context/statewave/statewave-client.js";
export { StatewaveStore, type StatewaveStoreOptions } from "./context/statewave/statewave-store.js";
export type {
  BatchCreateResult,
  ClientOptions,
  CreateEpisodeParams,
  DeleteResult,
  GetContextParams,
  RequestOptions,
  RetryConfig,
  SearchMemoriesParams,
  SearchResult,
  StatewaveTimeline,
  TimelineParams,
} from "./context/statewave/statewave-types.js";
export { FieldKindError } from "./crdt/errors/field-kind-error.js";
export { InvalidStateValueError } from "./crdt/errors/invalid-state-value-error.js";
export { SharedStateClosedError } from "./crdt/errors/shared-state-closed-error.js";
export { UnknownEscalationError } from "./crdt/errors/unknown-escalation-error.js";
export {
  type Contender,
  Disputed,
  type Escalation,
  type FieldKind,
  type NamespaceSchema,
  type OpenSharedStateOptions,
  SharedState,
} from "./crdt/shared-state.js";
export { SharedCtxError } from "./errors.js";
// Integrations: Vercel AI SDK tools (the MCP server is `shared-ctx/mcp`, LangGraph `shared-ctx/langgraph`).
export {
  type SharedContextTools,
  type SharedContextToolsOptions,
  type SharedStateTools,
  sharedContextTools,
} from "./integrations/ai-sdk-tools.js";
export type { GetStateResult, PutStateResult } from "./integrations/state-tools.js";
export type {
  CheckSharedDecisionsResult,
  ContenderView,
  DecisionHistoryResult,
  DecisionView,
  EpisodeView,
  EscalationView,
  NoticeView,
  PublishDecisionResult,
  TimelineResult,
} from "./integrations/tool-results.js";
export { UnsupportedStoreOperationError } from "./integrations/unsupported-store-operation-error.js";
// Models: the LLM_* settings and their errors (the provider itself is `shared-ctx/llm`).
export { LlmAuthError } from "./llm/errors/llm-auth-error.js";
export { LlmConfigError } from "./llm/errors/llm-config-error.js";
export { LlmConnectionError } from "./llm/errors/llm-connection-error.js";
export { LlmOutputError } from "./llm/errors/llm-output-error.js";
export { LlmRequestError } from "./llm/errors/llm-request-error.js";
export { LlmTimeoutError } from "./llm/errors/llm-timeout-error.js";
export { type LlmSettings, readLlmSettings } from "./llm/llm-settings.js";
// Promotion: a run's decisions proposed to a long-lived project subject, reviewed, applied.
export {
  type AppliedItem,
  applyPromotion,
  type PromotionResult,
  type PromotionReview,
} from "./promotion/apply-promotion.js";
export { PromotionInputError } from "./promotion/errors/promotion-input-error.js";
export {
  type ConflictSide,
  type PlanPromotionOptions,
  type PromotionCandidate,
  type PromotionItem,
  type PromotionPlan,
  planPromotion,
} from "./promotion/plan-promotion.js";
export {
  type PlanRunPromotionOptions,
  planRunPromotion,
  promoteRun,
} from "./promotion/promote-run.js";
export type { PromotionSource, PromotionVerdict } from "./promotion/promotion-records.js";
export { readSubjectDecisions, type SubjectDecisions } from "./promotion/read-decisions.js";
// Scenarios: the runner behind `shared-ctx run` and `demo` (its agents load the AI SDK on first run).
export {
  defaultScenarioName,
  listScenarios,
  loadScenario,
  ScenarioValidationError,
  scenarioFromTask,
} from "./scenario/load-scenario.js";
export { type RunHandle, type StartRunOptions, startRun } from "./scenario/scenario-runner.js";
export type { Scenario } from "./scenario/scenario-schema.js";
