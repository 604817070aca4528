import type { CreateEpisodeInput } from "../context/context-store.js";

/**
 * The benchmarks' data set: agent-like episodes and tasks from a seeded PRNG, the same on every
 * run, so figures of two runs measure the code, not the data.
 */

/** A small seeded PRNG (mulberry32): the same data set on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const domainWords = (
  "auth token session cookie jwt login logout password hash bcrypt cache redis database schema " +
  "migration index query api endpoint route handler middleware validation error retry timeout " +
  "queue worker job payment invoice user account profile email notification webhook config " +
  "deploy docker build test fixture mock coverage lint format release version upload storage " +
  "bucket search ranking frontend button form modal layout theme"
).split(" ");
const verbs = "use adopt implement fix refactor remove add document review verify".split(" ");

/** Agent-like episodes: decisions with targets (so supersede happens), notes, findings, chat, state. */
export function makeEpisodes(
  subjectId: string,
  count: number,
  random: () => number,
): CreateEpisodeInput[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const episodes: CreateEpisodeInput[] = [];
  for (let index = 0; index < count; index += 1) {
    const words = [pick(verbs), pick(domainWords), pick(domainWords), pick(domainWords)];
    // A long tail of rare words, like identifiers and file names in real notes.
    for (let filler = 0; filler < 8; filler += 1) words.push(`w${Math.floor(random() * 5000)}`);
    const content = `${words.join(" ")} (step ${index})`;
    const roll = random();
    const source = `agent-${Math.floor(random() * 8)}`;
    if (roll < 0.1) {
      episodes.push({
        subjectId,
        source,
        type: "architectural_decision",
        payload: { content, target: `area.${pick(domainWords)}` },
      });
    } else if (roll < 0.25) {
      episodes.push({ subjectId, source, type: "review_finding", payload: { content } });
    } else if (roll < 0.7) {
      episodes.push({ subjectId, source, type: "implementation_note", payload: { content } });
    } else if (roll < 0.9) {
      episodes.push({ subjectId, source, type: "message", payload: { text: content } });
    } else {
      episodes.push({ subjectId, source, type: "state_update", payload: { update: "AAEC" } });
    }
  }
  return episodes;
}

export function benchTasks(random: () => number): string[] {
  const pick = (items: readonly string[]) => items[Math.floor(random() * items.length)] as string;
  return Array.from(
    { length: 20 },
    () => `implement the ${pick(domainWords)} ${pick(domainWords)} for ${pick(domainWords)}`,
  );
}
