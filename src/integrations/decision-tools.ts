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
  givenOptions,
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
      return publishDecisionResult(
        await shared.decide(
          callerId,
          input.content,
          givenOptions({
            kind,
            target: input.target,
            confidence: input.confidence,
            supersedes,
            idempotencyKey: input.idempotencyKey,
            authority: input.authority,
            effect: input.effect,
            replacement: input.replacement,
          }),
        ),
      );
    },
    async retractDecision(input) {
      return publishDecisionResult(
        await shared.retract(
          callerId,
          input.memoryId,
          givenOptions({ reason: input.reason, idempotencyKey: input.idempotencyKey }),
        ),
      );
    },
    async getDecisionHistory(input) {
      return decisionHistoryResult(await shared.history(input.memoryId));
    },
  };
}
