/**
 * Requests a run sends to a Statewave-shaped server, counted by route: pure, so that the table
 * `bench requests` prints is tested without a server.
 */

/** One server's count for one run. */
export interface RequestCount {
  /** What answered: `serve`, or the v0.7.1 emulation. */
  readonly server: string;
  readonly total: number;
  /** Requests per `METHOD /path` (no query string, ids collapsed), most first. */
  readonly byRoute: ReadonlyArray<readonly [string, number]>;
  /** Seconds the run took. */
  readonly seconds: number;
}

/** Everything `bench requests` measured. */
export interface RequestsBenchResult {
  readonly scenario: string;
  readonly counts: readonly RequestCount[];
}

/** The segment after these is an id (`/v1/subjects/sw-1a2b`): counted as one route. */
const idParents = new Set(["subjects", "compile", "memories", "episodes", "changes"]);

/**
 * `GET /v1/timeline`: the route a request counts under: its method and path, the query dropped,
 * an id after a collection (`/v1/subjects/<id>`) written `:id`.
 */
export function routeKey(method: string, url: string): string {
  const path = url.split("?")[0] ?? "";
  const segments = path.split("/");
  const named = segments.map((segment, index) => {
    const parent = segments[index - 1] ?? "";
    const isId =
      index >= 3 && idParents.has(parent) && !["batch", "compile", "search"].includes(segment);
    return isId ? ":id" : segment;
  });
  return `${method.toUpperCase()} ${named.join("/")}`;
}

/** Counts requests by {@link routeKey}; `snapshot()` lists them most first. */
export function createRequestCounter(): {
  count(method: string, url: string): void;
  snapshot(): { total: number; byRoute: Array<[string, number]> };
} {
  const counts = new Map<string, number>();
  return {
    count(method, url) {
      const key = routeKey(method, url);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    snapshot() {
      const byRoute = [...counts].sort(
        (left, right) => right[1] - left[1] || left[0].localeCompare(right[0]),
      );
      return { total: byRoute.reduce((sum, [, count]) => sum + count, 0), byRoute };
    },
  };
}

/** The table `bench requests` prints: per server, the total and each route's count. */
export function formatRequestsTable(result: RequestsBenchResult): string {
  const lines = [`bench requests: one \`run --scenario ${result.scenario}\` per server`];
  for (const count of result.counts) {
    lines.push(
      "",
      `${count.server}: ${count.total} requests in ${count.seconds.toFixed(1)} s`,
      ...count.byRoute.map(([route, n]) => `  ${String(n).padStart(6)}  ${route}`),
    );
  }
  return `${lines.join("\n")}\n`;
}
