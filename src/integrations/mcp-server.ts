import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ContextStore } from "../context/context-store.js";
import { type InvalidationNotice, SharedContext } from "../context/shared-context.js";
import { type Escalation, SharedState } from "../crdt/shared-state.js";
import { checkResultText, checkSharedDecisions } from "./decision-checks.js";
import { ItemIndex } from "./langgraph-items.js";
import { registerPromoteDecisionsTool } from "./promote-tool.js";
import { createStateTools, ToolInputError } from "./state-tools.js";
import {
  decisionDisputeView,
  decisionView,
  escalationView,
  publishDecisionResult,
} from "./tool-results.js";
import {
  checkSharedDecisionsInput,
  checkSharedDecisionsOutput,
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
  toolAnnotations,
  toolDescriptions,
  toolNames,
  toolTitles,
} from "./tool-schemas.js";

/** Options of {@link createSharedContextMcpServer}. */
export interface SharedContextMcpServerOptions {
  /** The two-call primitive the decision tools go through. */
  shared: SharedContext;
  /**
   * This agent's replica of the merging shared state, read by `get_state` and written by
   * `put_state`. Open it with `live: false`: reads catch up (`sync()`), writes do not, so a write
   * is concurrent with whatever the agent has not read, and a conflict with it is escalated.
   */
  state: SharedState;
  /** The store the timeline is read from. */
  store: ContextStore;
  subjectId: string;
  /** Who this server speaks for: decisions and state writes are attributed to it. */
  agentId: string;
  /** Reported to the client in the MCP handshake. @default "0.0.0" */
  version?: string;
  /** Clock of resolutions written to LangGraph store items, ms since the epoch. @default Date.now */
  now?: () => number;
  /**
   * A live replica of the subject (`SharedState.open({ live: true })`) that follows every writer:
   * a dispute it sees is pushed to the client at once, even one raised by writers this agent never
   * read (other processes). `state` itself learns others' writes only when the agent reads.
   * @default none: disputes are pushed as `state` sees them
   */
  observer?: SharedState;
  /**
   * A long-lived project subject: `check_shared_decisions` reads its decisions beside this
   * subject's (never writing into it), and `promote_decisions` promotes into it by default.
   * @default none
   */
  projectSubjectId?: string;
}

/**
 * The resource listing a subject's decisions and disputes; subscribers get
 * `notifications/resources/updated` when one this agent read is superseded or disputed.
 */
export function decisionsResourceUri(subjectId: string): string {
  return `shared-ctx://subjects/${encodeURIComponent(subjectId)}/decisions`;
}

/**
 * An MCP server (not yet connected) exposing shared context to one agent: `check_shared_decisions`,
 * `publish_decision`, `get_timeline`, `put_state`, `get_state` and `resolve_escalation`, each
 * declaring its `outputSchema`; and the resource {@link decisionsResourceUri}, whose subscribers
 * are sent `notifications/resources/updated` (plus a `warning` log message) when a decision this
 * agent read is superseded or disputed. The next `check_shared_decisions` leads with it.
 * Connect it to a transport, e.g. `await server.connect(new StdioServerTransport())`.
 */
