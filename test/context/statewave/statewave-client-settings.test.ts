import { describe, expect, it } from "vitest";
import { StatewaveClient } from "../../../src/context/statewave/statewave-client.js";

describe("StatewaveClient settings", () => {
  it("sends the tenant on every request and waits the configured, capped backoff between retries", async () => {
    const waits: number[] = [];
    let calls = 0;
    const headers: Record<string, string>[] = [];
    const client = new StatewaveClient({
      baseUrl: "http://statewave.test",
      tenantId: "acme",
      retry: { maxRetries: 3, backoffBase: 1000, backoffMax: 1500, jitter: false },
      random: () => 0,
      delay: async (ms) => {
        waits.push(ms);
      },
      fetch: (async (_input: unknown, init: RequestInit) => {
        headers.push({ ...(init.headers as Record<string, string>) });
        calls++;
        return calls < 4
          ? new Response("{}", { status: 503 })
          : new Response(JSON.stringify({ subjects: [], total: 0 }), { status: 200 });
      }) as typeof fetch,
    });
    await expect(client.listSubjects()).resolves.toEqual({ subjects: [], total: 0 });
    expect(waits).toEqual([1000, 1500, 1500]);
    expect(headers.map((sent) => sent["X-Tenant-ID"])).toEqual(["acme", "acme", "acme", "acme"]);
  });
});
