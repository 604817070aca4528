import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import type { SharedState } from "../../src/crdt/shared-state.js";
import { deferred } from "../support/deferred.js";
import { closeAfterEach } from "./support/shared-context-fixture.js";

const subjectId = "project-1";
const opened = closeAfterEach();

function setUp(options: { onError?: (error: unknown) => void; state?: SharedState } = {}) {
  const store = new EmbeddedStore({ path: ":memory:" });
  const shared = new SharedContext({ store, subjectId, ...options });
  opened.push(store, shared);
  return { store, shared };
}

const decision = (target: string) => ({ kind: "architectural_decision", target });

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
