/**
 * What one change costs `shared-ctx watch` on a long subject: the old way (re-read the whole
 * subject and rebuild the shared state on every change) against `followSubject` (apply the change
 * to the copy it holds). Prints the CPU time and timeline rows read per change.
 *
 *   node --import tsx scripts/bench-watch.ts [history=15000] [changes=50]
 */
import { cpuUsage } from "node:process";
import { EmbeddedStore } from "../src/context/embedded/embedded-store.js";
import { followSubject } from "../src/ui/data/follow-subject.js";
import { readFullTimeline } from "../src/ui/data/read-run.js";
import { readSharedState } from "../src/ui/data/read-shared-state.js";
import { buildSubjectView } from "../src/ui/format/subject-view.js";
import { countingReads } from "../test/support/counting-store.js";

const history = Number(process.argv[2] ?? 15_000);
const changes = Number(process.argv[3] ?? 50);

const base = new EmbeddedStore({ path: ":memory:" });
const inputs = Array.from({ length: history }, (_, index) => ({
  subjectId: "s",
  source: "writer",
  type: "note",
  payload: { content: `note ${index}` },
}));
for (let start = 0; start < inputs.length; start += 100) {
  await base.createEpisodesBatch(inputs.slice(start, start + 100));
}
await base.compileMemories("s");

/** `perChange` is called before each write and returns what to wait for after it. */
async function measure(
  label: string,
  perChange: () => () => Promise<void>,
  counts: { rows: number },
) {
  const rowsBefore = counts.rows;
  const before = cpuUsage();
  for (let index = 0; index < changes; index += 1) {
    const settled = perChange();
    await base.createEpisode({
      subjectId: "s",
      source: "writer",
      type: "note",
      payload: { content: `change ${index}` },
    });
    await settled();
  }
  const used = cpuUsage(before);
  const ms = (used.user + used.system) / 1000 / changes;
  const rows = (counts.rows - rowsBefore) / changes;
  process.stdout.write(
    `${label}: ${ms.toFixed(2)} ms CPU and ${rows.toFixed(0)} timeline rows per change (history ${history} episodes)\n`,
  );
}

{
  const { store, counts } = countingReads(base);
  await measure(
    "re-read per change (before)",
    () => async () => {
      const [timeline, state] = await Promise.all([
        readFullTimeline(store, "s"),
        readSharedState(store, "s"),
      ]);
      buildSubjectView(timeline, state);
    },
    counts,
  );
}
{
  const { store, counts } = countingReads(base);
  const follower = await followSubject(store, "s");
  await measure(
    "followSubject (now)",
    () => {
      const shown = new Promise<void>((resolve) => {
        follower.listen(
          () => resolve(),
          () => resolve(),
        );
      });
      return () => shown;
    },
    counts,
  );
  await follower.close();
}
await base.close();
