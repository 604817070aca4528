import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import type { CliDeps } from "../../src/cli/cli-deps.js";
import { makePromoteCommand } from "../../src/cli/commands/promote.js";
import { ExitCode } from "../../src/cli/exit-codes.js";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { readWholeTimeline } from "../../src/promotion/read-decisions.js";
import { useTempDir } from "../support/temp-dir.js";
import { runCommand } from "./cli-harness.js";

const kind = "architectural_decision";

/** A project with two decisions; a run with one new, one superseding and one conflicting. */
async function seed(store: ContextStore) {
  await store.createEpisode({
    subjectId: "project",
    source: "alice",
    type: kind,
    payload: { content: "Use Postgres", target: "database" },
  });
  await store.createEpisode({
    subjectId: "project",
    source: "alice",
    type: kind,
    payload: { content: "Sessions in cookies", target: "auth" },
  });
  const project = await store.compileMemories("project");
  const auth = project.memories.find((memory) => memory.content === "Sessions in cookies");
  const run = new SharedContext({ store, subjectId: "monday" });
  const ids: string[] = [];
  for (const [agent, content, target, read] of [
    ["coder", "Cache with Redis", "cache", []],
    ["coder", "Use JWT", "auth", auth ? [auth.id] : []],
    ["planner", "Use SQLite", "database", []],
  ] as const) {
    const { memories } = await run.decide(agent, content, { kind, target, readMemoryIds: read });
    ids.push(memories[0]?.id ?? "");
  }
  await run.close();
  return ids;
}

/** The promotion reviews recorded on the "project" subject of the store at `db`. */
async function promotionReviewsIn(db: string, project = "project") {
  const store = new EmbeddedStore({ path: db });
  const timeline = await readWholeTimeline(store, project);
  await store.close();
  return timeline.episodes.filter((episode) => episode.type === "promotion_review");
}

describe("shared-ctx promote", () => {
  const tempDir = useTempDir("shared-ctx-promote-");

  async function seeded(): Promise<{ db: string; ids: string[] }> {
    const db = join(tempDir(), "store.db");
    const store = new EmbeddedStore({ path: db });
    try {
      return { db, ids: await seed(store) };
    } finally {
      await store.close();
    }
  }

  const promote = (db: string, ...args: string[]) =>
    runCommand(makePromoteCommand, ["promote", ...args, "--db", db], { env: { USER: "dana" } });

  it("prints the plan and writes nothing with --dry-run, exiting 5 for the held conflict", async () => {
    const { db, ids } = await seeded();
    const result = await promote(db, "monday", "--into", "project", "--dry-run");
    expect(result.exitCode).toBe(ExitCode.promotionHeld);
    expect(result.stdout).toContain(`new        ${ids[0]}  on cache`);
    expect(result.stdout).toContain(`supersedes ${ids[1]}  on auth`);
    expect(result.stdout).toContain(`conflict   ${ids[2]}  on database`);
    expect(result.stdout).toContain('planner (agent): "Use SQLite"');
    expect(result.stdout).toMatch(
      /conflicts with \S+ alice \(agent\): "Use Postgres" \(planner never read it\)/,
    );
    expect(result.stdout).toContain("Dry run: nothing was written.");
    expect(result.stderr).toContain("1 conflicting decision is held");
    const store = new EmbeddedStore({ path: db });
    expect((await readWholeTimeline(store, "project")).episodes).toHaveLength(2);
    await store.close();
  });

  it("applies the rest, holds the conflict (exit 5), then applies it once approved (exit 0)", async () => {
    const { db, ids } = await seeded();
    const first = await promote(db, "monday", "--into", "project");
    expect(first.exitCode).toBe(ExitCode.promotionHeld);
    expect(first.stdout).toContain("Applied: 2 promoted, 0 rejected, 0 verdicts recorded.");
    expect(first.stdout).toContain(`Held: 1 conflicting (${ids[2]})`);

    const second = await promote(
      db,
      "monday",
      "--into",
      "project",
      "--approve",
      ids[2] ?? "",
      "--json",
    );
    expect(second.exitCode).toBe(ExitCode.ok);
    const document = JSON.parse(second.stdout);
    expect(document.items.map((item: { outcome: string }) => item.outcome)).toStrictEqual([
      "unchanged",
      "unchanged",
      "promoted",
    ]);
    expect(document.verdicts).toMatchObject([
      { by: "dana", verdict: "approved", memoryId: ids[2] },
    ]);
    expect(document.held).toStrictEqual([]);

    const third = await promote(db, "monday", "--into", "project", "--json");
    expect(third.exitCode).toBe(ExitCode.ok);
    expect(
      JSON.parse(third.stdout).items.map((item: { status: string }) => item.status),
    ).toStrictEqual(["unchanged", "unchanged", "unchanged"]);
  });

  it("records a rejection under --approver and exits 0 once nothing is held", async () => {
    const { db, ids } = await seeded();
    const result = await promote(
      db,
      "monday",
      "--into",
      "project",
      "--reject",
      ids[2] ?? "",
      "--approver",
      "erin",
    );
    expect(result.exitCode).toBe(ExitCode.ok);
    expect(result.stdout).toContain("rejected (recorded as");
    expect(await promotionReviewsIn(db)).toMatchObject([
      { source: "erin", payload: { verdict: "rejected", memoryId: ids[2] } },
    ]);
  });

  it.each([
    [["nobody", "--into", "project"], /no run or subject "nobody"/],
    [["monday", "--into", "monday"], /into itself/],
    [
      ["monday", "--into", "project", "--approve", "mem-nope"],
      /--approve "mem-nope" is not an item/,
    ],
  ])("refuses %j with exit 2 and a message naming the input", async (args, message) => {
    const { db } = await seeded();
    const result = await promote(db, ...args);
    expect(result.exitCode).toBe(ExitCode.usage);
    expect(result.stderr).toMatch(message);
  });
});

