/**
 * The decision and state tools as the MCP server registers them: `check_shared_decisions`,
 * `publish_decision`, `retract_decision`, `get_decision_history`, `get_timeline`, `put_state`,
 * `get_state` and `resolve_escalation`, over the same logic as the AI SDK tools. Kept beside
 * `promote-tool.ts` so that `mcp-server.ts` is left with what the server itself does: the
 * decisions resource and the notifications it pushes.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DecisionLifecycleError } from "../context/errors/decision-lifecycle-error.js";
import type { InvalidationNotice, SharedContext } from "../context/shared-context.js";
import { checkResultText, checkSharedDecisions } from "./decision-checks.js";
import { createDecisionTools } from "./decision-tools.js";
import { type StateTools, ToolInputError } from "./state-tools.js";
import {
  checkSharedDecisionsInput,
  checkSharedDecisionsOutput,
  getDecisionHistoryInput,
  getDecisionHistoryOutput,
  getStateInput,
  getStateOutput,
  getTimelineInput,
  getTimelineOutput,
  publishDecisionInput,
  publishDecisionOutput,
  putStateInput,
  putStateOutput,
  resolveEscalationInput,
  resolveEscalationOutput,
  retractDecisionInput,
  retractDecisionOutput,
  toolAnnotations,
  toolDescriptions,
  toolNames,
  toolTitles,
} from "./tool-schemas.js";

/** What the decision tools need from their server. */
export interface DecisionToolsRegistration {
  shared: SharedContext;
  /** Who this server speaks for: reads are recorded and decisions attributed under this id. */
  agentId: string;
  /** A project subject whose decisions the check reads beside this subject's. @default none */
  projectSubjectId?: string | undefined;
  /** The state tools: their LangGraph items' open disputes are listed by the check. */
  tools: StateTools;
  /** Notices pushed since the agent's last check: the next check leads with them (and takes them). */
  pending: InvalidationNotice[];
}

/** `check_shared_decisions`, `publish_decision`, `retract_decision` and `get_decision_history`. */
export function registerDecisionTools(
  server: McpServer,
  registration: DecisionToolsRegistration,
): void {
  const { shared, agentId, projectSubjectId, tools, pending } = registration;
  const life = createDecisionTools(shared, { callerId: agentId });
  server.registerTool(
    toolNames.checkSharedDecisions,
    declaration("checkSharedDecisions", checkSharedDecisionsInput, checkSharedDecisionsOutput),
    async ({ task }) => {
      const notices = pending.splice(0);
      const result = await checkSharedDecisions(shared, agentId, task, {
        notices,
        ...(projectSubjectId ? { projectSubjectId } : {}),
        // beforeActing caught the replica up; LangGraph items' disputes are listed beside its own.
        disputes: () =>
          tools.items.escalations().filter((escalation) => escalation.resolution === undefined),
      });
      return {
        // The summary first: it is what a model reads before anything else.
        content: [{ type: "text", text: checkResultText(result) }],
        structuredContent: { ...result },
      };
    },
  );
  server.registerTool(
    toolNames.publishDecision,
    declaration("publishDecision", publishDecisionInput, publishDecisionOutput),
    (input) => answer(() => life.publishDecision(input)),
  );
  server.registerTool(
    toolNames.retractDecision,
    declaration("retractDecision", retractDecisionInput, retractDecisionOutput),
    (input) => answer(() => life.retractDecision(input)),
  );
  server.registerTool(
    toolNames.getDecisionHistory,
    declaration("getDecisionHistory", getDecisionHistoryInput, getDecisionHistoryOutput),
    (input) => answer(() => life.getDecisionHistory(input)),
  );
}

/** `get_timeline`, `put_state`, `get_state` and `resolve_escalation`. */
export function registerStateTools(server: McpServer, tools: StateTools): void {
  server.registerTool(
    toolNames.getTimeline,
    declaration("getTimeline", getTimelineInput, getTimelineOutput),
    (input) => answer(() => tools.getTimeline(input)),
  );
  server.registerTool(
    toolNames.putState,
    declaration("putState", putStateInput, putStateOutput),
    (input) => answer(() => tools.putState(input)),
  );
  server.registerTool(
    toolNames.getState,
    declaration("getState", getStateInput, getStateOutput),
    (input) => answer(() => tools.getState(input)),
  );
  server.registerTool(
    toolNames.resolveEscalation,
    declaration("resolveEscalation", resolveEscalationInput, resolveEscalationOutput),
    (input) => answer(() => tools.resolveEscalation(input)),
  );
}

/**
 * A tool's MCP declaration: its title, description and annotations from the tables the AI SDK
 * tools read too, all under one key, so that a tool cannot borrow another's row.
 */
function declaration<Input, Output>(
  tool: keyof typeof toolNames,
  inputSchema: Input,
  outputSchema: Output,
) {
  return {
    title: toolTitles[tool],
    description: toolDescriptions[tool],
    inputSchema,
    outputSchema,
    annotations: toolAnnotations[tool],
  };
}

/** A refused call: the model reads the message (what to do instead) and may try again. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** A tool's result as MCP's: JSON, or the refusal's message as an `isError` result. */
async function answer(run: () => Promise<object>): Promise<CallToolResult> {
  try {
    return jsonResult(await run());
  } catch (error) {
    // Refusals the model can act on; anything else is a failure of the server.
    if (error instanceof ToolInputError || error instanceof DecisionLifecycleError) {
      return toolError(error.message);
    }
    throw error;
  }
}

function jsonResult(result: object): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(result, null, 2) }],
    structuredContent: result as Record<string, unknown>,
  };
}
