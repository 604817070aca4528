import { describe, expect, it } from "vitest";
import { CompileEpisodeError } from "../../../src/context/errors/compile-episode-error.js";
import { CompileJobNotFoundError } from "../../../src/context/errors/compile-job-not-found-error.js";
import { CompileTimeoutError } from "../../../src/context/errors/compile-timeout-error.js";
import { StoreClosedError } from "../../../src/context/errors/store-closed-error.js";
import { StoreSchemaError } from "../../../src/context/errors/store-schema-error.js";
import { StoreValidationError } from "../../../src/context/errors/store-validation-error.js";
import { SharedCtxError } from "../../../src/errors.js";

// The CLI prints these messages and the server sends them in its error envelope: they are what a
// user reads, so each names what went wrong and the value concerned.
describe("the store's errors", () => {
  it.each([
    [
      () => new CompileJobNotFoundError("job-7"),
      "CompileJobNotFoundError",
      "Compile job not found: job-7",
    ],
    [
      () => new CompileTimeoutError("job-7", 250),
      "CompileTimeoutError",
      "Compile job job-7 did not finish within 250 ms",
    ],
    [
      () => new StoreClosedError("/tmp/ctx.db"),
      "StoreClosedError",
      "The store at /tmp/ctx.db is closed",
    ],
    [
      () => new StoreSchemaError("/tmp/ctx.db", 9, 4),
      "StoreSchemaError",
      "The store at /tmp/ctx.db has schema version 9, newer than this shared-ctx understands (4); upgrade shared-ctx.",
    ],
    [
      () => new StoreValidationError("episodes[3].payload", "a JSON object"),
      "StoreValidationError",
      "Invalid episodes[3].payload: expected a JSON object",
    ],
  ])("%o is named %s and says what went wrong", (create, name, message) => {
    // Built inside the test: a mutation tool swaps code per test, not while the file loads.
    const error = create();
    expect(error).toBeInstanceOf(SharedCtxError);
    expect(error.name).toBe(name);
    expect(error.message).toBe(message);
  });

  it("keeps the values a caller acts on", () => {
    expect(new CompileTimeoutError("job-7", 250)).toMatchObject({ jobId: "job-7", timeoutMs: 250 });
    expect(new StoreSchemaError("/x.db", 9, 4)).toMatchObject({
      path: "/x.db",
      foundVersion: 9,
      supportedVersion: 4,
    });
    expect(new StoreValidationError("limit", "an integer in 1..100")).toMatchObject({
      field: "limit",
      expected: "an integer in 1..100",
    });
  });
});

describe("CompileEpisodeError", () => {
  const skipped = (episodeId: string, type = "note") => ({
    episodeId,
    type,
    reason: "the database refused its memory (SQLITE_CONSTRAINT_TRIGGER)",
  });

  it("names the one episode it skipped and what the call did compile", () => {
    const error = new CompileEpisodeError("demo", [skipped("ep-1")], 3);
    expect(error.name).toBe("CompileEpisodeError");
    expect(error.message).toBe(
      'Could not compile episode ep-1 (type "note"): the database refused its memory (SQLITE_CONSTRAINT_TRIGGER). It was skipped; the other episodes of subject "demo" compiled (3 memories created).',
    );
    expect(error).toMatchObject({ subjectId: "demo", memoriesCreated: 3 });
    expect(error.skipped).toHaveLength(1);
  });

  it("names the first of several and counts the rest", () => {
    const error = new CompileEpisodeError(
      "demo",
      [skipped("ep-1"), skipped("ep-2"), skipped("ep-3")],
      0,
    );
    expect(error.message).toMatch(
      /^Could not compile episode ep-1 \(type "note"\): .* and 2 more\. They were skipped; /,
    );
  });

  it("says so when it names no episode", () => {
    expect(new CompileEpisodeError("demo", [], 0).message).toMatch(
      /^Could not compile no episode\. They were skipped; /,
    );
  });

  it("cuts an over-long type and subject id (both come from the client)", () => {
    const error = new CompileEpisodeError("s".repeat(300), [skipped("ep-1", "t".repeat(200))], 0);
    expect(error.message).toContain(`(type "${"t".repeat(128)}")`);
    expect(error.message).not.toContain("t".repeat(129));
    expect(error.message).toContain(`subject "${"s".repeat(256)}" compiled`);
    expect(error.message).not.toContain("s".repeat(257));
  });
});
