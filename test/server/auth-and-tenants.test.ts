import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { createApp } from "../../src/server/app.js";

const base = "http://test";

describe("createApp options.apiKey", () => {
  let store: EmbeddedStore;
  let app: ReturnType<typeof createApp>;
  beforeEach(() => {
    store = new EmbeddedStore({ path: ":memory:" });
    app = createApp({ store, apiKey: "s3cret" });
  });
  afterEach(async () => {
    await store.close();
  });

  const timeline = (headers: Record<string, string> = {}, query = "") =>
    app.fetch(new Request(`${base}/v1/timeline?subject_id=s${query}`, { headers }));

  it("answers 401 missing_api_key without a key, with no request_id in the body", async () => {
    const response = await timeline({ "X-Request-ID": "r1" });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: { code: "missing_api_key", message: "X-API-Key header is required." },
    });
    expect(response.headers.get("x-request-id")).toBe("r1");
  });

  it.each([
    ["a wrong key", "wrong"],
    ["a longer key", "s3cret-and-more"],
    ["a prefix of the key", "s3c"],
  ])("answers 403 invalid_api_key for %s", async (_label, key) => {
    const response = await timeline({ "X-API-Key": key });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: { code: "invalid_api_key", message: "Invalid API key." },
    });
  });

  it("accepts the key in X-API-Key or ?api_key=", async () => {
    expect((await timeline({ "X-API-Key": "s3cret" })).status).toBe(200);
    expect((await timeline({}, "&api_key=s3cret")).status).toBe(200);
  });

  it("checks the key before routing, as Statewave does", async () => {
    const response = await app.fetch(new Request(`${base}/v1/nope`));
    expect(response.status).toBe(401);
  });

  it("leaves health and readiness open", async () => {
    for (const path of ["/healthz", "/health", "/readyz", "/ready"]) {
      expect((await app.fetch(new Request(`${base}${path}`))).status).toBe(200);
    }
  });

  it("writes nothing on a rejected request", async () => {
    const response = await app.fetch(
      new Request(`${base}/v1/episodes`, {
        method: "POST",
        headers: { "X-API-Key": "wrong" },
        body: JSON.stringify({ subject_id: "s", source: "a", type: "t", payload: {} }),
      }),
    );
    expect(response.status).toBe(403);
    expect((await store.getTimeline("s")).episodes).toEqual([]);
  });
});

describe("createApp X-Tenant-ID", () => {
  let store: EmbeddedStore;
  let app: ReturnType<typeof createApp>;
  beforeEach(() => {
    store = new EmbeddedStore({ path: ":memory:" });
    app = createApp({ store });
  });
  afterEach(async () => {
    await store.close();
  });

  async function call(
    tenant: string | undefined,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (tenant !== undefined) headers["X-Tenant-ID"] = tenant;
    const response = await app.fetch(
      new Request(`${base}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const write = (tenant: string | undefined, content: string) =>
    call(tenant, "POST", "/v1/episodes", {
      subject_id: "shared-subject",
      source: "agent",
      type: "architectural_decision",
      payload: { content, target: "auth" },
    });
  const contents = async (tenant: string | undefined) => {
    const { body } = await call(tenant, "GET", "/v1/timeline?subject_id=shared-subject");
    return (body.episodes as Array<{ payload: { content: string } }>).map(
      (episode) => episode.payload.content,
    );
  };

  it("keeps tenants with the same subject id apart, and the default tenant apart from both", async () => {
    await write("tenant-a", "a1");
    await write("tenant-b", "b1");
    await write(undefined, "default1");
    await write("", "empty1");

    expect(await contents("tenant-a")).toEqual(["a1"]);
    expect(await contents("tenant-b")).toEqual(["b1"]);
    // Unlike Statewave v0.7.1, no header is a tenant of its own, not "see everything" (§14).
    expect(await contents(undefined)).toEqual(["default1"]);
    expect(await contents("")).toEqual(["empty1"]);
  });

  it("scopes compile, search, context, subjects and delete", async () => {
    await write("tenant-a", "a decision");
    await write("tenant-b", "b decision");
    await call("tenant-a", "POST", "/v1/memories/compile", { subject_id: "shared-subject" });
    const bCompile = await call("tenant-b", "POST", "/v1/memories/compile", {
      subject_id: "shared-subject",
    });
    expect(bCompile.body.memories_created).toBe(1);

    const search = await call("tenant-a", "GET", "/v1/memories/search?subject_id=shared-subject");
    expect(
      (search.body.memories as Array<{ content: string; status: string }>).map((memory) => [
        memory.content,
        memory.status,
      ]),
    ).toEqual([["a decision", "active"]]);

    const context = await call("tenant-b", "POST", "/v1/context", {
      subject_id: "shared-subject",
      task: "decision",
    });
    expect(context.body.assembled_context).toContain("b decision");
    expect(context.body.assembled_context).not.toContain("a decision");

    const subjects = await call(undefined, "GET", "/v1/subjects");
    expect(subjects.body).toEqual({ subjects: [], total: 0 });

    const deleted = await call("tenant-b", "DELETE", "/v1/subjects/shared-subject");
    expect(deleted.body).toEqual({
      subject_id: "shared-subject",
      episodes_deleted: 1,
      memories_deleted: 1,
    });
    expect(await contents("tenant-a")).toEqual(["a decision"]);
  });

  it("scopes compile jobs: another tenant polling the id gets 404", async () => {
    await write("tenant-a", "a1");
    const started = await call("tenant-a", "POST", "/v1/memories/compile", {
      subject_id: "shared-subject",
      async: true,
    });
    expect(started.status).toBe(202);
    const jobPath = `/v1/memories/compile/${String(started.body.job_id)}`;
    expect((await call("tenant-a", "GET", jobPath)).status).toBe(200);
    const other = await call("tenant-b", "GET", jobPath);
    expect(other.status).toBe(404);
    expect((other.body.error as { code: string }).code).toBe("not_found");
    expect((await call(undefined, "GET", jobPath)).status).toBe(404);
  });
});
