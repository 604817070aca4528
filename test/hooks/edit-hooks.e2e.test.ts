import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { editsSubjectOf, readEditActivity } from "../../src/hooks/edit-activity.js";
import { readSharedState } from "../../src/ui/data/read-shared-state.js";
import { connectMcpAgent, type McpAgent } from "../integrations/mcp-client.js";
import { closedPort } from "../support/closed-port.js";
import { useTempDir } from "../support/temp-dir.js";
import { editPayload, makeRepository, runHookCli, toolPayload } from "./hook-harness.js";

const subject = "acme-repo";

// One story told in order (A publishes, B is refused, a person settles, …): never shuffled.
describe("Claude Code hooks over the shared context (session A through MCP, sessions B… through hooks)", {
  shuffle: false,
}, () => {
  let root: string;
  let db: string;
  let sessionA: McpAgent;
  let lead: McpAgent;
  const flags = () => ["--root", root, "--db", db, "--subject", subject];
  const hook = (name: string, payload: unknown, extra: string[] = []) =>
    runHookCli(["hook", name, ...flags(), ...extra], { stdin: JSON.stringify(payload) });

  beforeAll(async () => {
    // useTempDir cleans after each test; this folder lives for the whole describe.
    root = makeRepository(mkdtempSync(join(tmpdir(), "shared-ctx-hooks-repo-")), [
      "src/legacy-billing/invoice.ts",
      "src/billing-v2/invoice.ts",
      "src/orders/order.ts",
    ]);
    db = join(root, ".shared-ctx", "store.db");
    // The MCP servers open the store first (it creates the file).
    sessionA = await connectMcpAgent({ subjectId: subject, agentId: "session-a", dbPath: db });
    lead = await connectMcpAgent({ subjectId: subject, agentId: "lead", dbPath: db });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([sessionA?.close(), lead?.close()]);
    rmSync(root, { recursive: true, force: true });
  });

  it("lets session B edit a module nobody has decided anything about, saying nothing", async () => {
    const run = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-b", root, "src/legacy-billing/invoice.ts"),
    );
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    // No output: the person's own permission rules apply as usual (never a blanket "allow").
    expect(run.output).toBeUndefined();
  });

  it("denies B's Edit under a module A retired through MCP, naming A's decision, its author and when", async () => {
    const published = await sessionA.call("publish_decision", {
      content: "Retire legacy-billing: invoices move to billing-v2",
      target: "legacy-billing",
    });
    const decisionId = (published.memories as Array<{ id: string }>)[0]?.id;
    expect(decisionId).toBeTruthy();
    const run = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-b", root, "src/legacy-billing/invoice.ts"),
    );
    expect(run.exitCode).toBe(0);
    const output = run.output.hookSpecificOutput;
    expect(output.hookEventName).toBe("PreToolUse");
    expect(output.permissionDecision).toBe("deny");
    const reason: string = output.permissionDecisionReason;
    expect(reason).toContain("src/legacy-billing/invoice.ts belongs to module legacy-billing");
    expect(reason).toContain(
      'session-a decided "Retire legacy-billing: invoices move to billing-v2"',
    );
    expect(reason).toContain(`decision ${decisionId}`);
    expect(reason).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(reason).toContain("Instead: do not build on legacy-billing");
  });

  it("still lets B edit another module without a word", async () => {
    const run = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-b", root, "src/orders/order.ts"),
    );
    expect(run.output).toBeUndefined();
  });

  it("allows the same edit after a person publishes a keep (having read A's decision)", async () => {
    await lead.call("check_shared_decisions", { task: "legacy-billing" });
    await lead.call("publish_decision", {
      content: "Keep legacy-billing: EU invoices still go through it until March",
      target: "legacy-billing",
    });
    const run = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-b", root, "src/legacy-billing/invoice.ts"),
    );
    expect(run.output.hookSpecificOutput.permissionDecision).toBeUndefined();
    // Allowed, with the decision about the module B had not been shown.
    expect(run.output.hookSpecificOutput.additionalContext).toContain("lead (");
    expect(run.output.hookSpecificOutput.additionalContext).toContain("Keep legacy-billing");
  });

  it("after B's edit is recorded, shows B the decisions published since, not the old ones again", async () => {
    const post = await hook(
      "post-tool-use",
      editPayload("PostToolUse", "session-b", root, "src/legacy-billing/invoice.ts"),
    );
    expect(post.output).toBeUndefined();
    const again = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-b", root, "src/legacy-billing/invoice.ts"),
    );
    expect(again.output).toBeUndefined();
  });

  it("denies session C while B holds the module, naming B's claim", async () => {
    const run = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-c", root, "src/legacy-billing/invoice.ts"),
    );
    expect(run.output.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(run.output.hookSpecificOutput.permissionDecisionReason).toContain(
      "Claimed: session session-b is working on legacy-billing (session-b edited src/legacy-billing/invoice.ts (Edit)",
    );
  });

  it("raises one escalation when two sessions edit one module concurrently", async () => {
    // D and E both passed pre-tool-use before either edit was recorded (the race the claim cannot
    // close); their post-tool-use hooks then find each other's live claim.
    const d = editPayload("PostToolUse", "session-d", root, "src/orders/order.ts");
    const e = editPayload("PostToolUse", "session-e", root, "src/orders/order.ts");
    expect((await hook("post-tool-use", d)).output).toBeUndefined();
    const second = await hook("post-tool-use", e);
    expect(second.output.hookSpecificOutput.additionalContext).toContain(
      "session session-d edited module orders too",
    );
    // More edits by either side do not raise it again.
    await hook("post-tool-use", d);
    await hook("post-tool-use", e);
    const store = new EmbeddedStore({ path: db });
    try {
      const state = await readSharedState(store, subject);
      const open = state.escalations.filter(
        (escalation) => escalation.key === "orders" && escalation.resolution === undefined,
      );
      expect(open).toHaveLength(1);
      expect(open[0]?.namespace).toBe("modules");
      expect(open[0]?.contenders.map((contender) => contender.agentId).sort()).toEqual([
        "session-d",
        "session-e",
      ]);
    } finally {
      await store.close();
    }
    // The sessions in the dispute (and anyone else) are refused until a person settles it.
    const refused = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-d", root, "src/orders/order.ts"),
    );
    expect(refused.output.hookSpecificOutput.permissionDecisionReason).toContain(
      "Disputed: modules/orders is in open dispute",
    );
  });

  it("lets the session a person settled the dispute for edit again, and keeps the other out", async () => {
    const disputes = (await lead.call("get_state", { namespace: "modules", key: "orders" })) as {
      escalations: Array<{ id: string }>;
    };
    const id = disputes.escalations[0]?.id;
    expect(id).toBeTruthy();
    await lead.call("resolve_escalation", { escalationId: id, value: "claimed-by:session-d" });
    const holder = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-d", root, "src/orders/order.ts"),
    );
    expect(holder.output?.hookSpecificOutput?.permissionDecision).toBeUndefined();
    // The other side now meets the holder's claim, not the dispute.
    const other = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-e", root, "src/orders/order.ts"),
    );
    const reason: string = other.output.hookSpecificOutput.permissionDecisionReason;
    expect(reason).toContain("Claimed: session session-d");
    expect(reason).not.toContain("Disputed");
  });

  it("records who was denied what, for watch", async () => {
    const store = new EmbeddedStore({ path: db });
    try {
      const memories = await store.searchMemories(editsSubjectOf(subject), {
        kind: "episode_summary",
        limit: 100,
      });
      const activity = readEditActivity(memories, { claimMinutes: 15 });
      expect(activity.denials.map((denial) => `${denial.agent} ${denial.module}`)).toEqual(
        expect.arrayContaining([
          "session-b legacy-billing",
          "session-c legacy-billing",
          "session-d orders",
        ]),
      );
    } finally {
      await store.close();
    }
  });

  it("gives a new session the active decisions and open disputes at its start", async () => {
    const run = await hook("session-start", {
      session_id: "session-f",
      transcript_path: join(root, "f.jsonl"),
      cwd: root,
      hook_event_name: "SessionStart",
      source: "startup",
    });
    const context: string = run.output.hookSpecificOutput.additionalContext;
    expect(run.output.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect(context).toContain("Keep legacy-billing");
    expect(context).toContain("lead");
  });
});

