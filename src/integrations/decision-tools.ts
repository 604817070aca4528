import type { SharedContext } from "../context/shared-context.js";
import {
  type DecisionHistoryResult,
  decisionHistoryResult,
  type PublishDecisionResult,
  publishDecisionResult,
} from "./tool-results.js";
import {
  type GetDecisionHistoryInput,
  given,
  type PublishDecisionInput,
  type RetractDecisionInput,
} from "./tool-schemas.js";

/**
 * The decision life-cycle tools' logic, shared by the MCP server and the AI SDK tools so both
 * answer alike: `publish_decision` (supersede by id, idempotency key), `retract_decision` and
 * `get_decision_history`. A step the rules refuse throws the library's `DecisionLifecycleError`,
 * whose message says what to do instead.
 */
export interface DecisionTools {
  publishDecision(input: PublishDecisionInput): Promise<PublishDecisionResult>;
  retractDecision(input: RetractDecisionInput): Promise<PublishDecisionResult>;
  getDecisionHistory(input: GetDecisionHistoryInput): Promise<DecisionHistoryResult>;
}

/** The decision tools for `callerId` over `shared`. */
export function createDecisionTools(
  shared: SharedContext,
  options: {
    callerId: string;
    /** Kind of a published decision when the model names none and supersedes none. @default "architectural_decision" */
    defaultKind?: string;
  },
): DecisionTools {
  const { callerId, defaultKind = "architectural_decision" } = options;
  return {
    async publishDecision(input) {
      const supersedes = given(input.supersedes);
      const kind = given(input.kind) ?? (supersedes === undefined ? defaultKind : undefined);
      const target = given(input.target);
      const confidence = given(input.confidence);
      const idempotencyKey = given(input.idempotencyKey);
      const authority = given(input.authority);
      return publishDecisionResult(
        await shared.decide(callerId, input.content, {
          ...(kind === undefined ? {} : { kind }),
          ...(target === undefined ? {} : { target }),
          ...(confidence === undefined ? {} : { confidence }),
          ...(supersedes === undefined ? {} : { supersedes }),
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
          ...(authority === undefined ? {} : { authority }),
        }),
      );
    },
    async retractDecision(input) {
      const reason = given(input.reason);
      const idempotencyKey = given(input.idempotencyKey);
      return publishDecisionResult(
        await shared.retract(callerId, input.memoryId, {
          ...(reason === undefined ? {} : { reason }),
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        }),
      );
    },
    async getDecisionHistory(input) {
      return decisionHistoryResult(await shared.history(input.memoryId));
    },
  };
}
