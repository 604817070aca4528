import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createStatewaveEmulator } from "../../src/server/compat/statewave-v0-7-1.js";
import { aliceChatPayload, aliceIntroduces } from "../support/fixtures/alice-chat.js";

/** The responses recorded from a real Statewave v0.7.1 server: the ground truth. */
// A copy of ../shared/fixtures/statewave-v0.7.1 (recorded from a real server), kept in the repo so
// the suite runs wherever it is cloned.
const fixturesDir = join(import.meta.dirname, "fixtures/statewave-v0.7.1");

interface Fixture {
  request: { method: string; path: string; body: unknown };
  response: { status: number; body: unknown };
}

function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(join(fixturesDir, name), "utf8")) as Fixture;
}

/** Timestamps and request ids vary between runs; everything else must match. */
function normalize(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{6})?Z"/g, '"<time>"')
      .replace(/"request_id":"[^"]*"/g, '"request_id":"<id>"'),
  );
}

/** Ids in the fixtures' placeholder form, in creation order, as the real server's were replaced. */
function placeholderIds() {
  let next = 0;
  return () => {
    next += 1;
    return `00000000-0000-4000-8000-${String(next).padStart(12, "0")}`;
  };
}

function emulatorForFixtures() {
  const emulator = createStatewaveEmulator({ generateId: placeholderIds() });
  const send = async (request: Fixture["request"], headers: Record<string, string> = {}) => {
    const init: RequestInit = { method: request.method, headers: { ...headers } };
    if (request.body !== null) {
      init.body = JSON.stringify(request.body);
      init.headers = { ...headers, "Content-Type": "application/json" };
    }
    const response = await emulator.fetch(
      new Request(`http://statewave.test${request.path}`, init),
    );
    return { status: response.status, body: (await response.json()) as unknown };
  };
  return { emulator, send };
}

describe("the Statewave v0.7.1 emulation, against the recorded fixtures", () => {
  it("has a fixture for every recorded call", () => {
    expect(readdirSync(fixturesDir).filter((name) => name.endsWith(".json"))).toHaveLength(16);
  });

  it("answers the recorded session (01..10, 16) exactly, up to timestamps", async () => {
    const { send } = emulatorForFixtures();
    for (const name of [
      "01-create-decision.json",
      "02-create-batch-notes.json",
      "03-compile.json",
      "04-context.json",
      "05-search-all.json",
      "06-search-kind-episode_summary.json",
      "07-supersede-create.json",
      "08-supersede-compile.json",
    ]) {
      const recorded = fixture(name);
      const answer = await send(recorded.request);
      expect(answer.status, name).toBe(recorded.response.status);
      const expected = normalize(recorded.response.body) as Record<string, unknown>;
      const actual = normalize(answer.body) as Record<string, unknown>;
      if (name === "04-context.json") {
        // tiktoken's exact count is not emulated (contract §14); everything else is.
        expect(actual.token_estimate).toBeGreaterThan(0);
        expected.token_estimate = actual.token_estimate;
      }
      expect(actual, name).toEqual(expected);
    }
    // 125 episodes: the 5 above and 120 CRDT updates, as the recording did.
    for (let seq = 0; seq < 120; seq++) {
      await send({
        method: "POST",
        path: "/v1/episodes",
        body: {
          subject_id: "fixture-run",
          source: `agent-${seq % 4}`,
          type: "state_update",
          payload: { seq, update: "AAEC" },
        },
      });
    }
    for (const name of [
      "09-timeline-after-125-episodes.json",
      "10-timeline-limit-offset-ignored.json",
    ]) {
      const recorded = fixture(name);
      const answer = await send(recorded.request);
      expect(answer.status, name).toBe(200);
      expect(normalize(answer.body), name).toEqual(normalize(recorded.response.body));
    }
    const deleted = fixture("16-delete-subject.json");
    expect(await send(deleted.request)).toEqual(deleted.response);
  });

  it.each([
    "13-error-422-empty-subject.json",
    "14-error-422-context-missing-task.json",
    "15-error-404-job.json",
  ])("answers %s with the recorded error", async (name) => {
    const { send } = emulatorForFixtures();
    const recorded = fixture(name);
    const answer = await send(recorded.request);
    expect(answer.status).toBe(recorded.response.status);
    expect(normalize(answer.body)).toEqual(normalize(recorded.response.body));
  });

  it("answers an async compile with 202 and an 8-hex job id (11), then completes it", async () => {
    const { send } = emulatorForFixtures();
    const recorded = fixture("11-compile-async.json");
    const answer = await send(recorded.request);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      job_id: expect.stringMatching(/^[0-9a-f]{8}$/),
      status: "pending",
      subject_id: "fixture-run",
    });
    const jobId = (answer.body as { job_id: string }).job_id;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const polled = await send({ method: "GET", path: `/v1/memories/compile/${jobId}`, body: null });
    expect(polled.body).toMatchObject({ job_id: jobId, status: "completed", memories_created: 0 });
  });

  it("lists subjects in the recorded shape (12), total = page length", async () => {
    const { send } = emulatorForFixtures();
    await send(fixture("01-create-decision.json").request);
    const answer = await send(fixture("12-subjects.json").request);
    expect(answer).toEqual({
      status: 200,
      body: {
        subjects: [{ subject_id: "fixture-run", episode_count: 1, memory_count: 0 }],
        total: 1,
      },
    });
  });

  it("compiles chat the heuristic way: a summary and profile facts in pattern order (contract §8)", async () => {
    const { send } = emulatorForFixtures();
    await send({
      method: "POST",
      path: "/v1/episodes",
      body: {
        subject_id: "chat",
        source: "support",
        type: "conversation",
        payload: aliceChatPayload,
      },
    });
    const compiled = await send({
      method: "POST",
      path: "/v1/memories/compile",
      body: { subject_id: "chat" },
    });
    const memories = (compiled.body as { memories: { kind: string; content: string }[] }).memories;
    expect(memories.map((memory) => [memory.kind, memory.content])).toEqual([
      ["episode_summary", `user: ${aliceIntroduces}`],
      ["profile_fact", "My name is Alice Chen"],
      ["profile_fact", "I work at Globex Corporation"],
      ["profile_fact", "I am on the Enterprise plan"],
    ]);
  });

  it("answers a body without a JSON Content-Type, or with a NUL character, with a 500", async () => {
    const { emulator } = emulatorForFixtures();
    const plain = await emulator.fetch(
      new Request("http://statewave.test/v1/episodes", {
        method: "POST",
        body: "{}",
        headers: { "Content-Type": "text/plain" },
      }),
    );
    expect(plain.status).toBe(500);
    const nul = await emulator.fetch(
      new Request("http://statewave.test/v1/episodes", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          subject_id: "s",
          source: "a",
          type: "t",
          payload: { text: "a\u0000b" },
        }),
      }),
    );
    expect(nul.status).toBe(500);
  });
});
