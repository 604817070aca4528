import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePromoteCommand } from "../../src/cli/commands/promote.js";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { readWholeTimeline } from "../../src/promotion/read-decisions.js";
import { runCommand } from "../cli/cli-harness.js";
import { connectMcpAgent, type McpAgent } from "./mcp-client.js";

interface Decision {
  id: string;
  content: string;
  author: string;
}

const decisionsOf = (result: Record<string, unknown>) => result.decisions as Decision[];
const contents = (result: Record<string, unknown>) =>
  decisionsOf(result).map((decision) => decision.content);

/** The id of the memory `publish_decision` compiled. */
function memoryIdOf(published: Record<string, unknown>): string {
  const [memory] = published.memories as Decision[];
  if (!memory) throw new Error(`nothing compiled: ${JSON.stringify(published)}`);
  return memory.id;
}

describe("two MCP sessions on two days promote into one project subject", {
  shuffle: false,
}, () => {
  // One folder for the whole story (a per-test one would be gone by Tuesday).
  const folder = mkdtempSync(join(tmpdir(), "shared-ctx-mcp-promotion-"));
  const dbPath = join(folder, "store.db");
  let alice: McpAgent;
  const open: McpAgent[] = [];

  const session = async (subjectId: string, agentId: string, args: string[] = []) => {
    const agent = await connectMcpAgent({ subjectId, agentId, dbPath, args });
    open.push(agent);
    return agent;
  };
  const promote = (...args: string[]) =>
    runCommand(makePromoteCommand, ["promote", ...args, "--db", dbPath], { env: { USER: "dana" } });

  beforeAll(async () => {
    // A teammate who works on the project subject itself.
    alice = await session("my-repo", "alice");
    await alice.call("publish_decision", { content: "Use npm", target: "package-manager" });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(open.map((agent) => agent.close()));
    rmSync(folder, { recursive: true, force: true });
  });

  const ids: Record<string, string> = {};

  it("Monday: the session reads the project, decides, and a person reviews the promotion", async () => {
    const monday = await session("monday", "claude", ["--project", "my-repo"]);
    const read = await monday.call("check_shared_decisions", { task: "set up the build" });
    expect(contents(read)).toStrictEqual(["Use npm"]);
    // Meanwhile, on the project: a decision Monday's session never reads.
    await alice.call("publish_decision", { content: "Build cache in S3", target: "build-cache" });
    ids.pnpm = memoryIdOf(
      await monday.call("publish_decision", {
        content: "Use pnpm workspaces",
        target: "package-manager",
      }),
    );
    ids.turbo = memoryIdOf(
      await monday.call("publish_decision", {
        content: "Cache builds in .turbo",
        target: "build-cache",
      }),
    );
    ids.strict = memoryIdOf(
      await monday.call("publish_decision", {
        content: "Turn TypeScript strict mode off",
        target: "ts-strict",
      }),
    );

    const plan = await promote("monday", "--into", "my-repo", "--dry-run");
    expect(plan.exitCode).toBe(ExitCode.promotionHeld);
    expect(plan.stdout).toContain(`supersedes ${ids.pnpm}  on package-manager`);
    expect(plan.stdout).toContain(`conflict   ${ids.turbo}  on build-cache`);
    expect(plan.stdout).toContain(`new        ${ids.strict}  on ts-strict`);
    expect(plan.stdout).toMatch(/alice \(agent\): "Build cache in S3" \(claude never read it\)/);

    const applied = await promote(
      "monday",
      "--into",
      "my-repo",
      "--approve",
      ids.turbo ?? "",
      "--reject",
      ids.strict ?? "",
    );
    expect(applied.exitCode).toBe(ExitCode.ok);
    expect(applied.stdout).toContain("Applied: 2 promoted, 1 rejected, 2 verdicts recorded.");
    // Promoting Monday again changes nothing, and nothing waits for a reviewer.
    const again = await promote("monday", "--into", "my-repo");
    expect(again.exitCode).toBe(ExitCode.ok);
    expect(again.stdout).toContain(
      "Plan: 0 new, 0 superseding, 0 conflicting, 2 unchanged, 1 rejected before.",
    );
  }, 60_000);

  it("Tuesday: a new session reads Monday's approved decisions and not its rejected one", async () => {
    const tuesday = await session("tuesday", "claude", ["--project", "my-repo"]);
    const read = await tuesday.call("check_shared_decisions", { task: "add a package" });
    // The approved one first: a person (dana) stands behind it now, so it carries `user` authority.
    expect(contents(read)).toStrictEqual(["Cache builds in .turbo", "Use pnpm workspaces"]);
    expect(decisionsOf(read).map((decision) => decision.author)).toStrictEqual([
      "claude",
      "claude",
    ]);
    expect(String(read.context)).toContain("## Project decisions (my-repo)");
    expect(String(read.context)).not.toContain("strict mode");

    // Tuesday builds on what it read and promotes itself: it read Monday's, so it supersedes.
    await tuesday.call("publish_decision", {
      content: "Use pnpm catalogs for shared versions",
      target: "package-manager",
    });
    const promoted = await tuesday.call("promote_decisions", {});
    expect(promoted).toMatchObject({
      runSubjectId: "tuesday",
      projectSubjectId: "my-repo",
      items: [{ status: "supersedes", outcome: "promoted" }],
      held: [],
    });
    const again = await tuesday.call("promote_decisions", {});
    expect(again).toMatchObject({ items: [{ status: "unchanged", outcome: "unchanged" }] });

    const project = await alice.call("check_shared_decisions", { task: "review" });
    expect(contents(project).sort()).toStrictEqual([
      "Cache builds in .turbo",
      "Use pnpm catalogs for shared versions",
    ]);
  }, 60_000);

  it("keeps the review in the project: who approved and rejected what", async () => {
    const store = new EmbeddedStore({ path: dbPath });
    try {
      const timeline = await readWholeTimeline(store, "my-repo");
      const verdicts = timeline.episodes
        .filter((episode) => episode.type === "promotion_review")
        .map((episode) => [episode.source, episode.payload.verdict, episode.payload.memoryId]);
      expect(verdicts).toStrictEqual([
        ["dana", "approved", ids.turbo],
        ["dana", "rejected", ids.strict],
      ]);
    } finally {
      await store.close();
    }
  });
});
