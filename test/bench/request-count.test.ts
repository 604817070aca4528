import { describe, expect, it } from "vitest";
import {
  createRequestCounter,
  formatRequestsTable,
  routeKey,
} from "../../src/bench/request-count.js";

describe("routeKey", () => {
  it.each([
    ["get", "/v1/timeline?subject_id=sw-1&limit=100&offset=0", "GET /v1/timeline"],
    ["POST", "/v1/episodes/batch", "POST /v1/episodes/batch"],
    ["GET", "/v1/memories/search?q=x", "GET /v1/memories/search"],
    ["GET", "/v1/memories/compile/job-7", "GET /v1/memories/compile/:id"],
    ["DELETE", "/v1/subjects/sw-1a2b", "DELETE /v1/subjects/:id"],
    ["GET", "/v1/subjects?limit=200", "GET /v1/subjects"],
  ])("%s %s counts as %s", (method, url, key) => {
    expect(routeKey(method, url)).toBe(key);
  });
});

describe("createRequestCounter", () => {
  it("counts by route, most first, ties by name", () => {
    const counter = createRequestCounter();
    counter.count("GET", "/v1/timeline?offset=0");
    counter.count("GET", "/v1/timeline?offset=100");
    counter.count("POST", "/v1/episodes");
    counter.count("POST", "/v1/context");
    expect(counter.snapshot()).toEqual({
      total: 4,
      byRoute: [
        ["GET /v1/timeline", 2],
        ["POST /v1/context", 1],
        ["POST /v1/episodes", 1],
      ],
    });
  });
});

describe("formatRequestsTable", () => {
  it("prints each server's total and its routes", () => {
    expect(
      formatRequestsTable({
        scenario: "auth-jwt",
        counts: [{ server: "serve", total: 3, byRoute: [["GET /v1/timeline", 3]], seconds: 2.04 }],
      }),
    ).toBe(
      "bench requests: one `run --scenario auth-jwt` per server\n\nserve: 3 requests in 2.0 s\n       3  GET /v1/timeline\n",
    );
  });
});
