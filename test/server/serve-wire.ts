import { afterEach, describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { StatewaveClient } from "../../src/context/statewave/statewave-client.js";
import { StatewaveStore } from "../../src/context/statewave/statewave-store.js";
import type { TenantScopedStore } from "../../src/server/app.js";
import { serveFetch } from "../support/serve-fetch.js";

/** A store `serve` runs on, closed after each test. */
type WireStore = ContextStore & TenantScopedStore & { close(): Promise<void> };

/**
 * `shared-ctx serve` as a Statewave client sees it, on any store: Statewave's kinds on the wire
 * (contract §14) and a ~1 MiB episode byte for byte. Run on the embedded store
 * (compat-serve-wire.test.ts) and on Postgres (test/context/postgres/serve-on-postgres.e2e.test.ts).
 */
export function describeServeOnTheWire(
  storeName: string,
  prepare: () => () => Promise<WireStore>,
  skip = false,
): void {
  describe.skipIf(skip)(`serve on the wire, on ${storeName}`, () => {
    const openStore = prepare();
    const stores: WireStore[] = [];
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
    });

    async function serve() {
      const store = await openStore();
      stores.push(store);
      const fetch = serveFetch({ store });
      return { fetch };
    }

    it("serves Statewave's kinds; ours travel in metadata.kind and come back through StatewaveStore", async () => {
      const { fetch } = await serve();
      const shared = new SharedContext({ store: new StatewaveStore({ fetch }), subjectId: "run" });
      await shared.decide("planner", "Deprecate legacy-session-token.", {
        kind: "architectural_decision",
        target: "legacy-session-token",
      });
      const client = new StatewaveClient({ fetch });
      const { memories } = await client.searchMemories({ subjectId: "run" });
      expect(memories.map((memory) => [memory.kind, memory.metadata.kind])).toEqual([
        ["episode_summary", "architectural_decision"],
      ]);
      // A Statewave client asking for summaries finds the decision, as on a real server.
      const summaries = await client.searchMemories({ subjectId: "run", kind: "episode_summary" });
      expect(summaries.memories).toHaveLength(1);
      const timeline = await client.getTimeline("run");
      expect(new Set(timeline.memories.map((memory) => memory.kind))).toEqual(
        new Set(["episode_summary"]),
      );
      const bundle = await client.getContext({ subjectId: "run", task: "login" });
      expect(bundle.facts.every((memory) => memory.kind === "episode_summary")).toBe(true);

      const read = await shared.beforeActing("coder", "login");
      expect(read.decisions).toHaveLength(1);
      expect(read.decisions[0]?.kind).toBe("architectural_decision");
      expect(read.decisions[0]?.metadata).toEqual({
        source: "planner",
        episodeType: "architectural_decision",
        target: "legacy-session-token",
      });
      await shared.close();
    });

    it("round-trips a ~1 MiB string byte for byte (well under the 16 MiB body limit)", async () => {
      const { fetch } = await serve();
      const client = new StatewaveClient({ fetch });
      // Every UTF-8 width, emoji with ZWJ, RTL, U+2028 (29 bytes), and one control character:
      // a little over 1 MiB, as Statewave stores (the old 1 MiB body limit refused it).
      const unit = "aé€😀‍👩‍💻\u2028\u05d0";
      const text = `\u0001${unit.repeat(40_000)}`;
      expect(Buffer.byteLength(text)).toBeGreaterThan(1_000_000);
      const body = { text, nested: { "key with spaces": [text.slice(0, 10)] } };
      const created = await client.createEpisode({
        subjectId: "big",
        source: "a",
        type: "note",
        payload: body,
      });
      expect(created.payload).toEqual(body);
      const timeline = await client.getTimeline("big");
      expect(timeline.episodes[0]?.payload.text === text).toBe(true);
    });
  });
}
