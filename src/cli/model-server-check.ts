import { LlmAuthError } from "../llm/errors/llm-auth-error.js";
import { LlmConnectionError } from "../llm/errors/llm-connection-error.js";
import { readLlmSettings } from "../llm/llm-settings.js";

/** Options of {@link checkModelServer}. */
export interface CheckModelServerOptions {
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** How long the server has to answer at all. @default 5000 */
  readonly timeoutMs?: number;
  /** The user stopping the command (Ctrl-C): the check ends with this signal's reason. */
  readonly signal?: AbortSignal;
}

/** Long enough for a local server waking up, short enough that a wrong URL is named at once. */
const defaultTimeoutMs = 5_000;

/**
 * With an LLM configured (`LLM_MODEL`), asks its server for `GET <base URL>/models` before any
 * agent starts, so a server that is down or a wrong `LLM_BASE_URL` is named in one line instead of
 * after every agent has retried its first call (and the Reviewer has "reviewed" work never done).
 * Any HTTP answer but 401/403 counts as reachable: some OpenAI-compatible servers do not serve
 * `/models`, and the model name itself is the first real call's to judge. Does nothing without
 * `LLM_MODEL`.
 * @throws LlmConnectionError when nothing answers at the base URL within `timeoutMs`
 * @throws LlmAuthError when the server refuses the API key
 * @throws LlmConfigError when the `LLM_*` variables are malformed
 */
export async function checkModelServer(
  env: Readonly<Record<string, string | undefined>>,
  options: CheckModelServerOptions = {},
): Promise<void> {
  const settings = readLlmSettings(env);
  if (settings?.baseURL === undefined) return;
  const url = settings.baseURL.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(`${url}/models`, {
      headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
      signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    const reason = timeout.aborted
      ? `no answer within ${timeoutMs / 1000} s`
      : networkReason(error);
    throw new LlmConnectionError({ url, reason, cause: error });
  }
  // The body is not needed; cancelling it frees the connection at once.
  await response.body?.cancel().catch(() => undefined);
  if (response.status === 401 || response.status === 403) {
    throw new LlmAuthError({ statusCode: response.status, url });
  }
}

/** The network layer's own words ("connect ECONNREFUSED 127.0.0.1:9"), not fetch's "fetch failed". */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) {
    if (cause.message !== "") return cause.message;
    // "localhost" tried on ::1 and 127.0.0.1 fails as an AggregateError with no message.
    if ("code" in cause && typeof cause.code === "string") return cause.code;
  }
  if (error instanceof Error && error.message !== "") return error.message;
  return "no answer";
}
