import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ContextStore, Episode, Memory } from "../context/context-store.js";
import { type InvalidationNotice, SharedContext } from "../context/shared-context.js";
import { type Escalation, SharedState } from "../crdt/shared-state.js";
import { checkResultText, checkSharedDecisions } from "./decision-checks.js";
import { ItemIndex, parseItemNamespace } from "./langgraph-items.js";
import {
  decisionDisputeView,
  decisionView,
  escalationView,
  isStateSyncEpisode,
  publishDecisionResult,
  stateValueView,
  type TimelineResult,
  timelineResult,
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
}

/**
 * The resource listing a subject's decisions and disputes; subscribers get
 * `notifications/resources/updated` when one this agent read is superseded or disputed.
 */
export function decisionsResourceUri(subjectId: string): string {
  return `shared-ctx://subjects/${encodeURIComponent(subjectId)}/decisions`;
}

/** Episodes per page when the timeline skips CRDT sync episodes. */
const timelinePageSize = 100;
/** Bounds the paging so a huge subject cannot stall a tool call. */
const timelineMaxPages = 50;

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
  const now = options.now ?? Date.now;
  const decisionsUri = decisionsResourceUri(subjectId);
  const server = new McpServer(
    { name: "shared-ctx", version: options.version ?? "0.0.0" },
    {
      capabilities: { resources: { subscribe: true, listChanged: true }, logging: {} },
      instructions: `Shared context for subject "${subjectId}", speaking as agent "${agentId}". Call ${toolNames.checkSharedDecisions} before each unit of work and ${toolNames.publishDecision} after each decision; use ${toolNames.putState}/${toolNames.getState} for fields several agents write. Subscribe to ${decisionsUri} to hear when a decision you read is superseded or disputed.`,
    },
  );

  // LangGraph store items on this subject (written by a SyncedStore): their disputes are shown and
  // resolved here too, in the same shape. No LangGraph needed: the items are shared state.
  const items = new ItemIndex(state);
  const allEscalations = (): Escalation[] => [...state.escalations(), ...items.escalations()];
  /** A namespace's fields; a LangGraph item shows as its value. */
  const fieldsOf = (name: string): Record<string, unknown> =>
    parseItemNamespace(name)
      ? viewFields(itemFields(items.view(name, undefined).value))
      : viewFields(state.list(name));

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
    async ({ content, kind, target, confidence }) =>
      jsonResult(
        publishDecisionResult(
          await shared.decide(agentId, content, {
            kind: kind ?? "architectural_decision",
            ...(target === undefined ? {} : { target }),
            ...(confidence === undefined ? {} : { confidence }),
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
    async ({ limit = 50, includeStateUpdates = false }) =>
      jsonResult(await readTimeline(store, subjectId, { limit, includeStateUpdates })),
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
    async ({ namespace, key, value }) => {
      await state.put(namespace, key, value);
      return jsonResult({
        namespace,
        key,
        value: stateValueView(state.get(namespace, key)),
        escalations: openEscalations(allEscalations(), namespace, key).map(escalationView),
      });
    },
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
    async ({ namespace, key }) => {
      // Pull in what the other agents already stored, so a read never lags a finished write.
      await state.sync();
      if (key !== undefined && namespace === undefined) {
        const holding = Object.keys(state.toJSON()).filter((name) => key in fieldsOf(name));
        return toolError(
          `get_state: "key" needs a "namespace" (a key is only unique within one). ${
            holding.length > 0
              ? `"${key}" is a field of: ${holding.map((name) => JSON.stringify(name)).join(", ")}.`
              : `No namespace has a field "${key}" yet.`
          } Call get_state with { namespace, key }, or { namespace } for all its fields.`,
        );
      }
      const escalations = openEscalations(allEscalations(), namespace, key).map(escalationView);
      if (namespace !== undefined && key !== undefined) {
        const value = parseItemNamespace(namespace)
          ? fieldsOf(namespace)[key]
          : stateValueView(state.get(namespace, key));
        return jsonResult({ namespace, key, value, escalations });
      }
      if (namespace !== undefined) {
        return jsonResult({ namespace, fields: fieldsOf(namespace), escalations });
      }
      const everything: Record<string, Record<string, unknown>> = {};
      for (const name of Object.keys(state.toJSON())) everything[name] = fieldsOf(name);
      return jsonResult({ state: everything, escalations });
    },
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
    async ({ escalationId, value }) => {
      await state.sync();
      const known = allEscalations().find((escalation) => escalation.id === escalationId);
      if (known?.resolution !== undefined) {
        // A resolution is final, in the record as in the state: a second one is refused.
        return toolError(
          `resolve_escalation: ${escalationId} was already resolved by ${known.resolution.by} at ${new Date(known.resolution.at).toISOString()} with ${JSON.stringify(known.resolution.value)}; a resolution is final. To change the value now, write it with put_state (everyone reads the new write).`,
        );
      }
      if (!known) {
        const decisionDisputes = await shared.contradictions();
        const open = allEscalations()
          .filter((escalation) => escalation.resolution === undefined)
          .map((escalation) => escalation.id);
        const decision = decisionDisputes.find(
          (dispute) => decisionDisputeView(dispute).id === escalationId,
        );
        return toolError(
          decision
            ? `resolve_escalation: ${escalationId} is a dispute between decisions on "${decision.target}", not a state field: settle it with publish_decision (same kind "${decision.kind}" and target "${decision.target}"), which supersedes every side.`
            : `resolve_escalation: no escalation ${escalationId} on this subject. Open escalations: ${open.length > 0 ? open.join(", ") : "none"} (see get_state or check_shared_decisions).`,
        );
      }
      const item = await items.resolve(escalationId, value, {
        by: agentId,
        at: now(),
        id: randomUUID(),
      });
      if (!item) await state.resolve(escalationId, value, { by: agentId });
      const resolved = allEscalations().find((escalation) => escalation.id === escalationId);
      // resolve throws for an escalation this replica has not seen, so it is found.
      if (!resolved) throw new Error(`escalation ${escalationId} vanished after its resolution`);
      return jsonResult(escalationView(resolved));
    },
  );

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

function jsonResult(result: object): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(result, null, 2) }],
    structuredContent: result as Record<string, unknown>,
  };
}

