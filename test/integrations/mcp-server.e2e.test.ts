import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SyncedStore } from "../../src/langgraph.js";
import { deferred } from "../support/deferred.js";
import { eventually } from "../support/eventually.js";
import { connectMcpAgentPair, type McpAgentPair } from "../support/mcp-agents.js";
import { disputeTripBudget, mcpToolNames } from "../support/shared-context-tools.js";
import type { McpAgent } from "./mcp-client.js";

describe("shared-ctx mcp: two agents in two processes on one database", () => {
  let agents: McpAgentPair | undefined;
  let alice: McpAgent;
  let bob: McpAgent;

  beforeAll(async () => {
    agents = await connectMcpAgentPair("shared-ctx-mcp-");
    ({ alice, bob } = agents);
  });
  afterAll(() => agents?.close());

  it("offers the shared-context tools", async () => {
    const { tools } = await alice.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(mcpToolNames);
  });

  it("lets one agent read what the other published", async () => {
    const published = await alice.call("publish_decision", {
      content: "Deprecate legacy-session-token; use JWT",
      target: "legacy-session-token",
    });
    expect(published).toMatchObject({
      memories: [
        { kind: "architectural_decision", content: "Deprecate legacy-session-token; use JWT" },
      ],
    });

    const read = await bob.call("check_shared_decisions", { task: "rebuild legacy-session-token" });
    expect(read.decisions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ content: "Deprecate legacy-session-token; use JWT" }),
      ]),
    );

    const timeline = await bob.call("get_timeline", {});
    expect(timeline.episodes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          source: "alice",
          type: "architectural_decision",
          text: "Deprecate legacy-session-token; use JWT",
        }),
      ]),
    );
  });

  it("merges concurrent list writes to one key and escalates a scalar conflict", async () => {
    // Concurrent means neither agent had read the other's write when it wrote: Bob has not read
    // the state since Alice wrote, so his writes are concurrent with hers although they come later.
    await Promise.all([
      alice.call("put_state", { namespace: "plan", key: "owners", value: ["alice"] }),
      alice.call("put_state", { namespace: "plan", key: "database", value: "postgres" }),
    ]);
    await Promise.all([
      bob.call("put_state", { namespace: "plan", key: "owners", value: ["bob"] }),
      bob.call("put_state", { namespace: "plan", key: "database", value: "mysql" }),
    ]);

    for (const agent of [alice, bob]) {
      const plan = await eventually(
        () => agent.call("get_state", { namespace: "plan" }),
        (state) => {
          expect(state.fields).toMatchObject({ database: { disputed: expect.any(String) } });
          expect((state.fields as { owners: unknown }).owners).toHaveLength(2);
        },
      );
      const fields = plan.fields as { owners: string[]; database: { contenders: unknown[] } };
      expect([...fields.owners].sort()).toEqual(["alice", "bob"]);
      expect(fields.database.contenders).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ agentId: "alice", value: "postgres" }),
          expect.objectContaining({ agentId: "bob", value: "mysql" }),
        ]),
      );
      expect(plan.escalations).toEqual([
        expect.objectContaining({ namespace: "plan", key: "database" }),
      ]);
    }
  });

  it("reports the dispute to a reading agent, and a resolution settles it for both", async () => {
    // Its own dispute, in its own namespace: the test passes alone and in any order (the one the
    // test above raises may or may not be open beside it).
    await alice.call("put_state", { namespace: "release", key: "database", value: "postgres" });
    await bob.call("put_state", { namespace: "release", key: "database", value: "mysql" });
    const read = await eventually(
      () => bob.call("check_shared_decisions", { task: "choose the database" }),
      (value) =>
        expect(value.disputes).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ namespace: "release", key: "database" }),
          ]),
        ),
    );
    const disputes = read.disputes as Array<{ id: string; namespace: string }>;
    const dispute = disputes.find((candidate) => candidate.namespace === "release");

    const resolved = await bob.call("resolve_escalation", {
      escalationId: dispute?.id,
      value: "postgres",
    });
    expect(resolved).toMatchObject({ resolution: { value: "postgres", by: "bob" } });

    const database = await eventually(
      () => alice.call("get_state", { namespace: "release", key: "database" }),
      (state) => expect(state.value).toBe("postgres"),
    );
    expect(database.escalations).toEqual([]);
  });
});

