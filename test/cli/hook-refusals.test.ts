import { symlinkSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { editsSubjectOf, readEditActivity } from "../../src/hooks/edit-activity.js";
import { type Backend, backends, decide, type Gate, gate } from "../hooks/hook-backends.js";
import { editPayload, makeRepository, runHookCli, toolPayload } from "../hooks/hook-harness.js";
import { useTempDir } from "../support/temp-dir.js";

/**
 * A refusal stays a refusal (issue 37): the cases where a refused edit used to slip through as
 * "store unreachable … NOT checked", on the embedded store and through `serve`.
 */

const files = ["src/legacy-billing/invoice.ts", "src/orders/order.ts"];
const retire = {
  author: "session-a",
  content: "Retire legacy-billing: invoices move to billing-v2",
  target: "legacy-billing",
};

describe.each(Object.keys(backends) as Array<keyof typeof backends>)("on the %s store", (kind) => {
  const tempDir = useTempDir("shared-ctx-refusals-");
  const open: Backend[] = [];
  afterEach(async () => {
    for (const backend of open.splice(0)) await backend.close();
  });

  async function setUp(config: unknown = {}, writes?: Gate) {
    const root = makeRepository(tempDir(), files, config);
    const backend = await backends[kind](root, writes);
    open.push(backend);
    await decide(backend.store, retire);
    const hook = (name: string, payload: unknown) =>
      runHookCli(["hook", name, "--root", root, "--subject", "acme", ...backend.flags], {
        stdin: JSON.stringify(payload),
      });
    return { root, backend, hook };
  }

  it("still refuses an edit when recording the refusal is held up past the budget, saying so on stderr", async () => {
    const writes = gate();
    const { root, hook, backend } = await setUp({ hooks: { timeoutMs: 800 } }, writes);
    const backendFlags = () => backend.flags;
    // Another writer holds the store's write lock (a long compile), as a second process would.
    const locker =
      kind === "embedded" ? new Database(join(root, ".shared-ctx", "store.db")) : undefined;
    locker?.prepare("BEGIN IMMEDIATE").run();
    try {
      const run = await hook(
        "pre-tool-use",
        editPayload("PreToolUse", "session-b", root, "src/legacy-billing/invoice.ts"),
      );
      expect(run.exitCode).toBe(0);
      expect(run.output.hookSpecificOutput.permissionDecision).toBe("deny");
      expect(run.output.hookSpecificOutput.permissionDecisionReason).toContain(
        "Retired: session-a decided",
      );
      expect(run.output.systemMessage).toBeUndefined();
      expect(run.stderr).toMatch(
        /^shared-ctx: hook pre-tool-use: the verdict was answered, but recording it failed: the store is unreachable \(.+\); watch will not list it\n$/,
      );
      // `shared-ctx check` alike: exit 3, the JSON verdict, the record's failure on stderr.
      const check = await runHookCli([
        "check",
        ...["--root", root, "--subject", "acme", ...backendFlags()],
        ...["--agent", "session-b", "--path", join(root, "src/legacy-billing/invoice.ts")],
      ]);
      expect(check.exitCode).toBe(3);
      expect(check.output.decision).toBe("deny");
      expect(check.stderr).toContain(
        "shared-ctx: check: the verdict stands, but recording it failed",
      );
    } finally {
      locker?.prepare("ROLLBACK").run();
      locker?.close();
    }
    writes.open();
  });

  it("gives a starting session the decisions while its record is held up past the budget", async () => {
    const writes = gate();
    const { root, hook } = await setUp({ hooks: { timeoutMs: 800 } }, writes);
    const locker =
      kind === "embedded" ? new Database(join(root, ".shared-ctx", "store.db")) : undefined;
    locker?.prepare("BEGIN IMMEDIATE").run();
    try {
      const run = await hook("session-start", {
        session_id: "session-f",
        cwd: root,
        hook_event_name: "SessionStart",
        source: "startup",
      });
      expect(run.output.hookSpecificOutput.additionalContext).toContain(
        "Retire legacy-billing: invoices move to billing-v2",
      );
      expect(run.output.systemMessage).toBeUndefined();
      expect(run.stderr).toContain(
        "shared-ctx: hook session-start: the verdict was answered, but recording it failed",
      );
    } finally {
      locker?.prepare("ROLLBACK").run();
      locker?.close();
      writes.open();
    }
  });

  it("refuses an edit through a symlink into a retired module, a file or a folder, new files too", async () => {
    const { root, hook } = await setUp();
    symlinkSync("../legacy-billing/invoice.ts", join(root, "src/orders/link.ts"));
    symlinkSync("legacy-billing", join(root, "src/alias"));
    for (const file of ["src/orders/link.ts", "src/alias/invoice.ts", "src/alias/new/vat.ts"]) {
      const run = await hook(
        "pre-tool-use",
        toolPayload("PreToolUse", "session-b", root, "Write", {
          file_path: join(root, file),
          content: "export {};",
        }),
      );
      expect(run.output?.hookSpecificOutput?.permissionDecision, file).toBe("deny");
      expect(run.output.hookSpecificOutput.permissionDecisionReason).toContain(
        "src/legacy-billing/",
      );
    }
  });

  it("refuses an edit of a project reached through a symlinked root, however each path names it", async () => {
    const { root, backend } = await setUp();
    const link = join(tempDir(), "acme-link");
    symlinkSync(root, link);
    const cases = [
      { root: link, file: join(root, "src/legacy-billing/invoice.ts"), cwd: root },
      { root, file: join(link, "src/legacy-billing/invoice.ts"), cwd: link },
      { root: link, file: join(link, "src/legacy-billing/invoice.ts"), cwd: link },
    ];
    for (const each of cases) {
      const run = await runHookCli(
        ["hook", "pre-tool-use", "--root", each.root, "--subject", "acme", ...backend.flags],
        {
          stdin: JSON.stringify({
            ...toolPayload("PreToolUse", "session-b", each.cwd, "Edit", {
              file_path: each.file,
              old_string: "export {}",
              new_string: "export const vat = 1;",
            }),
          }),
        },
      );
      expect(run.output?.hookSpecificOutput?.permissionDecision, JSON.stringify(each)).toBe("deny");
    }
    // A relative path in a Bash command, from a cwd that is the link.
    const bash = await runHookCli(
      ["hook", "pre-tool-use", "--root", root, "--subject", "acme", ...backend.flags],
      {
        stdin: JSON.stringify(
          toolPayload("PreToolUse", "session-b", link, "Bash", {
            command: "sed -i s/a/b/ src/legacy-billing/invoice.ts",
          }),
        ),
      },
    );
    expect(bash.output?.hookSpecificOutput?.permissionDecision).toBe("deny");
  });

  it("judges a Write of 20 MiB by its path: refused in a retired module, recorded in a free one", async () => {
    const { root, hook } = await setUp();
    const content = "export const x = 1;\n".repeat(1_100_000);
    const write = (event: "PreToolUse" | "PostToolUse", file: string) =>
      toolPayload(event, "session-b", root, "Write", { file_path: join(root, file), content });
    const refused = await hook("pre-tool-use", write("PreToolUse", "src/legacy-billing/big.ts"));
    expect(refused.exitCode).toBe(0);
    expect(refused.output.hookSpecificOutput.permissionDecision).toBe("deny");
    const recorded = await hook("post-tool-use", write("PostToolUse", "src/orders/big.ts"));
    expect(recorded.exitCode).toBe(0);
    expect(recorded.stderr).toBe("");
    const other = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-c", root, "src/orders/order.ts"),
    );
    expect(other.output.hookSpecificOutput.permissionDecisionReason).toContain(
      "session-b edited src/orders/big.ts (Write)",
    );
  });

  it("refuses the edit of a session whose id is 300 characters or holds a NUL, under a stable valid name", async () => {
    const { root, backend, hook } = await setUp();
    for (const sessionId of ["s".repeat(300), "session\u0000b"]) {
      const run = await hook(
        "pre-tool-use",
        editPayload("PreToolUse", sessionId, root, "src/legacy-billing/invoice.ts"),
      );
      expect(run.stderr).toBe("");
      expect(run.output.hookSpecificOutput.permissionDecision).toBe("deny");
    }
    // Its edits elsewhere are claims under one name, the same at every call.
    const long = "s".repeat(300);
    for (let call = 0; call < 2; call++) {
      const post = await hook(
        "post-tool-use",
        editPayload("PostToolUse", long, root, "src/orders/order.ts"),
      );
      expect(post.stderr).toBe("");
    }
    const other = await hook(
      "pre-tool-use",
      editPayload("PreToolUse", "session-c", root, "src/orders/order.ts"),
    );
    const reason: string = other.output.hookSpecificOutput.permissionDecisionReason;
    expect(reason).toMatch(/Claimed: session s{40}~[0-9a-f]{16} is working on orders/);
    const memories = await backend.store.searchMemories(editsSubjectOf("acme"), {
      kind: "episode_summary",
      limit: 100,
    });
    const claims = readEditActivity(memories, { claimMinutes: 15, now: Date.now() }).claims;
    expect(claims.map((claim) => claim.agent)).toEqual([
      `${"s".repeat(40)}~${claims[0]?.agent.slice(-16)}`,
    ]);
  });
});