describe("a store that is down", () => {
  const tempDir = useTempDir("shared-ctx-hooks-down-");

  /** The pre-tool-use hook of `root` on `payload`, its Statewave URL a port nobody listens on. */
  async function preToolUseWithStoreDown(root: string, payload: unknown) {
    const port = await closedPort();
    return runHookCli(
      [
        "hook",
        "pre-tool-use",
        "--root",
        root,
        "--store",
        "statewave",
        "--url",
        `http://127.0.0.1:${port}`,
      ],
      { stdin: JSON.stringify(payload) },
    );
  }

  it("answers a Bash command that writes no file without asking the store", async () => {
    const root = makeRepository(tempDir(), ["src/billing/a.ts"], {
      hooks: { whenStoreDown: "deny" },
    });
    const run = await preToolUseWithStoreDown(
      root,
      toolPayload("PreToolUse", "s1", root, "Bash", { command: "ls src && npm test" }),
    );
    expect(run).toMatchObject({ exitCode: 0, stdout: "", stderr: "" });
  });

  it.each([
    ["allow", undefined],
    ["deny", "deny"],
  ] as const)(
    "whenStoreDown %s: never a silent pass",
    async (whenStoreDown, decision) => {
      const root = makeRepository(tempDir(), ["src/billing/a.ts"], {
        hooks: { whenStoreDown, timeoutMs: 3000 },
      });
      const run = await preToolUseWithStoreDown(
        root,
        editPayload("PreToolUse", "s1", root, "src/billing/a.ts"),
      );
      expect(run.exitCode).toBe(0);
      const output = run.output;
      expect(output.hookSpecificOutput.permissionDecision).toBe(decision);
      if (decision === "deny") {
        expect(output.hookSpecificOutput.permissionDecisionReason).toContain("unreachable");
        expect(output.hookSpecificOutput.permissionDecisionReason).toContain(
          'hooks.whenStoreDown = "deny"',
        );
      } else {
        // Seen by the person (systemMessage) and by the agent (additionalContext).
        expect(output.systemMessage).toContain("this edit was NOT checked");
        expect(output.hookSpecificOutput.additionalContext).toContain("unreachable");
      }
    },
    30_000,
  );
});
