import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { geminiCliOutput } from "../../src/hooks/gemini-cli-output.js";
import { useTempDir } from "../support/temp-dir.js";
import { makeRepository, recordDecision, runHookCli } from "./hook-harness.js";

/**
 * Hook inputs recorded from the real Gemini CLI 0.61.0 (a copy of
 * ../shared/fixtures/gemini-cli-0.61.0/, kept in the repo), replayed through `shared-ctx hook`
 * with `/home/alice/acme` moved to a fresh repository where legacy-billing is retired.
 */
const fixture = readFileSync(
  join(import.meta.dirname, "fixtures/gemini-cli-0.61.0/hook-inputs.jsonl"),
  "utf8",
);

/** The recorded events, in order, with the repository's path rewritten to `root`. */
function recordedInputs(root: string): Record<string, unknown>[] {
  return fixture
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line.replaceAll("/home/alice/acme", root)));
}

/** The hook subcommand `init gemini-cli` runs for each Gemini event. */
const subcommands: Record<string, string> = {
  SessionStart: "session-start",
  BeforeTool: "pre-tool-use",
  AfterTool: "post-tool-use",
  SessionEnd: "session-start",
};

describe("Gemini CLI 0.61.0's recorded hook inputs, answered in its own format", () => {
  const tempDir = useTempDir("shared-ctx-gemini-");

  async function retiredRepository(config?: unknown) {
    const root = join(tempDir(), "acme");
    mkdirSync(root);
    makeRepository(root, ["src/legacy-billing/index.ts", "src/payments/index.ts"], config);
    const db = join(root, ".shared-ctx", "store.db");
    await recordDecision(db, {
      author: "session-a",
      content: "Retire legacy-billing: invoices move to the ledger",
      target: "legacy-billing",
    });
    const hook = (
      payload: Record<string, unknown>,
      flags: string[] = ["--harness", "gemini-cli"],
    ) =>
      runHookCli(
        [
          "hook",
          subcommands[String(payload.hook_event_name)] ?? "pre-tool-use",
          "--root",
          root,
          "--db",
          db,
          "--subject",
          "acme",
          ...flags,
        ],
        { stdin: JSON.stringify(payload) },
      );
    return { root, hook };
  }

  it("refuses the three recorded edits of the retired module with a top-level decision, and lets the others through", async () => {
    const { root, hook } = await retiredRepository();
    const inputs = recordedInputs(root);
    const runs = [];
    for (const input of inputs) runs.push({ input, run: await hook(input) });
    for (const { run } of runs) {
      expect(run.stderr).toBe("");
      expect(run.exitCode).toBe(0);
    }
    const [start, write, replace, sed, payWrite, payWritten, payReplace, payReplaced] = runs;
    // SessionStart: the decision reaches the model as additionalContext (Gemini reads it there).
    expect(start?.run.output.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect(start?.run.output.hookSpecificOutput.additionalContext).toContain(
      "Retire legacy-billing: invoices move to the ledger",
    );
    // write_file with a relative file_path, replace with an absolute one, sed in a shell command.
    for (const refused of [write, replace, sed]) {
      const output = refused?.run.output;
      expect(output.decision).toBe("deny");
      expect(output.reason).toContain(
        "src/legacy-billing/index.ts belongs to module legacy-billing",
      );
      expect(output.reason).toContain('session-a decided "Retire legacy-billing');
      // Claude Code's shape is ignored by Gemini CLI: never sent to it.
      expect(output.hookSpecificOutput).toBeUndefined();
    }
    for (const allowed of [payWrite, payWritten, payReplace, payReplaced, ...runs.slice(8)]) {
      expect(allowed?.run.stdout).toBe("");
    }
  });

  it("records Gemini's AfterTool edits as the session's claim: another session is then refused", async () => {
    const { root, hook } = await retiredRepository();
    const inputs = recordedInputs(root);
    const written = inputs.find(
      (input) => input.hook_event_name === "AfterTool" && input.tool_name === "replace",
    );
    expect(written).toBeDefined();
    await hook(written ?? {});
    const other = {
      ...inputs[4],
      session_id: "another-gemini-session",
      tool_input: { file_path: "src/payments/index.ts", content: "x" },
    };
    const run = await hook(other);
    expect(run.output.decision).toBe("deny");
    expect(run.output.reason).toContain("a67aba63-2b56-4688-bfdc-254fe70bb3e1");
  });

  it("reads BeforeTool as Gemini's without --harness, and answers SessionEnd with nothing", async () => {
    const { root, hook } = await retiredRepository();
    const inputs = recordedInputs(root);
    const refused = await hook(inputs[1] ?? {}, []);
    expect(refused.output.decision).toBe("deny");
    const end = inputs.find((input) => input.hook_event_name === "SessionEnd");
    const ended = await hook(end ?? {}, []);
    expect(ended.exitCode).toBe(0);
    expect(ended.stdout).toBe("");
  });

  it("resolves a shell command's relative paths in its dir_path", async () => {
    const { root, hook } = await retiredRepository();
    const sed = recordedInputs(root)[3] ?? {};
    const inFolder = {
      ...sed,
      tool_input: { command: "sed -i 's/1/2/' index.ts", dir_path: "src/legacy-billing" },
    };
    expect((await hook(inFolder)).output.decision).toBe("deny");
    const elsewhere = {
      ...sed,
      tool_input: { command: "sed -i 's/1/2/' index.ts", dir_path: "src/payments" },
    };
    expect((await hook(elsewhere)).stdout).toBe("");
  });

  it('turns hooks.onConflict "ask" into a deny that says why (an ask hangs a headless session)', async () => {
    const { root, hook } = await retiredRepository({ hooks: { onConflict: "ask" } });
    const run = await hook(recordedInputs(root)[1] ?? {});
    expect(run.output.decision).toBe("deny");
    expect(run.output.reason).toContain("belongs to module legacy-billing");
    expect(run.output.reason).toContain('hooks.onConflict = "ask"');
    expect(JSON.stringify(run.output)).not.toContain('"ask"');
  });

  it("warns the person when the store is down and lets the edit through (whenStoreDown allow)", async () => {
    const { root } = await retiredRepository();
    const input = recordedInputs(root)[1] ?? {};
    const run = await runHookCli(
      [
        "hook",
        "pre-tool-use",
        "--harness",
        "gemini-cli",
        "--root",
        root,
        "--store",
        "statewave",
        "--url",
        "http://127.0.0.1:9",
      ],
      { stdin: JSON.stringify(input) },
    );
    expect(run.exitCode).toBe(0);
    expect(run.output.decision).toBeUndefined();
    expect(run.output.systemMessage).toContain("the shared context store is unreachable");
  });
});

describe("geminiCliOutput", () => {
  it("puts a pre-edit note (BeforeTool has no additionalContext) and a warning in systemMessage", () => {
    expect(geminiCliOutput("PreToolUse", { context: "unread decision" })).toEqual({
      systemMessage: "unread decision",
    });
    expect(geminiCliOutput("PostToolUse", { context: "concurrent" })).toEqual({
      hookSpecificOutput: { hookEventName: "AfterTool", additionalContext: "concurrent" },
    });
    expect(geminiCliOutput("PreToolUse", {})).toBeUndefined();
  });
});
