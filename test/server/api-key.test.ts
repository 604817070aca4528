import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { createApiKeyCheck, publicPaths } from "../../src/server/api-key.js";
import { createApp } from "../../src/server/app.js";

describe("createApiKeyCheck", () => {
  it("accepts exactly the configured key, whatever the lengths", () => {
    const check = createApiKeyCheck("clé-🔑");
    expect(check("clé-🔑")).toBe(true);
    expect(check("cle-🔑")).toBe(false);
    expect(check("clé-🔑 ")).toBe(false);
    expect(check("")).toBe(false);
  });

  it("leaves exactly the health and readiness paths public", () => {
    expect([...publicPaths].sort()).toEqual(["/health", "/healthz", "/ready", "/readyz"]);
  });
});

describe("createApp with an API key", () => {
  const timeline = async (
    apiKey: string | undefined,
    init: { header?: string; query?: string },
  ) => {
    const store = new EmbeddedStore({ path: ":memory:" });
    try {
      const app = createApp({ store, ...(apiKey === undefined ? {} : { apiKey }) });
      const query = init.query === undefined ? "" : `&api_key=${init.query}`;
      const headers: Record<string, string> =
        init.header === undefined ? {} : { "X-API-Key": init.header };
      const response = await app.fetch(
        new Request(`http://test/v1/timeline?subject_id=s${query}`, { headers }),
      );
      return response.status;
    } finally {
      await store.close();
    }
  };

  it("falls back to ?api_key= when the header is empty", async () => {
    expect(await timeline("k", { header: "", query: "k" })).toBe(200);
    expect(await timeline("k", { header: "", query: "" })).toBe(401);
  });

  it("prefers the header to the query", async () => {
    expect(await timeline("k", { header: "wrong", query: "k" })).toBe(403);
  });

  it("checks nothing when the key is empty or absent", async () => {
    expect(await timeline("", {})).toBe(200);
    expect(await timeline(undefined, {})).toBe(200);
  });
});