describe("shared-ctx mcp: what a client can rely on", () => {
  // One folder for the whole describe: the last test opens the database the servers use.
  let agents: McpAgentPair | undefined;
  let alice: McpAgent;
  let bob: McpAgent;
  let dbPath: string;

  beforeAll(async () => {
    agents = await connectMcpAgentPair("shared-ctx-mcp-push-");
    ({ alice, bob, dbPath } = agents);
  });
  afterAll(() => agents?.close());

  it("declares an outputSchema for every tool, and its results conform", async () => {
    const { tools } = await alice.client.listTools();
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toMatchObject({ type: "object" });
    }
    // The client validates structuredContent against the declared schema: a call passing it is proof.
    const read = await alice.call("check_shared_decisions", { task: "anything" });
    // Whether a dispute is open depends on which tests of this describe ran first (any order).
    expect(read.summary).toMatch(/open dispute/i);
  });

  it("pushes a resource update and a log message when a decision the agent read is superseded; the next check leads with it", async () => {
    const uri = "shared-ctx://subjects/repo/decisions";
    const { resources } = await alice.client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain(uri);

    const updated: string[] = [];
    const logged: unknown[] = [];
    const pushed = deferred();
    const loggedOnce = deferred();
    alice.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri);
      pushed.resolve();
    });
    alice.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      // Disputes other tests of this describe raise are pushed too (with an escalationId).
      if (JSON.stringify(notification.params.data).includes("escalationId")) return;
      logged.push(notification.params);
      loggedOnce.resolve();
    });
    await alice.client.subscribeResource({ uri });

    await alice.call("publish_decision", { content: "Sessions in Redis", target: "sessions" });
    await alice.call("check_shared_decisions", { task: "sessions" });
    // Bob reads Alice's decision, so his newer one on the same target supersedes it.
    await eventually(
      () => bob.call("check_shared_decisions", { task: "sessions" }),
      (read) => expect(JSON.stringify(read.decisions)).toContain("Sessions in Redis"),
    );
    await bob.call("publish_decision", { content: "Sessions in Postgres", target: "sessions" });

    await Promise.all([pushed.promise, loggedOnce.promise]);
    expect(new Set(updated)).toEqual(new Set([uri]));
    expect(logged).toEqual([
      expect.objectContaining({
        level: "warning",
        data: expect.objectContaining({ message: "superseded by bob: Sessions in Postgres", uri }),
      }),
    ]);
    const resource = await alice.client.readResource({ uri });
    expect(JSON.stringify(resource.contents)).toContain("Sessions in Postgres");

    const next = await alice.call("check_shared_decisions", { task: "sessions" });
    expect(String(next.summary).split("\n")[0]).toBe("Changed since your last read (1):");
    expect(String(next.summary)).toContain("superseded by bob: Sessions in Postgres");
    const content = (await alice.client.callTool({
      name: "check_shared_decisions",
      arguments: { task: "sessions" },
    })) as { content: Array<{ type: string; text?: string }> };
    // Told once: the check after that no longer repeats it.
    expect(content.content[0]?.text).not.toContain("Changed since your last read");
  });

  it("shows a state dispute in the one dispute shape on every tool", async () => {
    await Promise.all([
      alice.call("put_state", { namespace: "plan", key: "database", value: "postgres" }),
      bob.call("put_state", { namespace: "plan", key: "database", value: "mysql" }),
    ]);
    const state = await eventually(
      () => alice.call("get_state", { namespace: "plan", key: "database" }),
      (read) => expect(read.value).toMatchObject({ disputed: expect.any(String) }),
    );
    const value = state.value as { disputed: string; contenders: unknown[] };
    const [escalation] = state.escalations as Array<{ id: string; contenders: unknown[] }>;
    expect(value.disputed).toBe(escalation?.id);
    expect(value.contenders).toEqual(escalation?.contenders);
    expect(value.contenders).toEqual(
      expect.arrayContaining([
        { agentId: "alice", value: "postgres", at: expect.any(Number) },
        { agentId: "bob", value: "mysql", at: expect.any(Number) },
      ]),
    );
    const read = await alice.call("check_shared_decisions", { task: "database" });
    expect(read.disputes).toEqual(expect.arrayContaining([escalation]));
    expect(String(read.summary)).toContain("plan/database: ");
  });

  it("shows a LangGraph store item's dispute in the same shape, and resolves it", async () => {
    // A graph in this process writes the subject the MCP agents share: two parallel nodes disagree.
    const store = new EmbeddedStore({ path: dbPath });
    const synced = await SyncedStore.open({ store, subjectId: "repo" });
    try {
      await disputeTripBudget(synced);
      const [escalation] = await synced.escalations();

      const namespace = 'langgraph:["plan","trip"]';
      const item = await eventually(
        () => alice.call("get_state", { namespace }),
        (read) => expect(read.escalations).toHaveLength(1),
      );
      expect(item.escalations).toEqual([JSON.parse(JSON.stringify(escalation))]);
      expect((item.fields as { budget: unknown }).budget).toEqual({
        disputed: escalation?.id,
        contenders: escalation?.contenders,
      });
      const read = await alice.call("check_shared_decisions", { task: "the trip budget" });
      expect(read.disputes).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: escalation?.id })]),
      );

      await alice.call("resolve_escalation", { escalationId: escalation?.id, value: 1000 });
      await eventually(
        async () => {
          await synced.escalations();
          return synced.get(["plan"], "trip");
        },
        (trip) => expect(trip?.value).toEqual({ budget: 1000 }),
      );
    } finally {
      await synced.close();
      await store.close();
    }
  });
});
