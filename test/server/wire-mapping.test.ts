import { describe, expect, it } from "vitest";
import type { Episode, Memory } from "../../src/context/context-store.js";
import {
  compileJobToWire,
  compileResultToWire,
  contextBundleToWire,
  deleteSubjectToWire,
  episodeToWire,
  memoryToWire,
  subjectsToWire,
  timelineToWire,
  wireKindOf,
} from "../../src/server/wire-mapping.js";

const episode: Episode = {
  id: "e1",
  subjectId: "s",
  source: "agent",
  type: "note",
  payload: { text: "hi" },
  metadata: { m: 1 },
  provenance: { p: 2 },
  createdAt: "2026-01-01T00:00:00Z",
};

const episodeWire = {
  id: "e1",
  subject_id: "s",
  source: "agent",
  type: "note",
  payload: { text: "hi" },
  metadata: { m: 1 },
  provenance: { p: 2 },
  session_id: null,
  created_at: "2026-01-01T00:00:00Z",
};

function memory(kind: string, metadata: Memory["metadata"] = { tag: "x" }): Memory {
  return {
    id: `m-${kind}`,
    subjectId: "s",
    kind: kind as Memory["kind"],
    content: "content",
    summary: "summary",
    confidence: 0.7,
    validFrom: "2026-01-01T00:00:00Z",
    validTo: null,
    sourceEpisodeIds: ["e1"],
    metadata,
    status: "active",
    createdAt: "2026-01-02T00:00:00Z",
    updatedAt: "2026-01-03T00:00:00Z",
  };
}

const memoryWire = (kind: string, metadata: unknown = { tag: "x" }, id = `m-${kind}`) => ({
  id,
  subject_id: "s",
  kind,
  content: "content",
  summary: "summary",
  confidence: 0.7,
  valid_from: "2026-01-01T00:00:00Z",
  valid_to: null,
  source_episode_ids: ["e1"],
  metadata,
  status: "active",
  created_at: "2026-01-02T00:00:00Z",
  updated_at: "2026-01-03T00:00:00Z",
});

describe("wire mapping (store results -> Statewave's snake_case shapes)", () => {
  it("writes an episode with session_id null when unset, and as given when set", () => {
    expect(episodeToWire({ ...episode, extra: "dropped" } as Episode)).toEqual(episodeWire);
    expect(episodeToWire({ ...episode, sessionId: "sess" })).toEqual({
      ...episodeWire,
      session_id: "sess",
    });
  });

  it.each(["profile_fact", "episode_summary", "procedure", "artifact_ref"])(
    "keeps Statewave's kind %s and its metadata as is",
    (kind) => {
      expect(wireKindOf(kind)).toBe(kind);
      expect(memoryToWire(memory(kind))).toEqual(memoryWire(kind));
    },
  );

  it.each(["architectural_decision", "implementation_note", "review_finding", "constructor"])(
    "sends the richer kind %s as episode_summary, keeping it in metadata.kind",
    (kind) => {
      expect(wireKindOf(kind)).toBe("episode_summary");
      expect(memoryToWire(memory(kind))).toEqual(
        memoryWire("episode_summary", { tag: "x", kind }, `m-${kind}`),
      );
    },
  );

  it("maps compile results and jobs, with the optional job fields only when present", () => {
    expect(
      compileResultToWire({ subjectId: "s", memoriesCreated: 1, memories: [memory("procedure")] }),
    ).toEqual({ subject_id: "s", memories_created: 1, memories: [memoryWire("procedure")] });
    expect(compileJobToWire({ jobId: "j", status: "pending", subjectId: "s" })).toEqual({
      job_id: "j",
      status: "pending",
      subject_id: "s",
    });
    expect(
      compileJobToWire({
        jobId: "j",
        status: "completed",
        subjectId: "s",
        memoriesCreated: 0,
        memories: [memory("review_finding")],
      }),
    ).toEqual({
      job_id: "j",
      status: "completed",
      subject_id: "s",
      memories_created: 0,
      memories: [
        memoryWire("episode_summary", { tag: "x", kind: "review_finding" }, "m-review_finding"),
      ],
    });
    expect(
      compileJobToWire({ jobId: "j", status: "failed", subjectId: "s", error: "it broke" }),
    ).toEqual({ job_id: "j", status: "failed", subject_id: "s", error: "it broke" });
  });

  it("maps a context bundle, its sessions included", () => {
    const provenance = {
      fact_ids: ["f"],
      summary_ids: [],
      procedure_ids: ["p"],
      episode_ids: ["e1"],
    };
    expect(
      contextBundleToWire({
        subjectId: "s",
        task: "t",
        facts: [memory("profile_fact")],
        episodes: [episode],
        procedures: [memory("procedure")],
        provenance,
        assembledContext: "## Task\nt\n",
        tokenEstimate: 3,
        sessions: [{ sessionId: "a", episodeCount: 2, firstAt: "x", lastAt: "y" }],
      }),
    ).toEqual({
      subject_id: "s",
      task: "t",
      facts: [memoryWire("profile_fact")],
      episodes: [episodeWire],
      procedures: [memoryWire("procedure")],
      provenance,
      assembled_context: "## Task\nt\n",
      token_estimate: 3,
      sessions: [{ session_id: "a", episode_count: 2, first_at: "x", last_at: "y" }],
    });
  });

  it("maps timelines, subject pages (total = all subjects) and deletions", () => {
    expect(
      timelineToWire({ subjectId: "s", episodes: [episode], memories: [memory("profile_fact")] }),
    ).toEqual({ subject_id: "s", episodes: [episodeWire], memories: [memoryWire("profile_fact")] });
    expect(
      subjectsToWire({ subjects: [{ subjectId: "s", episodeCount: 2, memoryCount: 1 }], total: 9 }),
    ).toEqual({ subjects: [{ subject_id: "s", episode_count: 2, memory_count: 1 }], total: 9 });
    expect(deleteSubjectToWire({ subjectId: "s", episodesDeleted: 2, memoriesDeleted: 3 })).toEqual(
      {
        subject_id: "s",
        episodes_deleted: 2,
        memories_deleted: 3,
      },
    );
  });
});
