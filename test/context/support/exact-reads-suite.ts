import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ContextStore, CreateEpisodeInput } from "../../../src/context/context-store.js";
import { readersWindow } from "../../../src/context/decision-life.js";
import { countedPage } from "../../../src/context/reads-by-target.js";
import { SharedContext } from "../../../src/context/shared-context.js";
import { claimEpisode, editsSubjectOf } from "../../../src/hooks/edit-activity.js";
import {
  checkEdits,
  type EditHookContext,
  postToolUse,
  preToolUse,
  sessionStart,
} from "../../../src/hooks/edit-hooks.js";
import type { HookInput } from "../../../src/hooks/hook-input.js";
import { defaultHookSettings, type ProjectConfig } from "../../../src/hooks/project-config.js";
import { checkSharedDecisionsResult } from "../../../src/integrations/tool-results.js";
import { editPayload, makeRepository, runHookCli } from "../../hooks/hook-harness.js";

/**
 * Exact reads at any scale (issue 36): the answers that decide an action (may this file be
 * edited, which decisions stand, who holds a module, what became of one decision) do not change as
 * the subject's history grows. The retirement is the oldest decision, behind `size` newer ones on
 * other targets; the sizes include 101 and 1,001 so that a read capped at 100 or 1,000 fails.
 */

/** The sizes every backend is held to: the three, and one past each usual cap. */
export const exactReadSizes = [101, 150, 1000, 1001, 5000] as const;
/** Modules claimed by sessions: one more than a page of 100, and more than a cap of 130 would hold. */
export const claimedModules = 131;

const subjectId = "acme";
const root = "/repo";

/** The project the hooks judge: legacy-billing, orders, and mod0 … mod130. */
export function exactReadsProject(): ProjectConfig {
  const names = [
    "legacy-billing",
    "orders",
    ...Array.from({ length: claimedModules }, (_, index) => `mod${index}`),
  ];
  return {
    modules: names.map((name) => ({ name, globs: [`src/${name}/**`] })),
    modulesFrom: "config",
    hooks: defaultHookSettings,
  };
}

/** The hooks' context for `agent` on `store`. */
export function hookContextOf(
  store: ContextStore,
  agent: string,
  extra: Partial<EditHookContext> = {},
): EditHookContext {
  return { store, subjectId, agent, root, project: exactReadsProject(), ...extra };
}

/** Claude Code's `Edit` of `file` (relative to the root) by `session`. */
export function editInput(session: string, file: string): HookInput {
  return {
    sessionId: session,
    cwd: root,
    toolName: "Edit",
    toolInput: { file_path: `${root}/${file}`, old_string: "a", new_string: "b" },
  };
}

/** Appends `inputs` in batches of 100 (the store's batch limit). */
async function appendAll(
  store: ContextStore,
  inputs: readonly CreateEpisodeInput[],
): Promise<void> {
  for (let start = 0; start < inputs.length; start += 100) {
    await store.createEpisodesBatch(inputs.slice(start, start + 100));
  }
}

/**
 * alice's "Retire legacy-billing" (through `decide`, so it has an id and a target), then `size`
 * decisions on other targets by the architect, appended in batches and compiled once.
 */
export async function seedRetirementBehind(
  store: ContextStore,
  shared: SharedContext,
  size: number,
): Promise<string> {
  const { memories } = await shared.decide("alice", "Retire legacy-billing", {
    target: "legacy-billing",
  });
  const retirement = memories[0];
  if (retirement === undefined) throw new Error("the retirement compiled into no memory");
  await appendAll(
    store,
    Array.from({ length: size }, (_, index) => ({
      subjectId,
      source: "architect",
      type: "architectural_decision",
      payload: { content: `Serve other-${index} from the cache`, target: `other-${index}` },
    })),
  );
  await store.compileMemories(subjectId);
  return retirement.id;
}

/** A store under test; `flags`: how `shared-ctx check` and the hooks reach the same store. */
export interface OpenedStore {
  store: ContextStore;
  close(): Promise<void>;
  flags?: readonly string[];
}

/** `shared-ctx check` and `hook pre-tool-use` of a file of legacy-billing, through the CLI. */
async function refusedThroughCli(flags: readonly string[]): Promise<void> {
  const repository = makeRepository(mkdtempSync(join(tmpdir(), "shared-ctx-exact-")), [
    "src/legacy-billing/a.ts",
  ]);
  try {
    const common = ["--root", repository, "--subject", subjectId, ...flags];
    const check = await runHookCli([
      "check",
      "--agent",
      "bob",
      ...common,
      "--path",
      join(repository, "src/legacy-billing/a.ts"),
    ]);
    expect(check.stderr).toContain("check: refused");
    expect(check.exitCode).toBe(3);
    const hook = await runHookCli(["hook", "pre-tool-use", ...common], {
      stdin: JSON.stringify(
        editPayload("PreToolUse", "bob", repository, "src/legacy-billing/a.ts"),
      ),
    });
    expect(hook.output?.hookSpecificOutput?.permissionDecision).toBe("deny");
  } finally {
    rmSync(repository, { recursive: true, force: true });
  }
}

