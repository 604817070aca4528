import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";

describe("embedded schema migration", () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "shared-ctx-schema-"));
    path = join(dir, "store.db");
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("opens an up-to-date file while another process holds the write lock, without waiting for it", async () => {
    await new EmbeddedStore({ path }).close();
    const writer = new Database(path);
    writer.exec("BEGIN IMMEDIATE");
    try {
      // Migrating would need the lock: it would wait out the busy timeout, then fail as locked.
      const store = new EmbeddedStore({ path });
      expect((await store.getTimeline("run")).episodes).toEqual([]);
      await store.close();
    } finally {
      writer.exec("ROLLBACK");
      writer.close();
    }
  });
});
