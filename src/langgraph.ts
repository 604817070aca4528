/**
 * `shared-ctx/langgraph`: the LangGraph.js integration, a separate entry point so that the main
 * `shared-ctx` entry never loads `@langchain/langgraph` (an optional peer dependency).
 */

export type { Contender } from "./crdt/disputed.js";
export { Disputed } from "./crdt/disputed.js";
export type { Escalation, EscalationReason } from "./crdt/escalation.js";
export { EscalationAlreadyResolvedError } from "./integrations/escalation-already-resolved-error.js";
export type { ItemIndexConfig } from "./integrations/langgraph-index.js";
export type { ItemContender } from "./integrations/langgraph-item-log.js";
export {
  nodeStore,
  SyncedStore,
  type SyncedStoreOptions,
} from "./integrations/langgraph-store.js";
export { UnsupportedItemValueError } from "./integrations/unsupported-item-value-error.js";
export { UnsupportedStoreOperationError } from "./integrations/unsupported-store-operation-error.js";
