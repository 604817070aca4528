import { toolNames } from "./tool-names.js";

/**
 * What the shared-ctx MCP server says of itself in its `initialize` answer, without the MCP SDK,
 * zod or the store: `shared-ctx mcp` answers `initialize` from this before the store and the
 * agent's replica are open (start-up), and {@link createSharedContextMcpServer} builds its server
 * from the same, so both answers are one.
 */
export interface SharedContextServerInfo {
  readonly serverInfo: { readonly name: string; readonly version: string };
  /**
   * Every capability the server has once its tools and resource are registered (the SDK adds
   * `tools` and `resources.listChanged` on registration; declared here so an early answer has them).
   */
  readonly capabilities: {
    readonly tools: { readonly listChanged: true };
    readonly resources: { readonly subscribe: true; readonly listChanged: true };
    readonly logging: Record<string, never>;
  };
  readonly instructions: string;
}

/**
 * The resource listing a subject's decisions and disputes; subscribers get
 * `notifications/resources/updated` when one this agent read is superseded or disputed.
 */
export function decisionsResourceUri(subjectId: string): string {
  return `shared-ctx://subjects/${encodeURIComponent(subjectId)}/decisions`;
}

/** The server's name, version, capabilities and instructions for one agent on one subject. */
export function sharedContextServerInfo(options: {
  subjectId: string;
  agentId: string;
  /** @default "0.0.0" */
  version?: string;
}): SharedContextServerInfo {
  const { subjectId, agentId } = options;
  const decisionsUri = decisionsResourceUri(subjectId);
  return {
    serverInfo: { name: "shared-ctx", version: options.version ?? "0.0.0" },
    capabilities: {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      logging: {},
    },
    instructions: `Shared context for subject "${subjectId}", speaking as agent "${agentId}". Call ${toolNames.checkSharedDecisions} before each unit of work and ${toolNames.publishDecision} after each decision; use ${toolNames.putState}/${toolNames.getState} for fields several agents write. Subscribe to ${decisionsUri} to hear when a decision you read is superseded or disputed.`,
  };
}
