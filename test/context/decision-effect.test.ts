import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { StoreValidationError } from "../../src/context/errors/store-validation-error.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { embeddedStoresPerTest } from "../support/embedded-stores.js";
import { statewaveClientOfServe } from "../support/serve-fetch.js";

describe("a decision's explicit effect", () => {
  const open = embeddedStoresPerTest();

  describe.each([
    ["embedded", () => ({ store: open(), close: async (): Promise<void> => undefined })],
    ["through serve", () => statewaveClientOfServe(new EmbeddedStore({ path: ":memory:" }))],
  ] as const)("on the %s store", (_name, make) => {
    it("travels into the memory's metadata, with a replace's replacement", async () => {
      const { store, close } = make();
      const shared = new SharedContext({ store, subjectId: "acme" });
      try {
        const { memories } = await shared.decide("lead", "Billing moves", {
          target: "legacy-billing",
          effect: "replace",
          replacement: "invoices",
          authority: "user",
        });
        expect(memories[0]?.metadata).toMatchObject({
          target: "legacy-billing",
          effect: "replace",
          replacement: "invoices",
          authority: "user",
        });
      } finally {
        await shared.close();
        await close();
      }
    });
  });

  it.each([
    [{ effect: "retire" as const }, "target"],
    [{ effect: "replace" as const, target: "a" }, "replacement"],
    [{ effect: "keep" as const, target: "a", replacement: "b" }, "replacement"],
    [{ target: "a", replacement: "b" }, "replacement"],
  ])("%j is refused before anything is written, naming %s", async (options, field) => {
    const store = open();
    const shared = new SharedContext({ store, subjectId: "acme" });
    const error = await shared.decide("lead", "x", options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreValidationError);
    expect((error as StoreValidationError).field).toBe(field);
    expect((await store.getTimeline("acme")).episodes).toEqual([]);
    await shared.close();
  });
});
