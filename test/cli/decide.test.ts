import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { editPayload, makeRepository, runHookCli } from "../hooks/hook-harness.js";
import { useTempDir } from "../support/temp-dir.js";
import { runWholeCli } from "./cli-harness.js";

/**
 * A person's decisions from the CLI (`decide`, `retract`, `decisions`) on the store the hooks use,
 * the embedded store of the repository and a store behind `shared-ctx serve` alike.
 */
describe("shared-ctx decide, retract and decisions", () => {
  const tempDir = useTempDir("shared-ctx-decide-");
  let serverDir = "";
  let served: EmbeddedStore;
  let server: RunningServer;

  beforeAll(async () => {
    serverDir = mkdtempSync(join(tmpdir(), "shared-ctx-decide-served-"));
    served = new EmbeddedStore({ path: join(serverDir, "served.db") });
    server = await startServer({ store: served, port: 0 });
  });

  afterAll(async () => {
    await server?.close();
    await served?.close();
    rmSync(serverDir, { recursive: true, force: true });
  });

  const backends = [
    ["the repository's embedded store", () => [] as string[]],
    ["a store behind serve", () => ["--store", "statewave", "--url", server.url]],
  ] as const;

  describe.each(backends)("on %s", (_name, storeFlags) => {
    function repository() {
      const root = makeRepository(tempDir(), ["src/legacy-billing/a.ts", "src/invoices/b.ts"]);
      // Each repository its own subject: the served store is shared by every test.
      const subject = `acme-${root.slice(-6)}`;
      const cli = (...argv: string[]) =>
        runWholeCli([...argv, "--subject", subject, ...storeFlags()], {
          cwd: join(root, "src"),
          env: { USER: "alice" },
        });
      const preEdit = (session: string) =>
        runHookCli(["hook", "pre-tool-use", "--subject", subject, ...storeFlags()], {
          stdin: JSON.stringify(
            editPayload("PreToolUse", session, root, "src/legacy-billing/a.ts"),
          ),
          env: { CLAUDE_PROJECT_DIR: root },
        });
      return { root, cli, preEdit };
    }

    it("a person's replace refuses other sessions' edits, pointing at the replacement; an agent's keep does not lift it; retract does", async () => {
      const { cli, preEdit } = repository();
      const decided = await cli(
        "decide",
        "Retire legacy-billing: invoices replaces it",
        "--target",
        "legacy-billing",
        "--effect",
        "replace",
        "--replacement",
        "invoices",
        "--json",
      );
      expect(decided.stderr).toBe("");
      expect(decided.exitCode).toBe(0);
      const decision = JSON.parse(decided.stdout).decision;
      expect(decision).toMatchObject({
        author: "alice",
        authority: "user",
        effect: "replace",
        replacement: "invoices",
        target: "legacy-billing",
      });
      const refused = (await preEdit("session-b")).output?.hookSpecificOutput;
      expect(refused?.permissionDecision).toBe("deny");
      expect(refused?.permissionDecisionReason).toContain("alice (a person) decided");
      expect(refused?.permissionDecisionReason).toContain("put the work in invoices");

      // An agent's newer keep on the same target stays a dispute the person's decision wins.
      const agentKeep = await cli(
        "decide",
        "Keep legacy-billing",
        "--target",
        "legacy-billing",
        "--effect",
        "keep",
        "--authority",
        "agent",
        "--as",
        "session-x",
      );
      expect(agentKeep.stdout).toContain(`disputed with ${decision.id}`);
      expect((await preEdit("session-b")).output?.hookSpecificOutput?.permissionDecision).toBe(
        "deny",
      );

      const listed = await cli("decisions", "--module", "legacy-billing", "--json");
      const document = JSON.parse(listed.stdout);
      expect(document.decisions.map((entry: { author: string }) => entry.author)).toEqual([
        "session-x",
        "alice",
      ]);
      expect(document.edits).toEqual({ decision: "deny", conflicts: ["retired"] });

      // An agent cannot take a person's decision back; the person can, by a prefix of its id.
      const agentRetract = await cli("retract", decision.id.slice(0, 8), "--authority", "agent");
      expect(agentRetract.exitCode).toBe(2);
      expect(agentRetract.stderr).toContain("--authority");
      const retracted = await cli("retract", decision.id.slice(0, 8), "--reason", "not yet");
      expect(retracted.exitCode).toBe(0);
      expect(retracted.stdout).toContain(`Retracted ${decision.id}`);
      expect(
        (await preEdit("session-b")).output?.hookSpecificOutput?.permissionDecision,
      ).toBeUndefined();
    });

    it("a freeze refuses every session until a keep lifts it", async () => {
      const { cli, preEdit } = repository();
      await cli(
        "decide",
        "Hold billing for the audit",
        "--target",
        "legacy-billing",
        "--effect",
        "freeze",
      );
      expect(
        (await preEdit("session-b")).output?.hookSpecificOutput?.permissionDecisionReason,
      ).toContain("Frozen: alice (a person) decided");
      await cli("decide", "Audit done", "--target", "legacy-billing", "--effect", "keep");
      const allowed = (await preEdit("session-b")).output?.hookSpecificOutput;
      expect(allowed?.permissionDecision).toBeUndefined();
      expect(allowed?.additionalContext).toContain("alice (2026");
      const plain = await cli("decisions");
      expect(plain.stdout).toContain("alice (user)  [keep legacy-billing]  Audit done");
      expect(plain.stdout).not.toContain("Hold billing");
    });
  });

  it.each([
    [["decide", "x", "--target", "a"], "--effect"],
    [["decide", "x", "--effect", "retire"], "--target"],
    [["decide", "x", "--target", "a", "--effect", "replace"], "--replacement"],
    [["decide", "x", "--target", "a", "--effect", "keep", "--replacement", "b"], "--replacement"],
    [["decide", "x", "--target", "a", "--effect", "erase"], "--effect"],
    [["decide", "x", "--target", "a", "--effect", "keep", "--authority", "boss"], "--authority"],
    [["retract", "nope"], 'ID "nope"'],
  ])("shared-ctx %j exits 2 naming %s", async (argv, flag) => {
    const root = makeRepository(tempDir(), ["src/a/a.ts"]);
    const run = await runWholeCli(argv, { cwd: root, env: {} });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(flag);
  });
});
