import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedState } from "../../src/crdt/shared-state.js";

/**
 * Every replica that sees a dispute can announce it, and the store ends with exactly one active
 * "disputed" memory per escalation however many replicas were killed, and when: replicas write
 * concurrent values to one register, some are killed (their store calls fail from then on, as a
 * dead process's would) right after writing or after reading a little, the survivors sync and
 * stop, and a replica opened afterwards (a restart) reads everything.
 */

/** A view of `store` that fails every call once `kill()` was called. */
function killable(store: ContextStore): { store: ContextStore; kill(): void } {
  let dead = false;
  const view = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (dead) {
          if (property === "watch") return { close: () => undefined };
          return Promise.reject(new Error("killed"));
        }
        return (value as (...inner: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    store: view,
    kill: () => {
      dead = true;
    },
  };
}

interface Plan {
  /** The order in which the replicas write their own value (indexes into the replicas). */
  writeOrder: number[];
  /** Per replica: survive, killed right after writing, or killed after one sync. */
  fates: Array<"survive" | "kill-after-write" | "kill-after-sync">;
  /** The order the survivors sync and stop in. */
  syncOrder: number[];
  /** Whether the grace period is over at once (replicas race) or never ends before close. */
  graceInstant: boolean;
}

const plan: fc.Arbitrary<Plan> = fc.integer({ min: 2, max: 4 }).chain((count) =>
  fc.record({
    writeOrder: fc.shuffledSubarray([...Array(count).keys()], { minLength: count }),
    fates: fc.array(fc.constantFrom("survive", "kill-after-write", "kill-after-sync"), {
      minLength: count,
      maxLength: count,
    }),
    syncOrder: fc.shuffledSubarray([...Array(count).keys()], { minLength: count }),
    graceInstant: fc.boolean(),
  }),
);

async function runPlan(input: Plan) {
  const store = new EmbeddedStore({ path: ":memory:" });
  try {
    const never = (_ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
    const delay = input.graceInstant ? async () => undefined : never;
    const replicas = await Promise.all(
      input.fates.map(async (_fate, index) => {
        const handle = killable(store);
        const state = await SharedState.open({
          store: handle.store,
          subjectId: "run-1",
          agentId: `agent-${index}`,
          peerId: index + 1,
          live: false,
          now: () => 1_000 + index,
          delay,
        });
        return { state, kill: handle.kill };
      }),
    );
    for (const index of input.writeOrder) {
      const replica = replicas[index];
      if (!replica) continue;
      await replica.state.put("plan", "token", `value-${index}`);
      await replica.state.put("plan", "lease", `lease-${index}`);
      if (input.fates[index] === "kill-after-write") replica.kill();
    }
    for (const index of input.syncOrder) {
      const replica = replicas[index];
      const fate = input.fates[index];
      if (!replica || fate === "kill-after-write") continue;
      await replica.state.sync();
      if (fate === "kill-after-sync") {
        replica.kill();
      }
    }
    for (const index of input.syncOrder) {
      const replica = replicas[index];
      if (replica && input.fates[index] === "survive") await replica.state.close();
    }
    // A restart: a replica opened once everyone else is gone.
    const restarted = await SharedState.open({
      store,
      subjectId: "run-1",
      agentId: "restarted",
      peerId: 99,
      live: false,
      delay,
    });
    const escalations = restarted.escalations().map((escalation) => escalation.id);
    await restarted.close();
    await store.compileMemories("run-1");
    const memories = await store.searchMemories("run-1", { limit: 100 });
    const timeline = await store.getTimeline("run-1", { limit: 1000 });
    return {
      escalations,
      announcements: timeline.episodes.filter((episode) => episode.type === "escalation").length,
      // Announcement episodes per escalation id.
      announcementsOf: Object.fromEntries(
        escalations.map((id) => [
          id,
          timeline.episodes.filter(
            (episode) => episode.type === "escalation" && episode.payload.escalationId === id,
          ).length,
        ]),
      ),
      disputedMemories: memories
        .filter((memory) => memory.metadata.episodeType === "escalation")
        .map((memory) => memory.metadata.escalationId),
    };
  } finally {
    await store.close();
  }
}

describe("escalation announcements with kills", () => {
  it("leave exactly one active disputed memory per escalation, whoever was killed", async () => {
    await fc.assert(
      fc.asyncProperty(plan, async (input) => {
        const outcome = await runPlan(input);
        // Every replica wrote different values concurrently: one dispute per register, always.
        expect(outcome.escalations.sort()).toStrictEqual(["plan/lease#0", "plan/token#0"]);
        expect(outcome.disputedMemories.sort()).toStrictEqual(["plan/lease#0", "plan/token#0"]);
        // However many replicas announced each, the store keeps one episode per escalation (one
        // idempotency key per escalation id).
        expect(outcome.announcementsOf).toStrictEqual({ "plan/lease#0": 1, "plan/token#0": 1 });
      }),
      { numRuns: 40 },
    );
  });

  it("is announced when the last contender's writer is killed before it reads the others", async () => {
    const outcome = await runPlan({
      writeOrder: [0, 1],
      fates: ["survive", "kill-after-write"],
      syncOrder: [0, 1],
      graceInstant: false,
    });
    expect(outcome.announcementsOf).toStrictEqual({ "plan/lease#0": 1, "plan/token#0": 1 });
  });

  it("is announced by a restart when every writer was killed before reading", async () => {
    const outcome = await runPlan({
      writeOrder: [0, 1, 2],
      fates: ["kill-after-write", "kill-after-write", "kill-after-write"],
      syncOrder: [0, 1, 2],
      graceInstant: false,
    });
    expect(outcome.announcementsOf).toStrictEqual({ "plan/lease#0": 1, "plan/token#0": 1 });
  });

  it("is announced once when the writer of the last contender lives to announce it", async () => {
    const outcome = await runPlan({
      writeOrder: [0, 1],
      fates: ["survive", "survive"],
      syncOrder: [1, 0],
      graceInstant: false,
    });
    expect(outcome.announcementsOf).toStrictEqual({ "plan/lease#0": 1, "plan/token#0": 1 });
  });
});
