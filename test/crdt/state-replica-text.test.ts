import { describe, expect, it } from "vitest";
import { replica } from "./support/replicas.js";

/** Writes each text to plan/notes in turn; returns the notes and the segments stored. */
function appendAll(texts: readonly string[]): { notes: unknown; segments: string[] } {
  const writer = replica();
  for (const text of texts) writer.write("alice", "plan", "notes", text);
  const attribution = writer.attribution("plan", "notes") as Array<{ text: string }>;
  return { notes: writer.get("plan", "notes"), segments: attribution.map((line) => line.text) };
}

describe("StateReplica text writes", () => {
  it.each<[string, string[], string[]]>([
    ["a read-modify-write stores the addition", ["one", "one\ntwo"], ["one", "two"]],
    [
      "a write from an older read stores what follows the part it read",
      ["one", "one\ntwo", "one\nthree"],
      ["one", "two", "three"],
    ],
    [
      "a write that repeats two of three segments stores the rest",
      ["one", "one\ntwo", "one\ntwo\nthree", "one\ntwo\nfour"],
      ["one", "two", "three", "four"],
    ],
    [
      "a text not starting with the first segment is appended whole",
      ["one", "zero"],
      ["one", "zero"],
    ],
    [
      "a text extending a segment without a line break is appended whole",
      ["one", "one two"],
      ["one", "one two"],
    ],
    ["the text already held adds nothing", ["one", "one\ntwo", "one\ntwo"], ["one", "two"]],
    ["an empty text adds nothing", ["one", ""], ["one"]],
    ["an older text already held adds nothing", ["one", "one\ntwo", "one"], ["one", "two"]],
  ])("%s", (_, texts, segments) => {
    const result = appendAll(texts);
    expect(result.segments).toStrictEqual(segments);
    expect(result.notes).toBe(segments.join("\n"));
  });

  it("a write returns whether it stored anything", () => {
    const writer = replica();
    expect(writer.write("alice", "plan", "notes", "one")).toBe(true);
    expect(writer.write("alice", "plan", "notes", "one")).toBe(false);
    expect(writer.writeUpdate("alice", "plan", "notes", "one")).toBeUndefined();
    expect(writer.ownCounter()).toBe(1);
  });
});