export function createSharedContextMcpServer(options: SharedContextMcpServerOptions): McpServer {
  const { shared, state, store, subjectId, agentId } = options;
  const _now = options.now ?? Date.now;
  const decisionsUri = decisionsResourceUri(subjectId);
  const server = new McpServer(
    { name: "shared-ctx", version: options.version ?? "0.0.0" },
    {
      capabilities: { resources: { subscribe: true, listChanged: true }, logging: {} },
      instructions: `Shared context for subject "${subjectId}", speaking as agent "${agentId}". Call ${toolNames.checkSharedDecisions} before each unit of work and ${toolNames.publishDecision} after each decision; use ${toolNames.putState}/${toolNames.getState} for fields several agents write. Subscribe to ${decisionsUri} to hear when a decision you read is superseded or disputed.`,
    },
  );

  // get_state, put_state, resolve_escalation and get_timeline, as the AI SDK tools answer them.
  // LangGraph store items on this subject (written by a SyncedStore) are shown and resolved there
  // too, in the same shape. No LangGraph needed: the items are shared state.
  const tools = createStateTools({
    state,
    shared,
    store,
    subjectId,
    agentId,
    ...(options.now ? { now: options.now } : {}),
  });
  const items = tools.items;
  const allEscalations = tools.escalations;

  // What was pushed to this agent since its last check: the next check leads with it.
  const pending: InvalidationNotice[] = [];
  const subscriptions = new Set<string>();
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });
  // Listens as long as `shared` does: closing the shared context (as the session does) stops it.
  shared.onInvalidated(agentId, (notice) => {
    pending.push(notice);
    if (!server.isConnected()) return;
    // Fire and forget: a client gone mid-notification must not break the store's watch.
    if (subscriptions.has(decisionsUri)) {
      void server.server.sendResourceUpdated({ uri: decisionsUri }).catch(() => {});
    }
    void server.server
      .sendLoggingMessage({
        level: "warning",
        logger: "shared-ctx",
        data: { message: notice.reason, uri: decisionsUri, ...notice },
      })
      .catch(() => {});
  });
  // Every new dispute on the subject is pushed, whoever raised it (this agent, another agent, another
  // process, when an observer follows the store): the resource changed, and a log message names it.
  const watched = options.observer ?? state;
  const watchedItems = options.observer ? new ItemIndex(options.observer) : items;
  const watchedEscalations = (): Escalation[] => [
    ...watched.escalations(),
    ...watchedItems.escalations(),
  ];
  const announced = new Set(
    [...allEscalations(), ...watchedEscalations()].map((escalation) => escalation.id),
  );
  const announceDisputes = () => {
    for (const escalation of [...allEscalations(), ...watchedEscalations()]) {
      if (announced.has(escalation.id) || escalation.resolution !== undefined) continue;
      announced.add(escalation.id);
      const sides = escalation.contenders.map((contender) => contender.agentId).join(" and ");
      const message = `${escalation.namespace}/${escalation.key} is disputed (${escalation.reason}) between ${sides}: resolve_escalation ${escalation.id} settles it`;
      // Not queued for the next check, which lists every open dispute in its summary anyway.
      if (!server.isConnected()) continue;
      if (subscriptions.has(decisionsUri)) {
        void server.server.sendResourceUpdated({ uri: decisionsUri }).catch(() => {});
      }
      void server.server
        .sendLoggingMessage({
          level: "warning",
          logger: "shared-ctx",
          data: { message, uri: decisionsUri, escalationId: escalation.id },
        })
        .catch(() => {});
    }
  };
  let scheduled = false;
  // Items' disputes show once their operations are indexed: look after the change settles.
  const announceSoon = () => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      announceDisputes();
    });
  };
  for (const replica of new Set([state, watched])) {
    replica.onChange(announceSoon);
    replica.onEscalation(announceSoon);
  }

  server.registerResource(
    "decisions",
    decisionsUri,
    {
      title: `Decisions of ${subjectId}`,
      description:
        "The subject's active decisions and open disputes. Subscribe to be told when one you read is superseded or disputed.",
      mimeType: "application/json",
    },
    async (uri) => {
      await state.sync();
      const decisions = await store.searchMemories(subjectId, {
        kind: "architectural_decision",
        limit: 100,
      });
      // Every kind check_shared_decisions reports: state fields, LangGraph items, decisions.
      const disputes = [
        ...allEscalations()
          .filter((escalation) => escalation.resolution === undefined)
          .map(escalationView),
        ...(await shared.contradictions()).map(decisionDisputeView),
      ];
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: "application/json",
            text: JSON.stringify(
              { decisions: decisions.map(decisionView), disputes, notices: [...pending] },
              null,
              2,
            ),
          },
        ],
      };
    },
  );

  server.registerTool(
    toolNames.checkSharedDecisions,
    {
      title: toolTitles.checkSharedDecisions,
      description: toolDescriptions.checkSharedDecisions,
      inputSchema: checkSharedDecisionsInput,
      outputSchema: checkSharedDecisionsOutput,
      annotations: toolAnnotations.checkSharedDecisions,
    },
    async ({ task }) => {
      const notices = pending.splice(0);
      const result = await checkSharedDecisions(shared, agentId, task, {
        notices,
        ...(options.projectSubjectId ? { projectSubjectId: options.projectSubjectId } : {}),
        // beforeActing caught the replica up; LangGraph items' disputes are listed beside its own.
        disputes: () =>
          items.escalations().filter((escalation) => escalation.resolution === undefined),
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
    {
      title: toolTitles.publishDecision,
      description: toolDescriptions.publishDecision,
      inputSchema: publishDecisionInput,
      outputSchema: publishDecisionOutput,
      annotations: toolAnnotations.publishDecision,
    },
    async ({ content, kind, target, confidence, authority }) =>
      jsonResult(
        publishDecisionResult(
          await shared.decide(agentId, content, {
            kind: kind ?? "architectural_decision",
            ...(target === undefined ? {} : { target }),
            ...(confidence === undefined ? {} : { confidence }),
            ...(authority === undefined ? {} : { authority }),
          }),
        ),
      ),
  );

  server.registerTool(
    toolNames.getTimeline,
    {
      title: toolTitles.getTimeline,
      description: toolDescriptions.getTimeline,
      inputSchema: getTimelineInput,
      outputSchema: getTimelineOutput,
      annotations: toolAnnotations.getTimeline,
    },
    (input) => answer(() => tools.getTimeline(input)),
  );

  server.registerTool(
    toolNames.putState,
    {
      title: toolTitles.putState,
      description: toolDescriptions.putState,
      inputSchema: putStateInput,
      outputSchema: putStateOutput,
      annotations: toolAnnotations.putState,
    },
    (input) => answer(() => tools.putState(input)),
  );

  server.registerTool(
    toolNames.getState,
    {
      title: toolTitles.getState,
      description: toolDescriptions.getState,
      inputSchema: getStateInput,
      outputSchema: getStateOutput,
      annotations: toolAnnotations.getState,
    },
    (input) => answer(() => tools.getState(input)),
  );

  server.registerTool(
    toolNames.resolveEscalation,
    {
      title: toolTitles.resolveEscalation,
      description: toolDescriptions.resolveEscalation,
      inputSchema: resolveEscalationInput,
      outputSchema: resolveEscalationOutput,
      annotations: toolAnnotations.resolveEscalation,
    },
    (input) => answer(() => tools.resolveEscalation(input)),
  );

  registerPromoteDecisionsTool(server, {
    store,
    subjectId,
    agentId,
    ...(options.projectSubjectId ? { projectSubjectId: options.projectSubjectId } : {}),
  });

  return server;
}

/** Options of {@link openSharedContextMcpServer}. */
export interface OpenSharedContextMcpServerOptions {
  store: ContextStore;
  subjectId: string;
  agentId: string;
  /** @default "0.0.0" */
  version?: string;
  /** Clock, in ms since the epoch. @default Date.now */
  now?: () => number;
  /** See {@link SharedContextMcpServerOptions.projectSubjectId}. @default none */
  projectSubjectId?: string;
}

/** An MCP server with the shared state and context it owns. */
export interface SharedContextMcpSession {
  readonly server: McpServer;
  readonly state: SharedState;
  readonly shared: SharedContext;
  /** Closes the server, the shared context and the replica (not the store, which the caller owns). */
  close(): Promise<void>;
}

/**
 * Opens this agent's shared-state replica and shared context on `store`, and builds the MCP server
 * over them. The replica catches up with the other agents whenever the agent reads.
 */
export async function openSharedContextMcpServer(
  options: OpenSharedContextMcpServerOptions,
): Promise<SharedContextMcpSession> {
  const { store, subjectId, agentId } = options;
  const state = await SharedState.open({
    store,
    subjectId,
    agentId,
    // Not live: the replica learns others' writes only when the agent reads (get_state,
    // check_shared_decisions). A write is then concurrent with everything the agent has not read,
    // so it can never silently overwrite a value the agent never saw: that is escalated instead.
    live: false,
    ...(options.now ? { now: options.now } : {}),
  });
  // Follows every writer, only to push the disputes it sees (the agent's own replica stays lazy).
  const observer = await SharedState.open({
    store,
    subjectId,
    agentId,
    ...(options.now ? { now: options.now } : {}),
  });
  const shared = new SharedContext({
    store,
    subjectId,
    state,
    ...(options.now ? { now: options.now } : {}),
  });
  const server = createSharedContextMcpServer({
    shared,
    state,
    store,
    subjectId,
    agentId,
    observer,
    ...(options.projectSubjectId ? { projectSubjectId: options.projectSubjectId } : {}),
    ...(options.version ? { version: options.version } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  let closing: Promise<void> | undefined;
  return {
    server,
    state,
    shared,
    close() {
      closing ??= (async () => {
        await server.close();
        await shared.close();
        await state.close();
        await observer.close();
      })();
      return closing;
    },
  };
}

/** A refused call: the model reads the message (what to do instead) and may try again. */
function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** A tool's result as MCP's: JSON, or the refusal's message as an `isError` result. */
async function answer(run: () => Promise<object>): Promise<CallToolResult> {
  try {
    return jsonResult(await run());
  } catch (error) {
    if (error instanceof ToolInputError) return toolError(error.message);
    throw error;
  }
}

function jsonResult(result: object): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(result, null, 2) }],
    structuredContent: result as Record<string, unknown>,
  };
}