describe("shared-ctx promote: item ids by prefix, and a few of hundreds named", () => {
  const tempDir = useTempDir("shared-ctx-promote-ids-");

  /** A session of `count` decisions on targets of their own: all of them new items. */
  async function many(count: number): Promise<{ db: string; ids: string[] }> {
    const db = join(tempDir(), "store.db");
    const store = new EmbeddedStore({ path: db });
    const run = new SharedContext({ store, subjectId: "session" });
    try {
      const ids: string[] = [];
      for (let index = 0; index < count; index += 1) {
        const { memories } = await run.decide("coder", `Decision ${index}`, {
          kind,
          target: `modules/m${index}`,
        });
        ids.push(memories[0]?.id ?? "");
      }
      return { db, ids };
    } finally {
      await run.close();
      await store.close();
    }
  }

  const promote = (db: string, ...args: string[]) =>
    runCommand(makePromoteCommand, ["promote", ...args, "--db", db], { env: { USER: "dana" } });

  it("takes a unique prefix of an item id for --reject", async () => {
    const { db, ids } = await many(3);
    const id = ids[1] ?? "";
    const result = await promote(db, "session", "--into", "p", "--reject", id.slice(0, 8));
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(ExitCode.ok);
    expect(await promotionReviewsIn(db, "p")).toMatchObject([
      { payload: { verdict: "rejected", memoryId: id } },
    ]);
  });

  it("names five of the items, not all of them, for an unknown id (exit 2)", async () => {
    const { db, ids } = await many(40);
    const result = await promote(db, "session", "--into", "p", "--reject", "zz-unknown");
    expect(result.exitCode).toBe(ExitCode.usage);
    expect(result.stderr).toMatch(/--reject "zz-unknown" is not an item .* and 35 more\n$/);
    expect(ids.filter((id) => result.stderr.includes(id))).toHaveLength(5);
  });

  it("refuses an ambiguous prefix, naming the items it starts (exit 2)", async () => {
    const { db, ids } = await many(40);
    // The shortest prefix of hex ids is one digit: 40 ids over 16 digits share some first digit
    // (not always the smallest id's: take one that two ids start with).
    const digit =
      [...ids].sort().find((id, index, sorted) => sorted[index + 1]?.[0] === id[0])?.[0] ?? "";
    const result = await promote(db, "session", "--into", "p", "--approve", digit);
    expect(result.exitCode).toBe(ExitCode.usage);
    expect(result.stderr).toContain(`--approve "${digit}" is ambiguous: it starts `);
    const named = ids.filter((id) => result.stderr.includes(id));
    expect(named.length).toBeGreaterThan(1);
    expect(named.length).toBeLessThanOrEqual(5);
    expect(named.every((id) => id.startsWith(digit))).toBe(true);
  });
});

describe("shared-ctx promote in a terminal", () => {
  const tempDir = useTempDir("shared-ctx-promote-tty-");

  it("asks about each held conflict and records the answer", async () => {
    const db = join(tempDir(), "store.db");
    const seedStore = new EmbeddedStore({ path: db });
    const ids = await seed(seedStore);
    await seedStore.close();
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    let screen = "";
    let answered = false;
    const stdout = Object.assign(
      new Writable({
        write(chunk: Buffer | string, _encoding, callback) {
          screen += chunk.toString();
          // Answer the prompt as a person would, once it is shown.
          if (!answered && screen.includes(`Approve, reject or hold ${ids[2]}?`)) {
            answered = true;
            stdin.write("a\n");
          }
          callback();
        },
      }),
      { isTTY: true, columns: 120 },
    );
    const deps: CliDeps = {
      stdout,
      stderr: { write: () => true },
      stdin: stdin as unknown as NodeJS.ReadStream,
      env: { USER: "dana" },
      cwd: process.cwd(),
      signal: new AbortController().signal,
    };
    const program = new Command("shared-ctx").exitOverride().addCommand(makePromoteCommand(deps));
    await program.parseAsync(["promote", "monday", "--into", "project", "--db", db], {
      from: "user",
    });
    expect(screen).toContain("Applied: 3 promoted, 0 rejected, 1 verdict recorded.");
    expect(await promotionReviewsIn(db)).toMatchObject([
      { source: "dana", payload: { verdict: "approved", memoryId: ids[2] } },
    ]);
  });
});
