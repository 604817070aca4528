import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { ContextStore, CreateEpisodeInput } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { StoreDamagedError } from "../../src/context/errors/store-damaged-error.js";
import { createApp, type TenantScopedStore } from "../../src/server/app.js";
import { useTempDir } from "../support/temp-dir.js";

const body = JSON.stringify({
  subject_id: "s",
  source: "agent",
  type: "implementation_note",
  payload: { content: "a note" },
});
const post = () =>
  new Request("http://test/v1/episodes", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });

/**
 * A real embedded store whose writes fail as SQLite fails on a full disk while `full` is set: a
 * test double for the disk (a tmpfs would need a mount), not for the store.
 */
function fillableStore(): {
  store: TenantScopedStore & { close(): Promise<void> };
  full: { on: boolean };
} {
  const inner = new EmbeddedStore({ path: ":memory:" });
  const full = { on: false };
  const store = {
    forTenant(tenantId: string | null): ContextStore {
      const view = inner.forTenant(tenantId);
      return new Proxy(view, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver);
          if (property !== "createEpisode" || typeof value !== "function") {
            return typeof value === "function" ? value.bind(target) : value;
          }
          return (input: CreateEpisodeInput) => {
            if (full.on) throw new Database.SqliteError("database or disk is full", "SQLITE_FULL");
            return value.call(target, input);
          };
        },
      });
    },
    close: () => inner.close(),
  };
  return { store, full };
}

describe("serve when the disk is full", () => {
  it("answers 507 with the envelope, fails /readyz while it lasts, and recovers", async () => {
    const { store, full } = fillableStore();
    let clock = 0;
    const app = createApp({ store, now: () => clock });
    expect((await app.fetch(post())).status).toBe(201);

    full.on = true;
    const refused = await app.fetch(post());
    expect(refused.status).toBe(507);
    expect(await refused.json()).toMatchObject({
      error: { code: "insufficient_storage", message: expect.stringContaining("disk is full") },
    });
    const ready = await app.fetch(new Request("http://test/readyz"));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ checks: [{ name: "storage", status: "fail" }] });
    // With no write since, readiness is tried again after 10 s: the next refusal fails it anew.
    clock = 10_001;
    expect((await app.fetch(new Request("http://test/readyz"))).status).toBe(200);
    expect((await app.fetch(post())).status).toBe(507);
    expect((await app.fetch(new Request("http://test/readyz"))).status).toBe(503);

    full.on = false;
    expect((await app.fetch(post())).status).toBe(201);
    expect((await app.fetch(new Request("http://test/readyz"))).status).toBe(200);
    await store.close();
  });
});

describe("opening a damaged database", () => {
  const tempDir = useTempDir("shared-ctx-damaged-");

  it("with checkIntegrity (as serve opens it): a StoreDamagedError naming the file and a fix", async () => {
    const path = join(tempDir(), "store.db");
    const store = new EmbeddedStore({ path });
    await store.createEpisodesBatch(
      Array.from({ length: 100 }, (_, index) => ({
        subjectId: "s",
        source: "agent",
        type: "implementation_note",
        payload: { content: `${index} ${"x".repeat(2000)}` },
      })),
    );
    await store.close();
    // Checkpointed into the main file by close(); damage pages past the header, mid-file.
    const size = readFileSync(path).length;
    const file = openSync(path, "r+");
    writeSync(file, Buffer.alloc(8192, 0xa5), 0, 8192, Math.floor(size / 2 / 4096) * 4096);
    closeSync(file);

    let error: unknown;
    try {
      new EmbeddedStore({ path, checkIntegrity: true });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StoreDamagedError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain("Restore it from a backup");
  });

  it("a file that is not a database: a StoreDamagedError even without the check", () => {
    const path = join(tempDir(), "not-a.db");
    writeFileSync(
      path,
      "this is not a SQLite database, just text long enough to have a header".repeat(100),
    );
    expect(() => new EmbeddedStore({ path })).toThrow(StoreDamagedError);
  });
});