describe("a --db in a folder that does not exist", () => {
  const tempDir = useTempDir("shared-ctx-refusals-");

  it.each([
    ["allow", undefined],
    ["deny", "deny"],
  ] as const)("is named, and the answer follows whenStoreDown (%s), visibly", async (_, mode) => {
    const root = makeRepository(tempDir(), files, mode ? { hooks: { whenStoreDown: mode } } : {});
    const db = join(root, "no-such-folder", "store.db");
    const run = await runHookCli(["hook", "pre-tool-use", "--root", root, "--db", db], {
      stdin: JSON.stringify(
        editPayload("PreToolUse", "session-b", root, "src/legacy-billing/invoice.ts"),
      ),
    });
    expect(run.exitCode).toBe(0);
    const said =
      mode === "deny"
        ? run.output.hookSpecificOutput.permissionDecisionReason
        : run.output.systemMessage;
    expect(said).toContain(
      `the shared context store cannot be opened (cannot use the database ${db}: ${join(root, "no-such-folder")} does not exist (--db names it`,
    );
    if (mode === "deny") expect(run.output.hookSpecificOutput.permissionDecision).toBe("deny");
    else expect(run.output.hookSpecificOutput.additionalContext).toContain("NOT checked");
    const { existsSync } = await import("node:fs");
    expect(existsSync(join(root, "no-such-folder"))).toBe(false);
  });
});
