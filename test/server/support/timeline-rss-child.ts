/**
 * Child process of `timeline-memory.e2e.test.ts`: `write <db> <count>` stores `count` episodes of
 * 1 MiB each in one subject; `read <db>` asks `GET /v1/timeline?limit=10000` of it, the way
 * `serve` answers, and prints what it got and the process's peak RSS, as JSON.
 */
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { createApp } from "../../../src/server/app.js";

const [mode, path, count] = process.argv.slice(2);
if (path === undefined) throw new Error("usage: write|read <db> [count]");
const store = new EmbeddedStore({ path });
if (mode === "write") {
  const content = "x".repeat(1024 * 1024);
  for (let index = 0; index < Number(count); index += 1) {
    await store.createEpisode({
      subjectId: "big",
      source: "agent",
      type: "implementation_note",
      payload: { content, index },
    });
  }
  process.stdout.write(JSON.stringify({ written: Number(count) }));
} else {
  const app = createApp({ store });
  const response = await app.fetch(
    new Request("http://test/v1/timeline?subject_id=big&limit=10000"),
  );
  const text = await response.text();
  const body = JSON.parse(text) as { episodes: unknown[] };
  process.stdout.write(
    JSON.stringify({
      status: response.status,
      episodes: body.episodes.length,
      bytes: Buffer.byteLength(text),
      nextOffset: response.headers.get("x-next-offset"),
      // maxRSS is in KiB.
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
}
await store.close();
