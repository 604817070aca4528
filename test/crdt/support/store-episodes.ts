import type { ContextStore, CreateEpisodeInput } from "../../../src/context/context-store.js";

/** The types of subject run-1's episodes, in timeline order. */
export async function episodeTypes(store: ContextStore): Promise<string[]> {
  const timeline = await store.getTimeline("run-1", { limit: 1000 });
  return timeline.episodes.map((episode) => episode.type);
}

/** A `state_update` episode whose bytes are not a Loro update. */
export function corruptUpdate(peer: string, from: number, to: number): CreateEpisodeInput {
  return {
    subjectId: "run-1",
    source: "intruder",
    type: "state_update",
    payload: { update: Buffer.from("not a loro update").toString("base64"), peer, from, to },
  };
}

/** `store` whose `createEpisode` rejects episodes of `type`. */
export function failingFor(store: ContextStore, type: string, failure: Error): ContextStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "createEpisode") {
        const createEpisode: ContextStore["createEpisode"] = (input, options) =>
          input.type === type ? Promise.reject(failure) : target.createEpisode(input, options);
        return createEpisode;
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
