import { describe, expect, it } from "vitest";
import type { CreateEpisodeInput, Episode } from "../../src/context/context-store.js";
import {
  fromRunEventEpisode,
  fromRunStopEpisode,
  isRunId,
  runEventEpisodeType,
  runStopEpisodeType,
  toRunEventEpisode,
  toRunStopEpisode,
} from "../../src/scenario/run-record.js";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";

/** The episode a store would give back for `input`. */
function stored(input: CreateEpisodeInput): Episode {
  return {
    id: "episode-1",
    metadata: {},
    provenance: {},
    createdAt: "2026-01-01T00:00:00.000Z",
    ...input,
  };
}

const moduleStart = {
  type: "module-start",
  runId: "sw-0000000a",
  at: 120,
  agentId: "coder",
  module: "auth-service",
} as unknown as ScenarioEvent;

describe("isRunId", () => {
  it.each(["nv-00000000", "bc-abcdefgh", "sw-0a1b2c3d"])("takes %s for a run", (id) => {
    expect(isRunId(id)).toBe(true);
  });

  it.each([
    ["another prefix", "xx-00000000"],
    ["something before the prefix", "run-sw-00000000"],
    ["a ninth character", "sw-000000000"],
    ["seven characters", "sw-0000000"],
    ["capitals", "sw-ABCDEFGH"],
    ["punctuation", "sw-0000-000"],
    ["a plain subject", "project"],
  ])("refuses %s", (_label, id) => {
    expect(isRunId(id)).toBe(false);
  });
});

describe("run events", () => {
  it("keeps an event under its run, written by its agent", () => {
    const episode = toRunEventEpisode(moduleStart);
    expect(episode).toEqual({
      subjectId: "sw-0000000a",
      source: "coder",
      type: runEventEpisodeType,
      payload: { event: moduleStart },
    });
    expect(fromRunEventEpisode(stored(episode))).toEqual(moduleStart);
  });

  it("names the sender of a message, and the runner for events of no agent", () => {
    const message = { type: "message", runId: "bc-00000001", at: 5, from: "planner" };
    expect(toRunEventEpisode(message as unknown as ScenarioEvent).source).toBe("planner");
    const end = { type: "run-end", runId: "bc-00000001", at: 9, summary: {} };
    expect(toRunEventEpisode(end as unknown as ScenarioEvent).source).toBe("runner");
  });

  it.each([
    [
      "another type of episode",
      { type: "implementation_note", payload: toRunEventEpisode(moduleStart).payload },
    ],
    ["no event", { type: runEventEpisodeType, payload: {} }],
    ["an event that is a list", { type: runEventEpisodeType, payload: { event: [] } }],
    ["an event that is null", { type: runEventEpisodeType, payload: { event: null } }],
    [
      "an event without a type",
      { type: runEventEpisodeType, payload: { event: { runId: "sw-0000000a" } } },
    ],
    [
      "an event without a run",
      { type: runEventEpisodeType, payload: { event: { type: "run-start" } } },
    ],
    [
      "an event whose run is a number",
      { type: runEventEpisodeType, payload: { event: { type: "run-start", runId: 7 } } },
    ],
  ] satisfies Array<[string, Pick<CreateEpisodeInput, "type" | "payload">]>)(
    "reads no event from %s",
    (_label, fields) => {
      const episode = stored({ subjectId: "sw-0000000a", source: "coder", ...fields });
      expect(fromRunEventEpisode(episode)).toBeUndefined();
    },
  );
});

describe("run stops", () => {
  it.each(["interrupted", "failed"] as const)("keeps a run %s, written by the runner", (state) => {
    const stop = { runId: "nv-00000002", state, reason: "interrupted by SIGINT", at: 4200 };
    const episode = toRunStopEpisode(stop);
    expect(episode).toEqual({
      subjectId: "nv-00000002",
      source: "runner",
      type: runStopEpisodeType,
      payload: { state, reason: "interrupted by SIGINT", at: 4200 },
    });
    expect(fromRunStopEpisode(stored(episode))).toEqual(stop);
  });

  it("reads a stop with no reason or time as empty and at 0", () => {
    const episode = stored({
      subjectId: "nv-00000002",
      source: "runner",
      type: runStopEpisodeType,
      payload: { state: "failed", reason: 3, at: "late" },
    });
    expect(fromRunStopEpisode(episode)).toEqual({
      runId: "nv-00000002",
      state: "failed",
      reason: "",
      at: 0,
    });
  });

  it.each([
    ["another type of episode", { type: runEventEpisodeType, payload: { state: "failed" } }],
    ["an unknown state", { type: runStopEpisodeType, payload: { state: "finished" } }],
    ["no state", { type: runStopEpisodeType, payload: { reason: "gone" } }],
  ])("reads no stop from %s", (_label, fields) => {
    const episode = stored({ subjectId: "nv-00000002", source: "runner", ...fields });
    expect(fromRunStopEpisode(episode)).toBeUndefined();
  });
});
