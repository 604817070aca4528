import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ContextStore } from "../context/context-store.js";
import { allActiveDecisions } from "../context/reads-by-target.js";
import { type InvalidationNotice, SharedContext } from "../context/shared-context.js";
import { type Escalation, SharedState } from "../crdt/shared-state.js";
import { ItemIndex } from "./langgraph-items.js";
import { decisionsResourceUri, sharedContextServerInfo } from "./mcp-server-info.js";
import { registerDecisionTools, registerStateTools } from "./mcp-tools.js";
import { registerPromoteDecisionsTool } from "./promote-tool.js";
import { createStateTools, type StateTools } from "./state-tools.js";
import { decisionDisputeView, decisionView, escalationView } from "./tool-results.js";

export { decisionsResourceUri } from "./mcp-server-info.js";

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
 * An MCP server (not yet connected) exposing shared context to one agent: `check_shared_decisions`,
 * `publish_decision`, `retract_decision`, `get_decision_history`, `get_timeline`, `put_state`,
 * `get_state` and `resolve_escalation`, each declaring its `outputSchema`; and the resource
 * {@link decisionsResourceUri}, whose subscribers are sent `notifications/resources/updated` (plus a
 * `warning` log message) when a decision this agent read is superseded, retracted or disputed, or
 * a dispute is raised on the subject. The next `check_shared_decisions` leads with it.
 * Connect it to a transport, e.g. `await server.connect(new StdioServerTransport())`.
 */
export function createSharedContextMcpServer(options: SharedContextMcpServerOptions): McpServer {
  const { shared, state, store, subjectId, agentId } = options;
  const decisionsUri = decisionsResourceUri(subjectId);
  const info = sharedContextServerInfo({
    subjectId,
    agentId,
    ...(options.version ? { version: options.version } : {}),
  });
  const server = new McpServer(info.serverInfo, {
    capabilities: info.capabilities,
    instructions: info.instructions,
  });
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
  const parts: ServerParts = {
    server,
    options,
    decisionsUri,
    tools,
    // What was pushed to this agent since its last check: the next check leads with it.
    pending: [],
    subscriptions: trackSubscriptions(server),
  };
  pushInvalidations(parts);
  pushDisputes(parts);
  registerDecisionsResource(parts);
  registerDecisionTools(server, {
    shared,
    agentId,
    projectSubjectId: options.projectSubjectId,
    tools,
    pending: parts.pending,
  });
  registerStateTools(server, tools);
  registerPromoteDecisionsTool(server, {
    store,
    subjectId,
    agentId,
    ...(options.projectSubjectId ? { projectSubjectId: options.projectSubjectId } : {}),
  });
  return server;
}

/** What the registration steps of {@link createSharedContextMcpServer} share. */
interface ServerParts {
  readonly server: McpServer;
  readonly options: SharedContextMcpServerOptions;
  readonly decisionsUri: string;
  readonly tools: StateTools;
  /** Notices pushed since the agent's last check. */
  readonly pending: InvalidationNotice[];
  /** The resource URIs the client subscribed to. */
  readonly subscriptions: ReadonlySet<string>;
}

/** Keeps the client's resource subscriptions. */
function trackSubscriptions(server: McpServer): ReadonlySet<string> {
  const subscriptions = new Set<string>();
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });
  return subscriptions;
}

/**
 * Tells the client the resource changed (to subscribers) and logs `data` as a warning. Fire and
 * forget: a client gone mid-notification must not break the store's watch.
 */
function announce(parts: ServerParts, data: Record<string, unknown>): void {
  const { server, subscriptions, decisionsUri } = parts;
  if (subscriptions.has(decisionsUri)) {
    void server.server.sendResourceUpdated({ uri: decisionsUri }).catch(() => {});
  }
  void server.server
    .sendLoggingMessage({ level: "warning", logger: "shared-ctx", data })
    .catch(() => {});
}

/** A decision this agent read was superseded, retracted or disputed: queued, and pushed. */
function pushInvalidations(parts: ServerParts): void {
  const { server, options, pending, decisionsUri } = parts;
  // Listens as long as `shared` does: closing the shared context (as the session does) stops it.
  options.shared.onInvalidated(options.agentId, (notice) => {
    pending.push(notice);
    if (!server.isConnected()) return;
    announce(parts, { message: notice.reason, uri: decisionsUri, ...notice });
  });
}

/**
 * Every new dispute on the subject is pushed, whoever raised it (this agent, another agent, another
 * process, when an observer follows the store): the resource changed, and a log message names it.
 */
function pushDisputes(parts: ServerParts): void {
  const { server, options, tools, decisionsUri } = parts;
  const { state } = options;
  const watched = options.observer ?? state;
  const watchedItems = options.observer ? new ItemIndex(options.observer) : tools.items;
  const watchedEscalations = (): Escalation[] => [
    ...watched.escalations(),
    ...watchedItems.escalations(),
  ];
  const announced = new Set(
    [...tools.escalations(), ...watchedEscalations()].map((escalation) => escalation.id),
  );
  const announceDisputes = () => {
    for (const escalation of [...tools.escalations(), ...watchedEscalations()]) {
      if (announced.has(escalation.id) || escalation.resolution !== undefined) continue;
      announced.add(escalation.id);
      const sides = escalation.contenders.map((contender) => contender.agentId).join(" and ");
      const message = `${escalation.namespace}/${escalation.key} is disputed (${escalation.reason}) between ${sides}: resolve_escalation ${escalation.id} settles it`;
      // Not queued for the next check, which lists every open dispute in its summary anyway.
      if (!server.isConnected()) continue;
      announce(parts, { message, uri: decisionsUri, escalationId: escalation.id });
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
}

/** The subject's active decisions, open disputes and pending notices, as one JSON resource. */
function registerDecisionsResource(parts: ServerParts): void {
  const { server, options, tools, pending, decisionsUri } = parts;
  const { shared, state, store, subjectId } = options;
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
      // Every active decision, paged to the end (not the newest 100).
      const decisions = await allActiveDecisions(store, subjectId);
      // Every kind check_shared_decisions reports: state fields, LangGraph items, decisions.
      const disputes = [
        ...tools
          .escalations()
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
              {
                // A retraction stands for no decision (as in check_shared_decisions).
                decisions: decisions
                  .filter((memory) => typeof memory.metadata.retracts !== "string")
                  .map(decisionView),
                disputes,
                notices: [...pending],
              },
              null,
              2,
            ),
          },
        ],
      };
    },
  );
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
