import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { createApp } from "../../src/server/app.js";

describe("GET /v1/timeline's byte cap", () => {
  async function setUp(maxResponseBytes: number) {
    const store = new EmbeddedStore({ path: ":memory:" });
    await store.createEpisodesBatch(
      Array.from({ length: 30 }, (_, index) => ({
        subjectId: "s",
        source: "agent",
        type: "implementation_note",
        payload: { content: `${index} ${"x".repeat(1000)}` },
      })),
    );
    await store.compileMemories("s");
    return { store, app: createApp({ store, maxResponseBytes }) };
  }

  async function page(app: ReturnType<typeof createApp>, query: string) {
    const response = await app.fetch(new Request(`http://test/v1/timeline?subject_id=s&${query}`));
    const text = await response.text();
    return {
      status: response.status,
      bytes: Buffer.byteLength(text),
      next: response.headers.get("x-next-offset"),
      body: JSON.parse(text) as {
        subject_id: string;
        episodes: Array<{ payload: { content: string } }>;
        memories: Array<{ content: string }>;
      },
    };
  }

  it("cuts an answer before the cap, and X-Next-Offset pages through everything once, in order", async () => {
    const { store, app } = await setUp(8_000);
    const seen: string[] = [];
    const memories: string[] = [];
    let offset = 0;
    for (let pages = 0; pages < 30; pages += 1) {
      const answer = await page(app, `limit=10000&offset=${offset}`);
      expect(answer.status).toBe(200);
      expect(answer.bytes).toBeLessThanOrEqual(8_000);
      expect(answer.body.subject_id).toBe("s");
      seen.push(
        ...answer.body.episodes.map((episode) => episode.payload.content.split(" ")[0] ?? ""),
      );
      memories.push(...answer.body.memories.map((memory) => memory.content.split(" ")[0] ?? ""));
      if (answer.next === null) break;
      expect(Number(answer.next)).toBe(offset + answer.body.episodes.length);
      offset = Number(answer.next);
    }
    const all = Array.from({ length: 30 }, (_, index) => String(index));
    expect(seen).toEqual(all);
    expect(memories).toEqual(all);
    await store.close();
  });

  it("sends at least one row however small the cap, and no header when all fits", async () => {
    const { store, app } = await setUp(10);
    const tiny = await page(app, "limit=5");
    expect(tiny.body.episodes).toHaveLength(1);
    expect(tiny.next).toBe("1");
    const roomy = createApp({ store });
    const all = await roomy.fetch(
      new Request("http://test/v1/timeline?subject_id=s&limit=5&offset=28"),
    );
    expect(all.headers.get("x-next-offset")).toBeNull();
    expect(((await all.json()) as { episodes: unknown[] }).episodes).toHaveLength(2);
    await store.close();
  });
});
