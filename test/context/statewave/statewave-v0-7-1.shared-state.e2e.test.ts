import { afterEach, describe, expect, it } from "vitest";
import type { Episode } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { segmentSubject } from "../../../src/context/statewave/statewave-episode-log.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { Disputed, type Escalation, SharedState } from "../../../src/crdt/shared-state.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";
import { serveFetch } from "../../support/serve-fetch.js";
import { waitFor } from "../store-contract.js";

/**
 * Shared state and watch past a real Statewave v0.7.1's 100-episode timeline cap (emulated): each
 * store stands for another process, all talking to one server.
 */
/** The two servers: a capped v0.7.1 (emulated), and serve, which pages. */
const servers = [
  [
    "a Statewave v0.7.1 server (emulated)",
    () => ({ fetch: createStatewaveEmulator().clientFetch, capped: true }),
  ],
  [
    "shared-ctx serve",
    () => {
      const fetch = serveFetch({ store: new EmbeddedStore({ path: ":memory:" }) });
      return { fetch, capped: false };
    },
  ],
] as const;

describe("SharedState over HTTP, past 100 episodes", () => {
  const closing: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of closing.splice(0).reverse()) await item.close();
  });

  it.each(servers)(
    "on %s: a 600-episode run converges, escalates each divergence once and is followed live",
    async (_name, server) => {
      const { fetch, capped } = server();
      const connect = () => {
        const store = new StatewaveStore({ fetch, pollIntervalMs: 5 });
        closing.push(store);
        return store;
      };
      const follower = connect();
      const followed: Episode[] = [];
      const subscription = follower.watch("run-1", (change) => {
        if (change.type === "episode") followed.push(change.episode);
      });
      closing.push({ close: async () => subscription.close() });

      const open = async (agentId: string) => {
        let clock = 0;
        const state = await SharedState.open({
          store: connect(),
          subjectId: "run-1",
          agentId,
          now: () => ++clock,
        });
        closing.push(state);
        return state;
      };
      const a = await open("a");
      const b = await open("b");
      const raisedA: Escalation[] = [];
      const raisedB: Escalation[] = [];
      a.onEscalation((escalation) => raisedA.push(escalation));
      b.onEscalation((escalation) => raisedB.push(escalation));

      for (let index = 0; index < 300; index++) {
        await a.put("log", "a", [`a${index}`]);
        await b.put("log", "b", [`b${index}`]);
      }
      // Two replicas that have not seen each other's write: a genuine conflict, past the 600th episode.
      await Promise.all([a.put("plan", "token", "RS256"), b.put("plan", "token", "HS256")]);
      await a.sync();
      await b.sync();
      await a.sync();

      expect(a.toJSON()).toStrictEqual(b.toJSON());
      expect((a.get("log", "a") as string[]).length).toBe(300);
      expect((b.get("log", "a") as string[]).length).toBe(300);
      expect(a.get("plan", "token")).toBeInstanceOf(Disputed);
      expect(raisedA.map((escalation) => escalation.id)).toEqual(["plan/token#0"]);
      expect(raisedB.map((escalation) => escalation.id)).toEqual(["plan/token#0"]);

      // A late replica opens from the log alone.
      const late = await open("late");
      expect(late.toJSON()).toStrictEqual(a.toJSON());

      // The whole log pages with limit/offset; the server's own timeline still shows only 100.
      const reader = connect();
      const pages: Episode[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = await reader.getTimeline("run-1", { limit: 100, offset });
        pages.push(...page.episodes);
        if (page.episodes.length < 100) break;
      }
      expect(pages.length).toBeGreaterThan(600);
      expect(new Set(pages.map((episode) => episode.id)).size).toBe(pages.length);
      expect(pages.filter((episode) => episode.type === "escalation")).toHaveLength(1);
      if (capped) {
        expect((await reader.client.getTimeline("run-1")).episodes).toHaveLength(100);
        // The segments are hidden from the subject list, as Statewave hides `_snapshot/` subjects.
        const listed = (await reader.listSubjects()).subjects.map((subject) => subject.subjectId);
        expect(listed).toEqual(["run-1"]);
        const segment = await reader.client.getTimeline(segmentSubject("run-1", 1));
        expect(segment.episodes).toHaveLength(100);
      } else {
        // A server that pages needs no segments.
        const segment = await reader.client.getTimeline(segmentSubject("run-1", 1));
        expect(segment.episodes).toHaveLength(0);
      }

      await waitFor(() => expect(followed.length).toBe(pages.length), 10_000);
      expect(followed.map((episode) => episode.id)).toEqual(pages.map((episode) => episode.id));
    },
    120_000,
  );
});
