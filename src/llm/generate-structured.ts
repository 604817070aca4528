import {
  APICallError,
  generateText,
  type LanguageModel,
  NoObjectGeneratedError,
  Output,
  RetryError,
} from "ai";
import type { z } from "zod";
import { LlmAuthError } from "./errors/llm-auth-error.js";
import { LlmConnectionError } from "./errors/llm-connection-error.js";
import { LlmOutputError } from "./errors/llm-output-error.js";
import { LlmRequestError } from "./errors/llm-request-error.js";
import { LlmTimeoutError } from "./errors/llm-timeout-error.js";

/** Options of {@link generateStructured}. */
export interface GenerateStructuredOptions<T> {
  model: LanguageModel;
  schema: z.ZodType<T>;
  /** Used in messages and as the output's name, e.g. "module step". */
  schemaName: string;
  system: string;
  prompt: string;
  /** Per call. */
  timeoutMs: number;
  /** Retries of 429 and 5xx (the AI SDK honours `retry-after`). */
  maxRetries: number;
  /** Named in errors (connection, auth, failed requests); else taken from the request URL. */
  baseURL?: string;
  signal?: AbortSignal;
  /** Told the tokens the model reported for each answer (input + output), repairs included. */
  onUsage?: (tokens: number) => void;
}

/** The server part of a request URL (`http://host:port/v1/chat/completions` -> `http://host:port/v1`). */
function baseOf(url: string): string {
  return url.replace(/\/chat\/completions$/, "");
}

/**
 * The network layer's own words, without the AI SDK's "Cannot connect to API: " prefix:
 * "connect ECONNREFUSED 127.0.0.1:9", "bad port", "getaddrinfo ENOTFOUND llm.internal".
 */
function connectionReason(error: APICallError): string {
  const cause = error.cause;
  const code =
    typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
      ? cause.code
      : undefined;
  const message = error.message.replace(/^Cannot connect to API:\s*/, "").trim();
  if (message === "") return code ?? "no answer";
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}

/** The error to show for a failed call: the retry wrapper's last error, typed. */
function toLlmError(error: unknown, options: { timeoutMs: number; baseURL?: string }): unknown {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(last)) {
    if (last.statusCode === 401 || last.statusCode === 403) {
      return new LlmAuthError({
        statusCode: last.statusCode,
        url: options.baseURL ?? last.url,
        cause: last,
      });
    }
    if (last.statusCode === undefined && last.responseBody === undefined) {
      // No status and no body: the request never got an answer, so the server was not reached.
      return new LlmConnectionError({
        url: options.baseURL ?? baseOf(last.url),
        reason: connectionReason(last),
        cause: error,
      });
    }
    const status = last.statusCode === undefined ? "no HTTP status" : `HTTP ${last.statusCode}`;
    return new LlmRequestError(
      `the model server at ${options.baseURL ?? baseOf(last.url)} failed (${status}): ${last.message}`,
      {
        ...(last.statusCode !== undefined ? { statusCode: last.statusCode } : {}),
        cause: error,
      },
    );
  }
  if (last instanceof Error && last.name === "TimeoutError") {
    return new LlmTimeoutError(options.timeoutMs, { cause: last });
  }
  return error;
}

/**
 * One zod-typed answer from the model (`generateText` with `Output.object`). When the answer does
 * not match the schema, the model gets one repair attempt (its answer and the problem); a second
 * malformed answer is an `LlmOutputError`. 401/403 become `LlmAuthError` (naming `LLM_API_KEY`),
 * a server that cannot be reached `LlmConnectionError` (naming the URL and `LLM_BASE_URL`), a
 * timeout `LlmTimeoutError`, any other failure `LlmRequestError` (naming the URL).
 */
export async function generateStructured<T>(options: GenerateStructuredOptions<T>): Promise<T> {
  const call = async (prompt: string): Promise<T> => {
    const result = await generateText({
      model: options.model,
      system: options.system,
      prompt,
      output: Output.object({
        schema: options.schema,
        name: options.schemaName.replace(/\W+/g, "_"),
      }),
      maxRetries: options.maxRetries,
      timeout: options.timeoutMs,
      ...(options.signal ? { abortSignal: options.signal } : {}),
    });
    options.onUsage?.((result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0));
    return result.output;
  };
  try {
    return await call(options.prompt);
  } catch (error) {
    if (!NoObjectGeneratedError.isInstance(error)) throw toLlmError(error, options);
    const repairPrompt = [
      options.prompt,
      "",
      "Your previous answer could not be used:",
      error.text ?? "(no text)",
      `Problem: ${error.cause instanceof Error ? error.cause.message : error.message}`,
      "Answer again with only a JSON object that matches the schema.",
    ].join("\n");
    try {
      return await call(repairPrompt);
    } catch (repairError) {
      if (NoObjectGeneratedError.isInstance(repairError)) {
        throw new LlmOutputError({
          schemaName: options.schemaName,
          text: repairError.text ?? "",
          cause: repairError,
        });
      }
      throw toLlmError(repairError, options);
    }
  }
}
