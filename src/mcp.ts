/**
 * `shared-ctx/mcp`: the MCP server (`shared-ctx mcp` is this over stdio), a separate entry point so
 * that the main `shared-ctx` entry never loads the MCP SDK.
 */

export {
  createSharedContextMcpServer,
  decisionsResourceUri,
  type OpenSharedContextMcpServerOptions,
  openSharedContextMcpServer,
  type SharedContextMcpServerOptions,
  type SharedContextMcpSession,
} from "./integrations/mcp-server.js";
export {
  type PromoteDecisionsToolOptions,
  promoteDecisionsTool,
  registerPromoteDecisionsTool,
} from "./integrations/promote-tool.js";
export type {
  CheckSharedDecisionsResult,
  ContenderView,
  DecisionView,
  EpisodeView,
  EscalationView,
  NoticeView,
  PublishDecisionResult,
  TimelineResult,
} from "./integrations/tool-results.js";
