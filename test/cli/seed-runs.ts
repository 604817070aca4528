import { join } from "node:path";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { toRunEventEpisode } from "../../src/scenario/run-record.js";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { naiveCollisionEvents, statewaveAvoidedEvents } from "../support/fixtures/run-events.js";

/**
 * Writes a naive and a shared-context run into an embedded store file, as the runner would:
 * every event as a run_event episode, plus the Planner's decision compiled into a memory.
 */
export async function seedRuns(path: string): Promise<void> {
  let clock = Date.UTC(2025, 5, 1, 12, 0, 0);
  const now = () => {
    clock += 10;
    return new Date(clock);
  };
  const store = new EmbeddedStore({ path, now });
  try {
    const write = async (events: readonly ScenarioEvent[]) => {
      for (const event of events) {
        await store.createEpisode(toRunEventEpisode(event));
        if (event.type === "decision-write" && event.runId.startsWith("sw-")) {
          await store.createEpisode({
            subjectId: event.runId,
            source: event.agentId,
            type: event.kind,
            payload: { content: event.content, target: event.target, confidence: 0.9 },
          });
          await store.compileMemories(event.runId);
        }
      }
    };
    await write(naiveCollisionEvents());
    await write(statewaveAvoidedEvents());
  } finally {
    await store.close();
  }
}

/** The env of a CLI whose store is a fresh file in `tempDir()` holding the {@link seedRuns} runs. */
export async function seededEnv(tempDir: () => string): Promise<{ SHARED_CTX_DB: string }> {
  const db = join(tempDir(), "store.db");
  await seedRuns(db);
  return { SHARED_CTX_DB: db };
}
