/**
 * The names of the tools shared-ctx gives to agents, without their schemas: what `mcp --help`
 * lists (it loads no zod or MCP SDK) and what the MCP server registers, from one table. A tool
 * added to the server is added here, and the help lists it.
 */

/** Tool names, identical in the AI SDK and over MCP. */
export const toolNames = {
  checkSharedDecisions: "check_shared_decisions",
  publishDecision: "publish_decision",
  retractDecision: "retract_decision",
  getDecisionHistory: "get_decision_history",
  getTimeline: "get_timeline",
  putState: "put_state",
  getState: "get_state",
  resolveEscalation: "resolve_escalation",
} as const;

/** The MCP-only tool: a session's decisions promoted into a long-lived project subject. */
export const promoteDecisionsToolName = "promote_decisions";

/** Every tool the MCP server registers, in the order `mcp --help` lists them. */
export const mcpToolNames: readonly string[] = [
  ...Object.values(toolNames),
  promoteDecisionsToolName,
];