/**
 * The exact-read suite on one store. `prepare` runs inside the `describe` and returns how to open
 * a fresh, empty store per test, with what closes it.
 */
export function describeExactReads(
  storeName: string,
  prepare: () => () => Promise<OpenedStore>,
  options: { skip?: boolean; sizes?: readonly number[] } = {},
): void {
  describe.skipIf(options.skip ?? false)(`exact reads at any scale on ${storeName}`, () => {
    const open = prepare();
    const opened: Array<{ close(): Promise<void> }> = [];
    afterEach(async () => {
      for (const item of opened.splice(0).reverse()) await item.close();
    });

    async function setUp() {
      const { store, close, flags } = await open();
      const shared = new SharedContext({ store, subjectId });
      opened.push({ close }, shared);
      return { store, shared, flags };
    }

    describe.each(options.sizes ?? exactReadSizes)(
      "behind %i decisions on other targets",
      (size) => {
        it("check and the PreToolUse hook still refuse the retired module; beforeActing lists the retirement", async () => {
          const { store, shared, flags } = await setUp();
          const retirementId = await seedRetirementBehind(store, shared, size);
          if (flags !== undefined) await refusedThroughCli(flags);

          const [file] = await checkEdits(hookContextOf(store, "bob"), [
            `${root}/src/legacy-billing/a.ts`,
          ]);
          expect(file?.verdict?.decision).toBe("deny");
          expect(file?.verdict?.conflicts).toMatchObject([
            { type: "retired", decision: { id: retirementId, author: "alice" } },
          ]);
          const answer = await preToolUse(
            hookContextOf(store, "bob"),
            editInput("bob", "src/legacy-billing/a.ts"),
          );
          expect(answer.decision).toBe("deny");
          expect(answer.reason).toContain('alice decided "Retire legacy-billing"');
          // The module nobody retired stays open: the read is exact, not a blanket refusal.
          const [orders] = await checkEdits(hookContextOf(store, "bob"), [
            `${root}/src/orders/b.ts`,
          ]);
          expect(orders?.verdict?.decision).toBe("allow");

          // beforeActing reads exactly what the task names, whatever the history's size.
          const named = await shared.beforeActing("coder", "port legacy-billing to invoices");
          expect(named.decisions.map((memory) => memory.id)).toContain(retirementId);
          expect(named.assembledContext).toContain("Retire legacy-billing (alice");
          const read = await shared.beforeActing("coder", "build the orders page");
          expect(read.decisions.map((memory) => memory.id)).not.toContain(retirementId);
          // The rest is counted from one page, not read: a lower bound, said so in the text.
          expect(read.decisionsLeftOutAtLeast).toBe(true);
          expect(read.decisionsLeftOut).toBeGreaterThanOrEqual(
            countedPage - read.bundle.facts.length,
          );
          expect(read.assembledContext).toContain(
            `At least ${read.decisionsLeftOut} other active decisions are not in this context`,
          );
          // check_shared_decisions lists what the context shows and counts the rest.
          const checked = checkSharedDecisionsResult(read);
          expect(checked.decisionsLeftOut ?? 0).toBe(read.decisionsLeftOut);
          expect(checked.decisionsLeftOutAtLeast).toBe(true);

          // A session start lists the newest 30 and says how many more the hooks still enforce.
          const start = await sessionStart(hookContextOf(store, "erin"), {
            sessionId: "erin",
            source: "startup",
            toolInput: {},
          });
          expect(start.context).toContain(
            "… and older decisions, not listed here (still enforced)",
          );
        }, 120_000);

        it("retract, supersede and history by id reach the oldest decision", async () => {
          const { store, shared } = await setUp();
          const retirementId = await seedRetirementBehind(store, shared, size);

          // dave reads the task that names it, then decides elsewhere: a reader in the newest episodes.
          await shared.beforeActing("dave", "move legacy-billing exports to invoices");
          await shared.decide("dave", "Serve invoices from exports", { target: "invoices" });
          const history = await shared.history(retirementId);
          expect(history.status).toBe("active");
          expect(history.author).toBe("alice");
          expect(history.readers).toContain("dave");
          // No index of who read what: readers are looked for among the newest episodes only.
          expect(history.readersWithin).toEqual(
            size + 2 > readersWindow ? { newestEpisodes: readersWindow } : undefined,
          );

          const { memories } = await shared.decide("carol", "Keep legacy-billing", {
            supersedes: retirementId,
          });
          const keep = memories[0];
          expect(keep?.metadata.target).toBe("legacy-billing");
          expect((await shared.history(retirementId)).supersededBy?.memoryId).toBe(keep?.id);
          const [file] = await checkEdits(hookContextOf(store, "bob"), [
            `${root}/src/legacy-billing/a.ts`,
          ]);
          expect(file?.verdict?.decision).toBe("allow");

          await shared.retract("carol", keep?.id ?? "");
          expect((await shared.history(keep?.id ?? "")).status).toBe("retracted");
          await expect(shared.retract("carol", retirementId)).rejects.toThrow(/no longer active/);
        }, 120_000);
      },
    );

    it("a retirement published without a target, behind 1,001 newer decisions, is still refused by its words", async () => {
      const { store, shared } = await setUp();
      await shared.decide("alice", "Retire legacy-billing");
      await seedRetirementBehind(store, shared, 1001);
      await shared.retract(
        "alice",
        (await shared.beforeActing("alice", "legacy-billing")).decisions.find(
          (memory) => memory.metadata.target === "legacy-billing",
        )?.id ?? "",
      );
      const [file] = await checkEdits(hookContextOf(store, "bob"), [
        `${root}/src/legacy-billing/a.ts`,
      ]);
      expect(file?.verdict?.conflicts).toMatchObject([
        { type: "retired", decision: { author: "alice", content: "Retire legacy-billing" } },
      ]);
    }, 120_000);

    it("no action-deciding read asks for the newest N: no search, no timeline page", async () => {
      const { store, shared } = await setUp();
      const retirementId = await seedRetirementBehind(store, shared, 150);
      const asked: string[] = [];
      // The same store, refusing the reads that answer with the newest N (or a page by offset).
      const exactOnly = new Proxy(store, {
        get(target, property, receiver) {
          if (property === "getTimeline") {
            return async () => {
              asked.push("getTimeline");
              throw new Error("getTimeline is not an exact read");
            };
          }
          if (property === "searchMemories") {
            return async () => {
              asked.push("searchMemories");
              throw new Error("searchMemories answers with the newest N");
            };
          }
          const value = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const exact = new SharedContext({ store: exactOnly, subjectId });
      opened.push(exact);
      const [file] = await checkEdits(hookContextOf(exactOnly, "bob"), [
        `${root}/src/legacy-billing/a.ts`,
      ]);
      expect(file?.verdict?.decision).toBe("deny");
      await postToolUse(hookContextOf(exactOnly, "bob"), editInput("bob", "src/orders/a.ts"));
      const named = await exact.beforeActing("coder", "legacy-billing");
      expect(named.decisions.map((memory) => memory.id)).toContain(retirementId);
      await exact.contradictions();
      await exact.retract("carol", retirementId);
      expect(asked).toEqual([]);
      // History by id decides nothing: it looks for readers in one bounded page of the newest
      // episodes (no store indexes who read what), so it is asked of the plain store.
      expect((await shared.history(retirementId)).status).toBe("retracted");
    }, 120_000);

    describe(`${claimedModules} claimed modules`, () => {
      /** Session a edits mod0 through the hook; session b's claims on mod1 … mod130 come after. */
      async function seedClaims(store: ContextStore): Promise<void> {
        await postToolUse(
          hookContextOf(store, "session-a"),
          editInput("session-a", "src/mod0/a.ts"),
        );
        await appendAll(
          store,
          Array.from({ length: claimedModules - 1 }, (_, index) =>
            claimEpisode({
              subjectId,
              agent: "session-b",
              module: `mod${index + 1}`,
              path: `src/mod${index + 1}/a.ts`,
              tool: "Edit",
            }),
          ),
        );
        await store.compileMemories(editsSubjectOf(subjectId));
      }

      it("check by a third session refuses every one of them, the oldest claim too", async () => {
        const { store } = await setUp();
        await seedClaims(store);
        const files = await checkEdits(
          hookContextOf(store, "session-c"),
          Array.from({ length: claimedModules }, (_, index) => `${root}/src/mod${index}/x.ts`),
        );
        const held = files.map((file) => {
          const conflict = file.verdict?.conflicts[0];
          return conflict?.type === "claimed" ? conflict.claim.agent : file.verdict?.decision;
        });
        expect(held).toEqual([
          "session-a",
          ...Array.from({ length: claimedModules - 1 }, () => "session-b"),
        ]);
      }, 120_000);

      it("a second editor of mod0 raises an escalation with session a", async () => {
        const { store } = await setUp();
        await seedClaims(store);
        const raised: Array<{ module: string; holders: readonly [string, string] }> = [];
        const answer = await postToolUse(
          hookContextOf(store, "session-d", {
            escalate: async ({ module, holders }) => {
              raised.push({ module, holders });
            },
          }),
          editInput("session-d", "src/mod0/b.ts"),
        );
        expect(raised).toEqual([{ module: "mod0", holders: ["session-a", "session-d"] }]);
        expect(answer.context).toContain("session session-a edited module mod0 too");
      }, 120_000);
    });
  });
}
