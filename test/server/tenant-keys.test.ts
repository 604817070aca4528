import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { createKeyring } from "../../src/server/api-key.js";
import { createApp } from "../../src/server/app.js";

const base = "http://test";

describe("createKeyring", () => {
  it("grants every tenant to the server key and the listed ones to a tenant key", () => {
    const keyring = createKeyring({
      apiKey: "master",
      tenantKeys: [{ key: "key-a", tenants: ["a", "a2"] }],
    });
    expect(keyring("master")).toEqual({ kind: "all" });
    expect(keyring("key-a")).toEqual({ kind: "tenants", tenants: new Set(["a", "a2"]) });
    expect(keyring("key-b")).toBeUndefined();
    expect(keyring("")).toBeUndefined();
  });
});

describe("createApp options.tenantKeys", () => {
  let store: EmbeddedStore;
  let app: ReturnType<typeof createApp>;
  beforeEach(() => {
    store = new EmbeddedStore({ path: ":memory:" });
    app = createApp({
      store,
      apiKey: "master",
      tenantKeys: [
        { key: "key-a", tenants: ["a"] },
        { key: "key-b", tenants: ["b"] },
      ],
    });
  });
  afterEach(async () => {
    await store.close();
  });

  const write = (key: string, tenant: string | undefined) =>
    app.fetch(
      new Request(`${base}/v1/episodes`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-API-Key": key,
          ...(tenant === undefined ? {} : { "X-Tenant-ID": tenant }),
        },
        body: JSON.stringify({ subject_id: "s", source: "x", type: "t", payload: { by: key } }),
      }),
    );

  it("lets a tenant key write and read its own tenant", async () => {
    expect((await write("key-a", "a")).status).toBe(201);
    const response = await app.fetch(
      new Request(`${base}/v1/timeline?subject_id=s`, {
        headers: { "X-API-Key": "key-a", "X-Tenant-ID": "a" },
      }),
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { episodes: unknown[] }).episodes).toHaveLength(1);
  });

  it("refuses another tenant with 403 tenant_not_allowed and writes nothing there", async () => {
    const response = await write("key-a", "b");
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      error: {
        code: "tenant_not_allowed",
        message: "This API key does not authorise the tenant named in X-Tenant-ID.",
      },
    });
    expect((await store.forTenant("b").getTimeline("s")).episodes).toEqual([]);
  });

  it("refuses the default tenant (no X-Tenant-ID) to a tenant key", async () => {
    const response = await write("key-a", undefined);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: "tenant_not_allowed" } });
    expect((await store.getTimeline("s")).episodes).toEqual([]);
  });

  it("lets the server key reach every tenant and the default one", async () => {
    expect((await write("master", "a")).status).toBe(201);
    expect((await write("master", "b")).status).toBe(201);
    expect((await write("master", undefined)).status).toBe(201);
  });

  it("still refuses an unknown key with 403 invalid_api_key", async () => {
    const response = await write("key-c", "a");
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_api_key" } });
  });

  it("requires a key with tenant keys alone (no server key)", async () => {
    const tenantOnly = createApp({ store, tenantKeys: [{ key: "key-a", tenants: ["a"] }] });
    const response = await tenantOnly.fetch(new Request(`${base}/v1/timeline?subject_id=s`));
    expect(response.status).toBe(401);
  });
});

describe("/readyz and the database's reason", () => {
  const failing = {
    forTenant: () =>
      ({
        listSubjects: async () => {
          throw new Error("connect ECONNREFUSED postgres://app:pw@db.internal:5432/ctx");
        },
      }) as unknown as ContextStore,
  };

  it("says only not_ready to a caller without a key", async () => {
    const app = createApp({ store: failing, apiKey: "master" });
    const response = await app.fetch(new Request(`${base}/readyz`));
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      status: "not_ready",
      checks: [{ name: "database", status: "fail" }],
    });
    expect(text).not.toContain("db.internal");
  });

  it("says only not_ready to a caller with a wrong key", async () => {
    const app = createApp({ store: failing, apiKey: "master" });
    const response = await app.fetch(
      new Request(`${base}/readyz`, { headers: { "X-API-Key": "wrong" } }),
    );
    expect(await response.text()).not.toContain("db.internal");
  });

  it("says only not_ready on a server without keys", async () => {
    const app = createApp({ store: failing });
    expect(await (await app.fetch(new Request(`${base}/readyz`))).text()).not.toContain(
      "db.internal",
    );
  });

  it("gives the reason to a caller with a valid key", async () => {
    const app = createApp({ store: failing, apiKey: "master" });
    const response = await app.fetch(
      new Request(`${base}/readyz`, { headers: { "X-API-Key": "master" } }),
    );
    expect(await response.json()).toEqual({
      status: "not_ready",
      checks: [
        {
          name: "database",
          status: "fail",
          detail: "connect ECONNREFUSED postgres://app:pw@db.internal:5432/ctx",
        },
      ],
    });
  });
});

describe("X-Tenant-ID rules", () => {
  const request = async (tenant: string, key?: string) => {
    const store = new EmbeddedStore({ path: ":memory:" });
    try {
      const app = createApp({ store, ...(key ? { apiKey: key } : {}) });
      return await app.fetch(
        new Request(`${base}/v1/subjects`, {
          headers: { "X-Tenant-ID": tenant, ...(key ? { "X-API-Key": "wrong" } : {}) },
        }),
      );
    } finally {
      await store.close();
    }
  };

  it.each([
    ["5,000 characters", "t".repeat(5000), "string_too_long"],
    ["257 characters", "t".repeat(257), "string_too_long"],
    ["a tab", "team\ta", "string_pattern_mismatch"],
    ["a C1 control", "team\u0085a", "string_pattern_mismatch"],
  ])("refuses a tenant id of %s with 422 at header.x-tenant-id", async (_label, tenant, type) => {
    const response = await request(tenant);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      error: { code: "validation_error", details: [{ type, loc: ["header", "x-tenant-id"] }] },
    });
  });

  it("accepts 256 characters, Latin-1 ones too, and the empty tenant", async () => {
    expect((await request("t".repeat(256))).status).toBe(200);
    expect((await request("é".repeat(256))).status).toBe(200);
    expect((await request("")).status).toBe(200);
  });

  it("checks the key first: a bad tenant with a wrong key is 403 invalid_api_key", async () => {
    const response = await request("t".repeat(5000), "k");
    expect(response.status).toBe(403);
  });
});
