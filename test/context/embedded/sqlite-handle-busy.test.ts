import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultBusyTimeoutMs, SqliteHandle } from "../../../src/context/embedded/sqlite-handle.js";
import { useTempDir } from "../../support/temp-dir.js";

describe("SqliteHandle's lock wait", () => {
  const tempDir = useTempDir("shared-ctx-busy-");

  it("waits 10 s by default, and what a caller with a deadline asks for", () => {
    const path = join(tempDir(), "store.db");
    for (const [asked, expected] of [
      [undefined, defaultBusyTimeoutMs],
      [1000, 1000],
      [12.7, 12],
      [-5, 0],
    ] as const) {
      const handle = new SqliteHandle(path, { busyTimeoutMs: asked });
      try {
        expect(handle.db.pragma("busy_timeout", { simple: true })).toBe(expected);
      } finally {
        handle.close();
      }
    }
    expect(defaultBusyTimeoutMs).toBe(10_000);
  });
});
