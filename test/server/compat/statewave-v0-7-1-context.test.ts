import { describe, expect, it } from "vitest";
import { emulatorClient } from "./emulator-client.js";

interface Bundle {
  subject_id: string;
  task: string;
  facts: { id: string; kind: string; content: string }[];
  episodes: { id: string }[];
  procedures: unknown[];
  provenance: {
    fact_ids: string[];
    summary_ids: string[];
    procedure_ids: string[];
    episode_ids: string[];
  };
  assembled_context: string;
  token_estimate: number;
  sessions: unknown[];
}

/** The lines of one `## <title>` section of an assembled context. */
function section(bundle: Bundle, title: string): string[] {
  const blocks = bundle.assembled_context.split("\n\n");
  const block = blocks.find((text) => text.startsWith(`## ${title}\n`));
  return block === undefined ? [] : block.split("\n").slice(1).filter(Boolean);
}

describe("the Statewave v0.7.1 emulation: POST /v1/context", () => {
  it("assembles the task, facts, history and raw interactions in v0.7.1's layout", async () => {
    const { post, episode } = emulatorClient();
    await post("/v1/episodes", episode({ payload: { text: "My name is Alice Chen" } }));
    await post("/v1/memories/compile", { subject_id: "s" });
    await post("/v1/episodes", episode({ source: "agent", payload: { text: "deployed it" } }));
    const answer = await post("/v1/context", { subject_id: "s", task: "T" });
    expect(answer.status).toBe(200);
    const assembled =
      "## Task\nT\n\n## About this user\n- My name is Alice Chen\n\n" +
      "## Recent history\n- My name is Alice Chen\n\n" +
      "## Recent interactions\n- [agent/note] deployed it\n";
    expect(answer.body).toEqual({
      subject_id: "s",
      task: "T",
      facts: [
        expect.objectContaining({ id: "id-3", kind: "profile_fact" }),
        expect.objectContaining({ id: "id-2", kind: "episode_summary" }),
      ],
      episodes: [expect.objectContaining({ id: "id-4", source: "agent", type: "note" })],
      procedures: [],
      provenance: {
        fact_ids: ["id-3"],
        summary_ids: ["id-2"],
        procedure_ids: [],
        episode_ids: ["id-4"],
      },
      assembled_context: assembled,
      token_estimate: Math.ceil(assembled.length / 4),
      sessions: [],
    });
  });

  it("answers only the task when the subject has nothing", async () => {
    const { post } = emulatorClient();
    const answer = await post("/v1/context", { subject_id: "nobody", task: "do it" });
    expect((answer.body as Bundle).assembled_context).toBe("## Task\ndo it\n");
    expect(answer.body).toMatchObject({ facts: [], episodes: [], token_estimate: 4 });
  });

  it("cleans chat summaries to their first and last lines", async () => {
    const { post, episode } = emulatorClient();
    const messages = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "middle" },
      { role: "system", content: "bye now" },
    ];
    await post("/v1/episodes", episode({ payload: { messages } }));
    await post("/v1/memories/compile", { subject_id: "s" });
    const bundle = (await post("/v1/context", { subject_id: "s", task: "x" })).body as Bundle;
    expect(section(bundle, "Recent history")).toEqual(["- hi → bye now"]);
  });

  it("leaves out episodes a summary already covers, and shows ones without text as such", async () => {
    const { post, episode } = emulatorClient();
    await post("/v1/episodes/batch", {
      episodes: [episode({ payload: { text: "covered text" } }), episode({ payload: { n: 1 } })],
    });
    await post("/v1/memories/compile", { subject_id: "s" });
    const bundle = (await post("/v1/context", { subject_id: "s", task: "x" })).body as Bundle;
    expect(section(bundle, "Recent interactions")).toEqual(["- [user/note] (no text content)"]);
    expect(bundle.provenance.episode_ids).toEqual(["id-2"]);
  });

  it("shows at most 150 code points of an episode", async () => {
    const { post, episode } = emulatorClient();
    await post("/v1/episodes", episode({ payload: { text: "😀".repeat(160) } }));
    const bundle = (await post("/v1/context", { subject_id: "s", task: "x" })).body as Bundle;
    expect(section(bundle, "Recent interactions")).toEqual([`- [user/note] ${"😀".repeat(150)}`]);
  });

  it("takes the 30 oldest episodes of the subject only", async () => {
    const { post, episode } = emulatorClient();
    await post("/v1/episodes", episode({ subject_id: "other" }));
    await post("/v1/episodes/batch", {
      episodes: Array.from({ length: 31 }, (_, index) =>
        episode({ payload: { text: `episode number ${String(index).padStart(2, "0")} here` } }),
      ),
    });
    const bundle = (await post("/v1/context", { subject_id: "s", task: "x" })).body as Bundle;
    const lines = section(bundle, "Recent interactions");
    expect(lines).toHaveLength(30);
    expect(lines[0]).toBe("- [user/note] episode number 00 here");
    expect(lines.join("\n")).not.toContain("episode number 30");
    expect(lines).toContain("- [user/note] episode number 29 here");
    expect(lines.join("\n")).not.toContain("hello");
  });

  it("ranks episodes: agent sources and action types up, short texts down, ties in order", async () => {
    const { post, episode } = emulatorClient();
    const long = (name: string) => `${name} is twenty-plus chars`;
    await post("/v1/episodes/batch", {
      episodes: [
        episode({ payload: { text: "nineteen characters" } }),
        episode({ payload: { text: "exactly twenty chars" } }),
        episode({ payload: { text: long("plain") } }),
        episode({ source: "agent", payload: { text: long("agent") } }),
        episode({ type: "action", payload: { text: long("action") } }),
        episode({ source: "system", type: "tool_call", payload: { text: long("both") } }),
        episode({ source: "assistant", payload: { text: long("assistant") } }),
        episode({ source: "tool", payload: { text: long("tool") } }),
        episode({ type: "tool_call", payload: { text: long("call") } }),
      ],
    });
    const bundle = (await post("/v1/context", { subject_id: "s", task: "zzz" })).body as Bundle;
    expect(section(bundle, "Recent interactions")).toEqual([
      `- [agent/note] ${long("agent")}`,
      `- [user/action] ${long("action")}`,
      `- [system/tool_call] ${long("both")}`,
      `- [assistant/note] ${long("assistant")}`,
      `- [tool/note] ${long("tool")}`,
      `- [user/tool_call] ${long("call")}`,
      "- [user/note] exactly twenty chars",
      `- [user/note] ${long("plain")}`,
      "- [user/note] nineteen characters",
    ]);
  });

  it("ranks newer and task-relevant episodes first", async () => {
    let clock = 1000;
    const { post, episode } = emulatorClient({ now: () => clock });
    await post("/v1/episodes", episode({ payload: { text: "the older episode text" } }));
    clock = 2000;
    await post("/v1/episodes", episode({ payload: { text: "the newer episode text" } }));
    const byTime = (await post("/v1/context", { subject_id: "s", task: "zzz" })).body as Bundle;
    expect(section(byTime, "Recent interactions")).toEqual([
      "- [user/note] the newer episode text",
      "- [user/note] the older episode text",
    ]);
    const byTask = (await post("/v1/context", { subject_id: "s", task: "older" })).body as Bundle;
    expect(section(byTask, "Recent interactions")[0]).toBe("- [user/note] the older episode text");
  });

  it("ranks facts by recency plus relevance to the task, ties newest first", async () => {
    let clock = 1000;
    const { post, episode } = emulatorClient({ now: () => clock });
    for (const [time, text] of [
      [1000, "I use vim"],
      [1900, "I prefer tabs"],
      [2000, "I live in Paris"],
    ] as const) {
      clock = time;
      await post("/v1/episodes", episode({ payload: { text } }));
      await post("/v1/memories/compile", { subject_id: "s" });
    }
    const facts = async (task: string) =>
      section(
        (await post("/v1/context", { subject_id: "s", task })).body as Bundle,
        "About this user",
      );
    // Recency runs 0 (oldest) .. 4.5 .. 5 (newest); a fully relevant fact gains 5.
    expect(await facts("zzz")).toEqual(["- I live in Paris", "- I prefer tabs", "- I use vim"]);
    expect(await facts("tabs")).toEqual(["- I prefer tabs", "- I live in Paris", "- I use vim"]);
    expect(await facts("vim")).toEqual(["- I live in Paris", "- I use vim", "- I prefer tabs"]);
  });

  it("spends max_tokens on the best-ranked lines: facts before episodes, 10 tokens of headroom", async () => {
    const { post, episode } = emulatorClient();
    await post("/v1/episodes", episode({ payload: { text: "My name is Alice Chen" } }));
    await post("/v1/memories/compile", { subject_id: "s" });
    await post(
      "/v1/episodes",
      episode({ source: "agent", payload: { text: "a long agent episode" } }),
    );
    // Header "## Task\nzzz\n" costs 3 tokens, the fact line "- My name is Alice Chen" 6.
    const context = async (maxTokens: unknown) =>
      (await post("/v1/context", { subject_id: "s", task: "zzz", max_tokens: maxTokens }))
        .body as Bundle;
    const justEnough = await context(19);
    expect(justEnough.assembled_context).toBe(
      "## Task\nzzz\n\n## About this user\n- My name is Alice Chen\n",
    );
    expect(justEnough.provenance).toEqual({
      fact_ids: ["id-3"],
      summary_ids: [],
      procedure_ids: [],
      episode_ids: [],
    });
    expect((await context(18)).assembled_context).toBe("## Task\nzzz\n");
    const everything = await context("19");
    expect(everything.provenance.episode_ids).toEqual(["id-4"]);
    expect(everything.provenance.summary_ids).toEqual(["id-2"]);
  });

  it("gives active memories 3 points over episodes", async () => {
    const { post, episode } = emulatorClient();
    await post("/v1/episodes", episode({ payload: { text: "My name is Alice Chen" } }));
    await post("/v1/memories/compile", { subject_id: "s" });
    await post(
      "/v1/episodes",
      episode({ source: "agent", payload: { text: "deploy now to production please" } }),
    );
    // Fact 10+5+3 = 18, episode 3+5+5 (relevance)+2 = 15, summary 5+5+3 = 13; the episode's
    // 12-token line does not fit after the fact's 6 within 28, the summary's 6 does.
    const bundle = (await post("/v1/context", { subject_id: "s", task: "deploy", max_tokens: 28 }))
      .body as Bundle;
    expect(bundle.provenance).toEqual({
      fact_ids: ["id-3"],
      summary_ids: ["id-2"],
      procedure_ids: [],
      episode_ids: [],
    });
  });

  it("keeps to 4000 tokens by default, skipping lines that do not fit and trying the next", async () => {
    const { post, episode } = emulatorClient();
    await post("/v1/episodes/batch", {
      episodes: Array.from({ length: 10 }, (_, index) =>
        episode({ payload: { text: `I use ${"x".repeat(2000)}${index}` } }),
      ),
    });
    await post("/v1/memories/compile", { subject_id: "s" });
    const bundle = (await post("/v1/context", { subject_id: "s", task: "zzz" })).body as Bundle;
    // Facts (2008-character lines, 502 tokens) rank first: 7 fit; then 3 of the 127-token summaries.
    expect(bundle.provenance.fact_ids).toHaveLength(7);
    expect(bundle.provenance.summary_ids).toHaveLength(3);
    expect(bundle.token_estimate).toBeLessThanOrEqual(4000);
  });

  it("takes at most 50 facts and 30 summaries, newest first", async () => {
    const { post, episode } = emulatorClient();
    const letters = "abcdefghijklmnopqrstuvwxyz";
    const names = Array.from(
      { length: 51 },
      (_, index) => `Na${letters[index % 26]}${letters[Math.floor(index / 26)]}`,
    );
    await post("/v1/episodes/batch", {
      episodes: names.map((name) => episode({ payload: { text: `My name is ${name}` } })),
    });
    await post("/v1/memories/compile", { subject_id: "s" });
    const bundle = (await post("/v1/context", { subject_id: "s", task: "zzz" })).body as Bundle;
    const facts = section(bundle, "About this user");
    expect(facts).toHaveLength(50);
    expect(facts[0]).toBe(`- My name is ${names[0]}`);
    expect(facts).not.toContain(`- My name is ${names[50]}`);
    expect(section(bundle, "Recent history")).toHaveLength(30);
    expect(bundle.facts).toHaveLength(80);
  });

  it("keeps to the subject's active memories and its own episodes", async () => {
    const { post, episode } = emulatorClient();
    await post(
      "/v1/episodes",
      episode({ subject_id: "other", payload: { text: "My name is Zed Other" } }),
    );
    await post("/v1/memories/compile", { subject_id: "other" });
    await post(
      "/v1/episodes",
      episode({ subject_id: "other", payload: { text: "not compiled yet" } }),
    );
    await post("/v1/episodes", episode({ payload: { text: "one two three four" } }));
    await post("/v1/memories/compile", { subject_id: "s" });
    await post("/v1/episodes", episode({ payload: { text: "one two three four five" } }));
    await post("/v1/memories/compile", { subject_id: "s" });
    const bundle = (await post("/v1/context", { subject_id: "s", task: "x" })).body as Bundle;
    expect(bundle.assembled_context).toBe(
      "## Task\nx\n\n## Recent history\n- one two three four five\n\n" +
        // Only active summaries cover their episodes: the superseded one's episode shows raw.
        "## Recent interactions\n- [user/note] one two three four\n",
    );
  });

  it("answers an episode whose messages are not a list with a 500", async () => {
    const { post, episode } = emulatorClient();
    await post("/v1/episodes", episode({ payload: { messages: { role: "user" } } }));
    const answer = await post("/v1/context", { subject_id: "s", task: "x" });
    expect(answer).toMatchObject({ status: 500, body: { error: { code: "internal_error" } } });
  });
});
