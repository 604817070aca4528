import { describe, expect, it } from "vitest";
import { compileEpisode } from "../../src/context/compile-memories.js";
import { storableDraft, storableText } from "../../src/context/storable-text.js";

describe("storableText", () => {
  it("drops U+0000, replaces an unpaired surrogate, and keeps the rest as it is", () => {
    expect(storableText("a\u0000b\u0000")).toBe("ab");
    expect(storableText("x\ud800y\udc00")).toBe("x\ufffdy\ufffd");
    const kept = "line\nbreak\u0001 😀";
    expect(storableText(kept)).toBe(kept);
    // The global pattern keeps no state between calls.
    expect(storableText("\u0000")).toBe("");
    expect(storableText("\u0000")).toBe("");
  });
});

describe("storableDraft", () => {
  it("makes a memory's content, summary and target storable, and leaves a clean draft alone", () => {
    const dirty = compileEpisode({
      type: "architectural_decision",
      source: "a",
      payload: { content: "use\u0000 rs256", target: "auth\u0000" },
    });
    expect(storableDraft(dirty)).toMatchObject({
      content: "use rs256",
      summary: "use rs256",
      target: "auth",
      metadata: { target: "auth" },
    });
    const clean = compileEpisode({ type: "note", source: "a", payload: { content: "fine" } });
    expect(storableDraft(clean)).toBe(clean);
    expect(storableDraft(null)).toBeNull();
  });
});
