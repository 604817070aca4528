import {
  createStatewaveEmulator,
  type StatewaveEmulatorOptions,
} from "../../../src/server/compat/statewave-v0-7-1.js";

/** One answer of the emulation: status, the `X-Request-ID` header and the decoded JSON body. */
export interface EmulatorAnswer {
  status: number;
  requestId: string | null;
  body: unknown;
}

/** Sequential ids (`id-1`, `id-2`, …) so answers can be compared exactly. */
export function sequentialIds(prefix = "id"): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `${prefix}-${next}`;
  };
}

/**
 * An emulation with fixed ids and a fixed clock (1 s after the epoch, so the strictly increasing
 * clock advances by 1 µs per transaction), and shorthand calls for its routes.
 */
export function emulatorClient(options: StatewaveEmulatorOptions = {}) {
  const emulator = createStatewaveEmulator({
    now: () => 1000,
    generateId: sequentialIds(),
    generateJobId: sequentialIds("job"),
    generateRequestId: () => "generated-request-id",
    ...options,
  });
  async function send(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<EmulatorAnswer> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { "Content-Type": "application/json", ...headers };
    }
    const response = await emulator.fetch(new Request(`http://statewave.test${path}`, init));
    return {
      status: response.status,
      requestId: response.headers.get("x-request-id"),
      body: await response.json(),
    };
  }
  const episode = (fields: Record<string, unknown> = {}) => ({
    subject_id: "s",
    source: "user",
    type: "note",
    payload: { text: "hello" },
    ...fields,
  });
  return {
    emulator,
    send,
    episode,
    post: (path: string, body: unknown, headers?: Record<string, string>) =>
      send("POST", path, body, headers),
    get: (path: string, headers?: Record<string, string>) => send("GET", path, undefined, headers),
  };
}
