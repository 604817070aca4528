import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { sharedStatesPerTest } from "./support/shared-states.js";

const { memoryStore, open, readerAndWriter } = sharedStatesPerTest({ live: false });

describe("SharedState", () => {
  describe("following the store", () => {
    it("follows other replicas by default", async () => {
      const { reader, writeTags } = await readerAndWriter({ live: undefined });
      await writeTags(["a"]);
      expect(reader.get("plan", "tags")).toStrictEqual(["a"]);
    });

    it("reports a failure of the store's watch through onError", async () => {
      const store = memoryStore();
      const failure = new Error("watch failed");
      const failingWatch = new Proxy(store, {
        get(target, property, receiver) {
          if (property === "watch") {
            const watch: ContextStore["watch"] = (subjectId, listener, options) => {
              options?.onError?.(failure);
              return target.watch(subjectId, listener, options);
            };
            return watch;
          }
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const errors: unknown[] = [];
      await open(failingWatch, "reader", { live: true, onError: (error) => errors.push(error) });
      expect(errors).toStrictEqual([failure]);
    });
  });

  describe("close", () => {
    it("stops following the store, and closing twice is harmless", async () => {
      const { reader, writeTags } = await readerAndWriter({ live: true });
      await writeTags(["a"]);
      expect(reader.get("plan", "tags")).toStrictEqual(["a"]);
      await reader.close();
      await reader.close();
      await writeTags(["b"]);
      expect(reader.get("plan", "tags")).toStrictEqual(["a"]);
    });
  });
});
