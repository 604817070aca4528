import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { startServer } from "../../src/server/listen.js";
import { drivenChild } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";
import { type StateWriterResult, writeInStep } from "./support/state-writers.js";

const writer = fileURLToPath(new URL("./fixtures/state-writer.ts", import.meta.url));
// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-crdt-");
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill();
});

/** A child driven line by line, killed after the test if it is still running. */
function driven(args: string[]) {
  const driven = drivenChild(writer, args);
  children.push(driven.child);
  return driven;
}

type Result = StateWriterResult;

/** Two processes write the same keys at the same time, then each reports what it ends with. */
async function writeFromTwoProcesses(target: string[]): Promise<[Result, Result]> {
  const a = driven([...target, "--agent", "a"]);
  const b = driven([...target, "--agent", "b"]);
  return writeInStep(a, b);
}

function expectSameOutcome([a, b]: [Result, Result]): void {
  expect(b.state).toStrictEqual(a.state);
  expect(b.escalations).toStrictEqual(a.escalations);
  expect(a.follower).toStrictEqual(a.state);
  expect(a.escalations.map((escalation) => [escalation.id, escalation.reason])).toEqual([
    ["plan/decision#0", "concurrent-register"],
    ["plan/owner#0:kind", "kind-mismatch"],
  ]);
  const work = a.state.work as { tags: string[]; hits: number; notes: string };
  expect(work.tags).toHaveLength(30);
  expect(work.hits).toBe(30);
  for (const agent of ["a", "b"]) {
    for (let index = 0; index < 15; index++) {
      expect(work.tags).toContain(`${agent}-${index}`);
      expect(work.notes).toContain(`${agent} line ${index}`);
    }
  }
  expect(a.state.plan?.decision).toMatchObject({
    disputed: "plan/decision#0",
    contenders: [
      { value: expect.stringMatching(/choice/) },
      { value: expect.stringMatching(/choice/) },
    ],
  });
}

describe("SharedState across processes", () => {
  it("two processes writing one database file converge on the same state and escalations", async () => {
    const db = join(tempDir(), "store.db");
    const results = await writeFromTwoProcesses(["--db", db]);
    expectSameOutcome(results);
    const store = new EmbeddedStore({ path: db });
    try {
      const timeline = await store.getTimeline("cross-process", { limit: 1000 });
      const announced = timeline.episodes
        .filter((episode) => episode.type === "escalation")
        .map((episode) => episode.payload.escalationId);
      expect(announced.sort()).toEqual(["plan/decision#0", "plan/owner#0:kind"]);
    } finally {
      await store.close();
    }
  });

  it("the same through `shared-ctx serve` (Statewave HTTP), with no change to the server", async () => {
    const store = new EmbeddedStore({ path: join(tempDir(), "served.db") });
    const server = await startServer({ store, port: 0 });
    try {
      expectSameOutcome(await writeFromTwoProcesses(["--url", server.url]));
    } finally {
      await server.close();
      await store.close();
    }
  });
});
