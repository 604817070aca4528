import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedState } from "../../src/crdt/shared-state.js";
import { deferred } from "../support/deferred.js";
import { eventually } from "../support/eventually.js";
import { connectMcpAgentPair, type McpAgentPair } from "../support/mcp-agents.js";
import type { McpAgent } from "./mcp-client.js";

function textOf(result: Record<string, unknown>): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return content.map((part) => part.text ?? "").join("\n");
}

/** OpenAI strict mode's bar for one property schema: a type (or a union of typed schemas). */
function isTyped(schema: Record<string, unknown>): boolean {
  if (typeof schema.type === "string" || Array.isArray(schema.type)) return true;
  const union = schema.anyOf ?? schema.oneOf;
  return (
    Array.isArray(union) &&
    union.length > 0 &&
    union.every((member) => isTyped(member as Record<string, unknown>))
  );
}

describe("shared-ctx mcp: the rules a client relies on", () => {
  let agents: McpAgentPair | undefined;
  let dbPath: string;
  let alice: McpAgent;
  let bob: McpAgent;
  const uri = "shared-ctx://subjects/repo/decisions";

  beforeAll(async () => {
    agents = await connectMcpAgentPair("shared-ctx-mcp-rules-");
    ({ alice, bob, dbPath } = agents);
  });
  afterAll(() => agents?.close());

  it("gives every tool a title and its annotations, and every input property a typed schema", async () => {
    const { tools } = await alice.client.listTools();
    const annotations = Object.fromEntries(
      tools.map((tool) => [
        tool.name,
        {
          title: tool.title,
          readOnly: tool.annotations?.readOnlyHint,
          idempotent: tool.annotations?.idempotentHint,
          destructive: tool.annotations?.destructiveHint,
        },
      ]),
    );
    expect(annotations).toEqual({
      check_shared_decisions: {
        title: "Check shared decisions",
        readOnly: true,
        idempotent: undefined,
        destructive: undefined,
      },
      get_decision_history: {
        title: "Read a decision's history",
        readOnly: true,
        idempotent: undefined,
        destructive: undefined,
      },
      get_state: {
        title: "Read the shared state",
        readOnly: true,
        idempotent: undefined,
        destructive: undefined,
      },
      get_timeline: {
        title: "Read the subject's timeline",
        readOnly: true,
        idempotent: undefined,
        destructive: undefined,
      },
      promote_decisions: {
        title: "Promote decisions into the project",
        readOnly: false,
        idempotent: true,
        destructive: false,
      },
      publish_decision: {
        title: "Publish a decision",
        readOnly: false,
        idempotent: false,
        destructive: false,
      },
      put_state: {
        title: "Write a shared-state field",
        readOnly: false,
        idempotent: true,
        destructive: false,
      },
      resolve_escalation: {
        title: "Resolve an escalation",
        readOnly: false,
        idempotent: true,
        destructive: false,
      },
      retract_decision: {
        title: "Retract a decision",
        readOnly: false,
        idempotent: true,
        destructive: false,
      },
    });
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<
        string,
        Record<string, unknown>
      >;
      for (const [name, schema] of Object.entries(properties)) {
        expect(isTyped(schema), `${tool.name}.${name}: ${JSON.stringify(schema)}`).toBe(true);
      }
    }
  });

  it("asks for a namespace when get_state is given a key alone", async () => {
    await alice.call("put_state", { namespace: "plan", key: "region", value: "eu" });
    const result = await eventually(
      () => bob.client.callTool({ name: "get_state", arguments: { key: "region" } }),
      (read) => expect(textOf(read)).toContain('"plan"'),
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('"key" needs a "namespace"');
    expect(textOf(result)).toContain('"region" is a field of: "plan"');
  });

  it("pushes a state dispute raised by another process, lists it in the resource, and keeps its resolution final", async () => {
    const logged: Array<Record<string, unknown>> = [];
    const updated: string[] = [];
    const pushed = deferred();
    bob.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      const data = notification.params.data as Record<string, unknown>;
      if (typeof data.escalationId !== "string") return;
      logged.push(data);
      pushed.resolve();
    });
    bob.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri);
    });
    await bob.client.subscribeResource({ uri });

    // Two writers in this test process, neither having seen the other: a dispute bob never took
    // part in, raised in another process than his.
    const store = new EmbeddedStore({ path: dbPath });
    const carol = await SharedState.open({
      store,
      subjectId: "repo",
      agentId: "carol",
      live: false,
    });
    const dave = await SharedState.open({ store, subjectId: "repo", agentId: "dave", live: false });
    try {
      await Promise.all([
        carol.put("deploy", "window", "monday"),
        dave.put("deploy", "window", "friday"),
      ]);
    } finally {
      await carol.close();
      await dave.close();
      await store.close();
    }

    // No request of bob's in between: his replica follows the store and pushes on its own.
    await pushed.promise;
    const [first] = logged;
    expect(first?.message).toMatch(
      /^deploy\/window is disputed \(concurrent-register\) between (carol and dave|dave and carol)/,
    );
    expect(updated).toContain(uri);
    const escalationId = String(first?.escalationId);

    const resource = await bob.client.readResource({ uri });
    const listed = JSON.parse(String((resource.contents[0] as { text: string }).text)) as {
      disputes: Array<{ id: string }>;
    };
    expect(listed.disputes.map((dispute) => dispute.id)).toContain(escalationId);

    const resolved = await bob.call("resolve_escalation", { escalationId, value: "tuesday" });
    expect(resolved).toMatchObject({ resolution: { value: "tuesday", by: "bob" } });
    const second = await eventually(
      () =>
        alice.client.callTool({
          name: "resolve_escalation",
          arguments: { escalationId, value: "sunday" },
        }),
      (result) => expect(textOf(result)).toContain("already resolved"),
    );
    expect(second.isError).toBe(true);
    expect(textOf(second)).toContain(`${escalationId} was already resolved by bob`);
    expect(textOf(second)).toContain('"tuesday"');
    // The state agrees with the record: everyone reads the first resolution.
    const read = await alice.call("get_state", { namespace: "deploy", key: "window" });
    expect(read.value).toBe("tuesday");
  });

  it("says how to settle an unknown escalation id", async () => {
    const result = await alice.client.callTool({
      name: "resolve_escalation",
      arguments: { escalationId: "nope", value: 1 },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("no escalation nope on this subject");
  });
});
