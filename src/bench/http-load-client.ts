import { Agent, request as httpRequest } from "node:http";
import { messageOf } from "../errors.js";

/**
 * The client half of `bench store`'s serve figures, run in a process of its own (forked by
 * `store-bench.ts`), so the server's event loop and CPU are not shared with the load generator:
 * what a user with agents in other processes sees. It takes its plan as one JSON argument and
 * sends its figures back over the IPC channel. Plain `node:http` with keep-alive, no framework.
 */

/** What the client is asked to measure. */
export interface HttpLoadPlan {
  url: string;
  /** Concurrent clients creating single episodes. */
  clients: number;
  /** How long they create, in seconds. */
  seconds: number;
  /** The subject whose context and timeline are read (already compiled). */
  readSubject: string;
  /** The task of the context requests. */
  task: string;
  /** Sequential context and timeline requests each (after a warm-up of 20). */
  readIterations: number;
}

/** What it measured; latencies in milliseconds. */
export interface HttpLoadFigures {
  createsPerSecond: number;
  createP50Ms: number;
  createP95Ms: number;
  /** Requests that failed or answered other than 201/200. */
  failures: number;
  contextP50Ms: number;
  contextP95Ms: number;
  /** The fastest tenth: close to what a call costs when it does not wait for a CPU. */
  contextP10Ms: number;
  timelineP50Ms: number;
  timelineP95Ms: number;
  timelineP10Ms: number;
}

function percentile(sorted: readonly number[], fraction: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return Math.round((sorted[index] ?? 0) * 1000) / 1000;
}

/** Requests over one keep-alive agent, each timed, counting answers that are not 200/201. */
function createTimedClient(plan: HttpLoadPlan) {
  const target = new URL(plan.url);
  const agent = new Agent({ keepAlive: true, maxSockets: plan.clients });
  const send = (method: string, path: string, body?: string) =>
    new Promise<number>((resolve) => {
      const request = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method,
          path,
          agent,
          headers: body
            ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
            : {},
        },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
        },
      );
      request.on("error", () => resolve(0));
      request.end(body);
    });
  const client = {
    failures: 0,
    /** The request's latency in ms. */
    timed: async (method: string, path: string, body?: string) => {
      const started = performance.now();
      const status = await send(method, path, body);
      if (status !== 200 && status !== 201) client.failures += 1;
      return performance.now() - started;
    },
    close: () => agent.destroy(),
  };
  return client;
}

/** Runs the plan against a live server and returns the figures. */
export async function runHttpLoad(plan: HttpLoadPlan): Promise<HttpLoadFigures> {
  const client = createTimedClient(plan);
  const creates = await measureCreates(plan, client);
  const contextBody = JSON.stringify({ subject_id: plan.readSubject, task: plan.task });
  const timelinePath = `/v1/timeline?subject_id=${encodeURIComponent(plan.readSubject)}`;
  const read = async (call: () => Promise<number>) => {
    for (let index = 0; index < 20; index += 1) await call();
    const samples: number[] = [];
    for (let index = 0; index < plan.readIterations; index += 1) samples.push(await call());
    return samples.sort((left, right) => left - right);
  };
  const context = await read(() => client.timed("POST", "/v1/context", contextBody));
  const timeline = await read(() => client.timed("GET", timelinePath));
  client.close();
  return {
    ...creates,
    failures: client.failures,
    contextP50Ms: percentile(context, 0.5),
    contextP95Ms: percentile(context, 0.95),
    contextP10Ms: percentile(context, 0.1),
    timelineP50Ms: percentile(timeline, 0.5),
    timelineP95Ms: percentile(timeline, 0.95),
    timelineP10Ms: percentile(timeline, 0.1),
  };
}

/** Every client creating episodes as fast as answers come, for the plan's seconds (after a warm-up). */
async function measureCreates(
  plan: HttpLoadPlan,
  client: ReturnType<typeof createTimedClient>,
): Promise<Pick<HttpLoadFigures, "createsPerSecond" | "createP50Ms" | "createP95Ms">> {
  const createBody = (writer: number, index: number) =>
    JSON.stringify({
      subject_id: `bench-http-${writer}`,
      source: `agent-${writer}`,
      type: "implementation_note",
      payload: { content: `use the shared token helper for auth (${index})` },
    });
  // Warm-up: connections open, code paths compiled; its failures do not count.
  await Promise.all(
    Array.from({ length: plan.clients }, (_, writer) =>
      client.timed("POST", "/v1/episodes", createBody(writer, -1)),
    ),
  );
  client.failures = 0;
  const createLatencies: number[] = [];
  const deadline = performance.now() + plan.seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: plan.clients }, async (_, writer) => {
      for (let index = 0; performance.now() < deadline; index += 1) {
        createLatencies.push(await client.timed("POST", "/v1/episodes", createBody(writer, index)));
      }
    }),
  );
  const createsPerSecond = createLatencies.length / ((performance.now() - started) / 1000);
  createLatencies.sort((left, right) => left - right);
  return {
    createsPerSecond: Math.round(createsPerSecond),
    createP50Ms: percentile(createLatencies, 0.5),
    createP95Ms: percentile(createLatencies, 0.95),
  };
}

// Forked by `bench store`: the plan is argv[2], the figures go back to the parent.
if (process.send && process.argv[2]) {
  const plan = JSON.parse(process.argv[2]) as HttpLoadPlan;
  runHttpLoad(plan).then(
    (figures) => process.send?.({ figures }, () => process.exit(0)),
    (error: unknown) => process.send?.({ error: messageOf(error) }, () => process.exit(1)),
  );
}
