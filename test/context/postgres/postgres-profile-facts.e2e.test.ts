import { describe, expect, it } from "vitest";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { aliceChatPayload } from "../../support/fixtures/alice-chat.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-profile-facts.e2e.test.ts") !== undefined;

describe.skipIf(skip)("PostgresStore compile of a conversation", () => {
  const postgres = usePostgres(skip);

  it("gives the episode_summary and the user's profile_facts, as the embedded store does", async () => {
    const store = new PostgresStore({ url: await postgres.database() });
    try {
      await store.createEpisode({
        subjectId: "user-42",
        source: "support-chat",
        type: "conversation",
        payload: aliceChatPayload,
      });
      const result = await store.compileMemories("user-42");
      expect(result.memories.map((memory) => memory.kind)).toStrictEqual([
        "episode_summary",
        "profile_fact",
        "profile_fact",
        "profile_fact",
      ]);
      const facts = await store.searchMemories("user-42", { kind: "profile_fact" });
      expect(facts.map((memory) => memory.content).sort()).toStrictEqual([
        "I am on the Enterprise plan",
        "I work at Globex Corporation",
        "My name is Alice Chen",
      ]);
    } finally {
      await store.close();
    }
  }, 30_000);
});
