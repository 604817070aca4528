import { describe, expect, it } from "vitest";
import { serialRefresh } from "../../src/cli/serial-refresh.js";
import { type Deferred, deferred } from "../support/deferred.js";

describe("serialRefresh", () => {
  it("reads once at a time, and once more after a burst that arrived during a read", async () => {
    const reads: Deferred<number>[] = [];
    const shown: number[] = [];
    const refresher = serialRefresh(
      () => {
        const read = deferred<number>();
        reads.push(read);
        return read.promise;
      },
      (value) => shown.push(value),
    );
    refresher.refresh();
    refresher.refresh();
    refresher.refresh();
    expect(reads).toHaveLength(1);
    reads[0]?.resolve(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toHaveLength(2);
    reads[1]?.resolve(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toHaveLength(2);
    expect(shown).toEqual([1, 2]);
  });

  it("shows nothing once closed, and reports a failed read without stopping", async () => {
    const errors: unknown[] = [];
    const shown: number[] = [];
    let calls = 0;
    const refresher = serialRefresh(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error("store gone");
        return calls;
      },
      (value) => shown.push(value),
      (error) => errors.push(error),
    );
    refresher.refresh();
    await new Promise((resolve) => setImmediate(resolve));
    refresher.refresh();
    await new Promise((resolve) => setImmediate(resolve));
    refresher.close();
    refresher.refresh();
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([new Error("store gone")]);
    expect(shown).toEqual([2]);
    expect(calls).toBe(2);
  });
});
