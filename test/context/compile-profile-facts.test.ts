import { describe, expect, it } from "vitest";
import { compileEpisode, compileProfileFacts } from "../../src/context/compile-memories.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { profileFactsOf } from "../../src/context/profile-facts.js";
import { createApp } from "../../src/server/app.js";

/*
 * Ground truth: the examples the Statewave contract records as observed on a real v0.7.1
 * (`../shared/statewave-contract.md` §8.3); the recorded fixtures in
 * `../shared/fixtures/statewave-v0.7.1/` hold no conversation episode.
 */
const observed: Array<[string, string[]]> = [
  [
    "My name is Alice Chen and I work at Globex Corporation. I am on the Enterprise plan.",
    ["My name is Alice Chen", "I work at Globex Corporation", "I am on the Enterprise plan"],
  ],
  [
    "I prefer email notifications over Slack, and I live in Berlin.",
    ["I live in Berlin", "I prefer email notifications over Slack"],
  ],
];

describe("profileFactsOf", () => {
  it.each(observed)("finds Statewave's facts in %j, in pattern order", (text, facts) => {
    expect(profileFactsOf(`user: ${text}`)).toStrictEqual(facts);
  });
});

describe("compileProfileFacts", () => {
  const chat = (messages: unknown) =>
    ({ type: "conversation", source: "support-bot", payload: { messages } }) as Parameters<
      typeof compileProfileFacts
    >[0];

  it("gives a profile_fact per fact the user states, beside the summary", () => {
    const episode = chat([
      { role: "user", content: observed[0]?.[0] },
      { role: "assistant", content: "Thanks! I am on it, I use our CRM to look you up." },
    ]);
    expect(compileEpisode(episode)?.kind).toBe("episode_summary");
    expect(compileProfileFacts(episode)).toStrictEqual(
      (observed[0]?.[1] ?? []).map((content) => ({
        kind: "profile_fact",
        content,
        summary: content,
        confidence: 0.6,
        target: null,
        source: "support-bot",
        readMemoryIds: [],
        metadata: { source: "support-bot", episodeType: "conversation" },
      })),
    );
  });

  it.each([
    [
      "an agent's decision",
      { type: "decision", source: "a", payload: { content: "I prefer RS256" } },
    ],
    [
      "a note without messages",
      { type: "note", source: "a", payload: { text: "I live in Berlin" } },
    ],
    [
      "messages that are not a list",
      { type: "chat", source: "a", payload: { messages: "I am Bob" } },
    ],
    [
      "odd messages",
      { type: "chat", source: "a", payload: { messages: [null, 3, ["x"], { role: 1 }] } },
    ],
    [
      "machinery",
      {
        type: "state_update",
        source: "a",
        payload: { messages: [{ role: "user", content: "I live in Oslo" }] },
      },
    ],
  ])("gives none for %s", (_label, episode) => {
    expect(compileProfileFacts(episode as Parameters<typeof compileProfileFacts>[0])).toStrictEqual(
      [],
    );
  });
});

describe("serve's compile of a conversation", () => {
  it("gives Statewave's kinds: the episode_summary and the user's profile_facts", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    try {
      const app = createApp({ store });
      const post = (path: string, body: unknown) =>
        app.fetch(
          new Request(`http://test${path}`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(body),
          }),
        );
      const created = await post("/v1/episodes", {
        subject_id: "user-42",
        source: "support-chat",
        type: "conversation",
        payload: {
          messages: [
            { role: "user", content: observed[0]?.[0] },
            { role: "assistant", content: "Welcome, Alice!" },
          ],
        },
      });
      expect(created.status).toBe(201);
      const compiled = await post("/v1/memories/compile", { subject_id: "user-42" });
      expect(compiled.status).toBe(200);
      const body = (await compiled.json()) as {
        memories_created: number;
        memories: Array<{ kind: string; content: string }>;
      };
      expect(body.memories_created).toBe(4);
      expect(body.memories.map((memory) => [memory.kind, memory.content])).toStrictEqual([
        ["episode_summary", `user: ${observed[0]?.[0]}\nassistant: Welcome, Alice!`],
        ["profile_fact", "My name is Alice Chen"],
        ["profile_fact", "I work at Globex Corporation"],
        ["profile_fact", "I am on the Enterprise plan"],
      ]);
      const search = await app.fetch(
        new Request("http://test/v1/memories/search?subject_id=user-42&kind=profile_fact"),
      );
      expect(((await search.json()) as { memories: unknown[] }).memories).toHaveLength(3);
    } finally {
      await store.close();
    }
  });
});
