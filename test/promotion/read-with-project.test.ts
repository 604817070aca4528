import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { readWholeTimeline } from "../../src/promotion/read-decisions.js";

const kind = "architectural_decision";

async function projectDecision(
  store: ContextStore,
  content: string,
  target: string,
  authority: string,
): Promise<void> {
  await store.createEpisode({
    subjectId: "project",
    source: "alice",
    type: kind,
    payload: { content, target },
    metadata: { authority },
  });
  await store.compileMemories("project");
}

describe("SharedContext.beforeActing with options.projectSubjectId", () => {
  /**
   * Runs `test` on run-1 beside a project of three decisions (two agents', one person's), then
   * closes the run and the store.
   */
  async function withSeededRun(
    test: (seeded: { store: EmbeddedStore; run: SharedContext }) => Promise<void>,
  ): Promise<void> {
    const store = new EmbeddedStore({ path: ":memory:" });
    await projectDecision(store, "Sessions in cookies", "auth", "agent");
    await projectDecision(store, "Use Postgres", "database", "agent");
    await projectDecision(store, "Keep the REST API", "api", "user");
    const run = new SharedContext({ store, subjectId: "run-1" });
    try {
      await test({ store, run });
    } finally {
      await run.close();
      await store.close();
    }
  }

  it("reads the project's decisions first, highest authority first", () =>
    withSeededRun(async ({ run }) => {
      const read = await run.beforeActing("coder", "build login", { projectSubjectId: "project" });
      expect(read.decisions.map((memory) => memory.content)).toStrictEqual([
        "Keep the REST API",
        "Use Postgres",
        "Sessions in cookies",
      ]);
      expect(read.assembledContext).toContain(
        "## Project decisions (project)\n- Keep the REST API (api) [alice, user]\n",
      );
      expect(read.changedSinceLastRead).toHaveLength(3);
      // Without the option, the run reads only its own subject.
      expect((await run.beforeActing("coder", "build login")).decisions).toStrictEqual([]);
    }));

  it("puts the run's own decision on top where it legitimately supersedes, and reports a conflict", () =>
    withSeededRun(async ({ store, run }) => {
      await run.beforeActing("coder", "build login", { projectSubjectId: "project" });
      // coder read the project's auth decision: its own supersedes it in this read.
      await run.decide("coder", "Use JWT, not cookies", { kind, target: "auth" });
      // planner never read the project: its database decision conflicts with the project's.
      await run.decide("planner", "Use SQLite", { kind, target: "database" });
      const projectBefore = await readWholeTimeline(store, "project");

      const read = await run.beforeActing("reviewer", "review", { projectSubjectId: "project" });
      expect(read.decisions.map((memory) => memory.content)).toStrictEqual([
        "Use JWT, not cookies",
        "Keep the REST API",
        "Use Postgres",
        "Use SQLite",
      ]);
      expect(read.contradictions).toMatchObject([
        {
          kind,
          target: "database",
          memories: [{ content: "Use Postgres" }, { content: "Use SQLite" }],
        },
      ]);
      // Reading never writes into the project.
      expect(await readWholeTimeline(store, "project")).toStrictEqual(projectBefore);
    }));

  it("records the project's decisions as read, so the next decision names them", () =>
    withSeededRun(async ({ run }) => {
      const read = await run.beforeActing("coder", "x", { projectSubjectId: "project" });
      const { episode } = await run.decide("coder", "Use JWT", { kind, target: "auth" });
      expect(episode.provenance.read_memory_ids).toStrictEqual(
        expect.arrayContaining(read.decisions.map((memory) => memory.id)),
      );
    }));

  it("does not list a lower-authority run decision on top of a person's project decision", () =>
    withSeededRun(async ({ run }) => {
      await run.beforeActing("coder", "x", { projectSubjectId: "project" });
      await run.decide("coder", "Move to GraphQL", { kind, target: "api" });
      const read = await run.beforeActing("coder", "x", { projectSubjectId: "project" });
      expect(read.decisions.map((memory) => memory.content)).toStrictEqual([
        "Keep the REST API",
        "Use Postgres",
        "Sessions in cookies",
        "Move to GraphQL",
      ]);
      expect(read.contradictions.map((dispute) => dispute.target)).toStrictEqual(["api"]);
    }));
});
