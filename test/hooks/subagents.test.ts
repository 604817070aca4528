import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { sameLine } from "../../src/hooks/edit-policy.js";
import { hookAgentId, parseHookInput } from "../../src/hooks/hook-input.js";
import { readSharedState } from "../../src/ui/data/read-shared-state.js";
import { useTempDir } from "../support/temp-dir.js";
import { editPayload, makeRepository, runHookCli } from "./hook-harness.js";

/**
 * Claude Code gives a subagent its parent's `session_id` and adds `agent_id` (and `agent_type`)
 * to the hook input only inside the subagent (hooks reference, common input fields).
 */
function inSubagent(payload: Record<string, unknown>, agentId: string): Record<string, unknown> {
  return { ...payload, agent_id: agentId, agent_type: "general-purpose" };
}

describe("hookAgentId", () => {
  const input = (fields: Record<string, unknown>) =>
    parseHookInput(JSON.stringify({ tool_input: {}, ...fields }));

  it("is the session id on the main thread, and session/agent_id inside a subagent", () => {
    expect(hookAgentId(input({ session_id: "s1" }), undefined, undefined)).toBe("s1");
    expect(hookAgentId(input({ session_id: "s1", agent_id: "a7" }), undefined, undefined)).toBe(
      "s1/a7",
    );
  });

  it("puts $SHARED_CTX_AGENT before the session, and --agent before everything", () => {
    const sub = input({ session_id: "s1", agent_id: "a7" });
    expect(hookAgentId(sub, undefined, "alice")).toBe("alice/a7");
    expect(hookAgentId(sub, "ci", "alice")).toBe("ci");
  });

  it("is empty when nothing names the agent", () => {
    expect(hookAgentId(input({}), undefined, undefined)).toBe("");
  });

  it("refuses an agent_id that is not a string, naming the field", () => {
    expect(() => input({ session_id: "s1", agent_id: 7 })).toThrow(/agent_id/);
  });
});

describe("sameLine", () => {
  it.each([
    ["s1", "s1", true],
    ["s1", "s1/a", true],
    ["s1/a", "s1", true],
    ["s1/a", "s1/a/b", true],
    ["s1/a", "s1/b", false],
    ["s1", "s10", false],
    ["s1", "s2/s1", false],
  ])("%s and %s: %s", (a, b, same) => {
    expect(sameLine(a, b)).toBe(same);
  });
});

describe("Claude Code subagents through the hooks", () => {
  const tempDir = useTempDir("shared-ctx-subagents-");

  function setUp() {
    const root = makeRepository(tempDir(), ["src/orders/order.ts", "src/billing/invoice.ts"]);
    const db = join(root, ".shared-ctx", "store.db");
    const hook = (name: string, payload: unknown) =>
      runHookCli(["hook", name, "--root", root, "--db", db, "--subject", "acme"], {
        stdin: JSON.stringify(payload),
      });
    return { root, db, hook };
  }

  it("lets a subagent go on with the module its own session holds", async () => {
    const { root, hook } = setUp();
    await hook("post-tool-use", editPayload("PostToolUse", "s1", root, "src/orders/order.ts"));
    const sub = await hook(
      "pre-tool-use",
      inSubagent(editPayload("PreToolUse", "s1", root, "src/orders/order.ts"), "a1"),
    );
    expect(sub.stderr).toBe("");
    expect(sub.output?.hookSpecificOutput?.permissionDecision).toBeUndefined();
    // Another session is still kept out.
    const other = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "s2", root, "src/orders/order.ts"),
    );
    expect(other.output.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(other.output.hookSpecificOutput.permissionDecisionReason).toContain("session s1");
  });

  it("keeps one subagent out of a module a sibling holds, naming it", async () => {
    const { root, hook } = setUp();
    await hook(
      "post-tool-use",
      inSubagent(editPayload("PostToolUse", "s1", root, "src/billing/invoice.ts"), "a1"),
    );
    const sibling = await hook(
      "pre-tool-use",
      inSubagent(editPayload("PreToolUse", "s1", root, "src/billing/invoice.ts"), "a2"),
    );
    expect(sibling.output.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(sibling.output.hookSpecificOutput.permissionDecisionReason).toContain("session s1/a1");
  });

  it("raises one escalation when two subagents of one session edit a module concurrently", async () => {
    const { root, db, hook } = setUp();
    const first = inSubagent(
      editPayload("PostToolUse", "s1", root, "src/billing/invoice.ts"),
      "a1",
    );
    const second = inSubagent(
      editPayload("PostToolUse", "s1", root, "src/billing/invoice.ts"),
      "a2",
    );
    await hook("post-tool-use", first);
    const run = await hook("post-tool-use", second);
    expect(run.output.hookSpecificOutput.additionalContext).toContain(
      "session s1/a1 edited module billing too",
    );
    const store = new EmbeddedStore({ path: db });
    try {
      const state = await readSharedState(store, "acme");
      const open = state.escalations.filter((escalation) => escalation.key === "billing");
      expect(open).toHaveLength(1);
      expect(open[0]?.contenders.map((contender) => contender.agentId).sort()).toEqual([
        "s1/a1",
        "s1/a2",
      ]);
    } finally {
      await store.close();
    }
  });
});
