import { expect } from "vitest";
import type { DrivenChild } from "../../support/run-child.js";

/** What a state writer (`test/crdt/fixtures/state-writer.ts`) reports when it finishes. */
export type StateWriterResult = {
  state: Record<string, Record<string, unknown>>;
  escalations: Array<{ id: string; reason: string; contenders: Array<{ agentId: string }> }>;
  follower: Record<string, Record<string, unknown>>;
};

/**
 * Drives two state writers through one script in step: both ready, both write the same keys at
 * once, both merge, both finish; returns what each ends with.
 */
export async function writeInStep(
  a: DrivenChild,
  b: DrivenChild,
): Promise<[StateWriterResult, StateWriterResult]> {
  const both = async (command: string) => {
    a.send(command);
    b.send(command);
    return Promise.all([a.next(), b.next()]);
  };
  expect(await Promise.all([a.next(), b.next()])).toEqual(["ready", "ready"]);
  expect(await both("conflict")).toEqual(["ok", "ok"]);
  expect(await both("merge")).toEqual(["ok", "ok"]);
  const results = await both("finish 2");
  return results.map((line) => JSON.parse(line.replace(/^result /, "")) as StateWriterResult) as [
    StateWriterResult,
    StateWriterResult,
  ];
}
