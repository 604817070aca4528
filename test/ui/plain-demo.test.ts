import { describe, expect, it } from "vitest";
import { printDemoPlain } from "../../src/ui/plain-demo.js";
import { naiveCollisionEvents, statewaveAvoidedEvents } from "../support/fixtures/run-events.js";
import { scriptedRun } from "../support/fixtures/scripted-run.js";

function buffer() {
  let text = "";
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

describe("printDemoPlain", () => {
  it("prints naive then shared context, each with its verdict, then the comparison", async () => {
    const naive = scriptedRun(naiveCollisionEvents());
    const statewave = scriptedRun(statewaveAvoidedEvents());
    const output = buffer();
    const printing = printDemoPlain({ naive, statewave, stop: async () => undefined }, output);
    // The shared-context run finishes first; its lines still come after the naive run's.
    statewave.emitAll();
    naive.emit(3);
    await Promise.resolve();
    expect(output.text()).toContain("== Messages only · nv-0a1b2c3d");
    expect(output.text()).not.toContain("Shared context");
    naive.emitAll();
    const result = await printing;
    expect(result.naive.collision).toBe(true);

    const text = output.text();
    const order = [
      "== Messages only · nv-0a1b2c3d · auth-jwt · offline (deterministic) ==",
      "T+2.0s    [Planner] DEPRECATING → legacy-session-token (replaced by JWT)",
      "COLLISION DETECTED — work built in vain; the wasted compute cannot be recovered",
      "== Shared context · sw-4e5f6a7b",
      "T+2.5s    [Coder] Skipping → legacy-session-token (deprecated by Planner)",
      "CONFLICT AVOIDED — the Coder read the Planner's decision before acting",
      "== Comparison ==",
      "Shared context saved 2,400 tokens and 12.0s of wasted work.",
      "Timeline of the shared-context run: shared-ctx timeline sw-4e5f6a7b",
    ].map((line) => text.indexOf(line));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // Every event line is printed exactly once.
    expect(text.match(/\[Coder\] Skipping/g)).toHaveLength(1);
  });

  it("prints what the failed run did, then passes its own error up unchanged", async () => {
    const naive = scriptedRun(naiveCollisionEvents());
    const statewave = scriptedRun(statewaveAvoidedEvents());
    const output = buffer();
    const printing = printDemoPlain({ naive, statewave, stop: async () => undefined }, output);
    naive.emit(2);
    const failure = new Error("model timed out");
    naive.fail(failure);
    await expect(printing).rejects.toBe(failure);
    expect(output.text()).toContain("Messages only");
  });
});