/** An item's value as fields: an object is its own fields, anything else put whole is `value`. */
function itemFields(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  return { value };
}

function viewFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [key, stateValueView(value)]),
  );
}

function openEscalations(
  escalations: readonly Escalation[],
  namespace?: string,
  key?: string,
): Escalation[] {
  return escalations.filter(
    (escalation) =>
      escalation.resolution === undefined &&
      (namespace === undefined || escalation.namespace === namespace) &&
      (key === undefined || escalation.key === key),
  );
}

/**
 * Reads up to `limit` episodes, oldest first. Sync episodes are skipped by paging on, so a subject
 * whose log is mostly CRDT updates still shows its decisions.
 */
async function readTimeline(
  store: ContextStore,
  subjectId: string,
  options: { limit: number; includeStateUpdates: boolean },
): Promise<TimelineResult> {
  const episodes: Episode[] = [];
  const memories = new Map<string, Memory>();
  for (let page = 0; page < timelineMaxPages && episodes.length < options.limit; page += 1) {
    const timeline = await store.getTimeline(subjectId, {
      limit: timelinePageSize,
      offset: page * timelinePageSize,
    });
    for (const memory of timeline.memories) memories.set(memory.id, memory);
    for (const episode of timeline.episodes) {
      if (episodes.length >= options.limit) break;
      if (options.includeStateUpdates || !isStateSyncEpisode(episode)) episodes.push(episode);
    }
    if (
      timeline.episodes.length < timelinePageSize &&
      timeline.memories.length < timelinePageSize
    ) {
      break;
    }
  }
  return timelineResult(
    { subjectId, episodes, memories: [...memories.values()].slice(0, options.limit) },
    { includeStateUpdates: true },
  );
}
