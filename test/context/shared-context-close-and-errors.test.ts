import { describe, expect, it } from "vitest";
import { deferred } from "../support/deferred.js";
import { decision, sharedContextSetups } from "./support/shared-context-setups.js";

const { setUp } = sharedContextSetups();

describe("SharedContext", () => {
  describe("background errors", () => {
    it("keeps an error onError throws and throws it from the next beforeActing", async () => {
      const reporterFailure = new Error("reporter failed");
      const { shared } = setUp({
        onError: () => {
          throw reporterFailure;
        },
      });
      await shared.decide("project", "cache in use", decision("cache"));
      await shared.beforeActing("coder", "Build module cache");
      await shared.beforeActing("planner", "Decide the fate of cache");
      const thrown = deferred();
      shared.onInvalidated("coder", () => {
        thrown.resolve();
        throw new Error("listener failed");
      });
      await shared.decide("planner", "Retire cache", decision("cache"));
      await thrown.promise;
      await expect(shared.beforeActing("coder", "Build module cache")).rejects.toBe(
        reporterFailure,
      );
    });
  });

  describe("close", () => {
    it("is idempotent and does not start watching again on a later read", async () => {
      const { store, shared } = setUp();
      let watches = 0;
      const watch = store.watch.bind(store);
      store.watch = (...args) => {
        watches++;
        return watch(...args);
      };
      await shared.beforeActing("coder", "anything");
      await shared.beforeActing("coder", "anything");
      expect(watches).toBe(1);
      await shared.close();
      await shared.close();
      await shared.beforeActing("coder", "anything");
      shared.onInvalidated("coder", () => {});
      expect(watches).toBe(1);
    });
  });
});
