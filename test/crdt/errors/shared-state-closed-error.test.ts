import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { SharedStateClosedError } from "../../../src/crdt/errors/shared-state-closed-error.js";
import { SharedState } from "../../../src/crdt/shared-state.js";
import { SharedCtxError } from "../../../src/errors.js";

const stores: EmbeddedStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function closedState(): Promise<SharedState> {
  const store = new EmbeddedStore({ path: ":memory:" });
  stores.push(store);
  const state = await SharedState.open({
    store,
    subjectId: "run-1",
    agentId: "coder",
    live: false,
  });
  await state.close();
  return state;
}

describe("SharedStateClosedError", () => {
  it.each<[string, (state: SharedState) => Promise<void>]>([
    ["put", (state) => state.put("plan", "x", 1)],
    ["a put acting as another agent", (state) => state.actingAs("lead").put("plan", "x", 1)],
    ["resolve", (state) => state.resolve("plan/x#0", 1, { by: "lead" })],
  ])("names the subject and the agent whose state refused %s after close", async (_, write) => {
    const state = await closedState();
    const error = await write(state).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(SharedStateClosedError);
    expect(SharedCtxError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      name: "SharedStateClosedError",
      message: "The shared state of run-1 opened by coder is closed",
      subjectId: "run-1",
      agentId: "coder",
    });
    expect(state.toJSON()).toStrictEqual({});
  });
});
