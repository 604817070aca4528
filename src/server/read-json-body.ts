import { HttpError } from "./http-error.js";

/** Statewave itself has no limit; shared-ctx refuses bodies over 1 MiB so one request cannot exhaust memory. */
export const defaultMaxBodyBytes = 1024 * 1024;

/**
 * Deeper JSON than this is refused with a 422: `JSON.stringify` (used when the store writes the
 * payload) recurses, so absurd nesting would otherwise surface as a 500.
 */
export const maxJsonDepth = 256;

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, {
    code: "payload_too_large",
    message: `Request body is larger than ${maxBytes} bytes`,
  });
}

function jsonInvalid(position: number, reason: string): HttpError {
  return HttpError.validation([
    {
      type: "json_invalid",
      loc: ["body", position],
      msg: "JSON decode error",
      input: {},
      ctx: { error: reason },
    },
  ]);
}

/** Reads at most `maxBytes` of the body; one byte more and it stops with a 413. */
async function readBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  // With a Content-Length the HTTP parser already bounds the body, and arrayBuffer() takes
  // @hono/node-server's fast path (no web stream); only a chunked body is counted as it streams.
  if (Number.isFinite(declared)) return new Uint8Array(await request.arrayBuffer());
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Where `JSON.parse` stopped, from V8's message (`… at position 12`; end of input = the length), else 0. */
function errorPosition(error: unknown, text: string): number {
  const message = error instanceof Error ? error.message : "";
  const match = /position (\d+)/.exec(message);
  if (match?.[1]) return Number(match[1]);
  return /end of JSON input/i.test(message) ? text.length : 0;
}

function depthExceeds(value: unknown, limit: number): boolean {
  // Iterative, so the check itself cannot overflow the stack.
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (typeof item.value !== "object" || item.value === null) continue;
    if (item.depth > limit) return true;
    const children = Array.isArray(item.value) ? item.value : Object.values(item.value);
    for (const child of children) stack.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}

/** `application/json`, or any `application/*+json`, with or without parameters such as charset. */
function isJsonContentType(contentType: string | null): boolean {
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  return mediaType === "application/json" || /^application\/[\w.+-]+\+json$/.test(mediaType);
}

/**
 * The request body as a JSON object.
 *
 * The body must be declared JSON. Statewave answers any other Content-Type with a 500; we answer
 * 415 instead of parsing it anyway, because a web page can send `text/plain`, a form or a typeless
 * body to a loopback server without a CORS preflight: accepting those would let any page the user
 * opens write into their store.
 *
 * @throws HttpError 415 `unsupported_media_type` unless the Content-Type is JSON; 413 over
 *   `maxBytes`; 422 `validation_error` for an empty body, bytes that are not UTF-8 JSON, JSON
 *   nested deeper than {@link maxJsonDepth}, or JSON that is not an object.
 */
export async function readJsonBody(
  request: Request,
  maxBytes = defaultMaxBodyBytes,
): Promise<Record<string, unknown>> {
  const contentType = request.headers.get("content-type");
  if (!isJsonContentType(contentType)) {
    throw new HttpError(415, {
      code: "unsupported_media_type",
      message: `Send the body as JSON with Content-Type: application/json (got ${contentType ?? "no Content-Type"})`,
    });
  }
  const bytes = await readBytes(request, maxBytes);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw jsonInvalid(0, "Invalid UTF-8");
  }
  if (text.trim() === "") {
    throw HttpError.validation([
      { type: "missing", loc: ["body"], msg: "Field required", input: null },
    ]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : "Expecting value";
    throw jsonInvalid(errorPosition(error, text), reason);
  }
  if (parsed === null) {
    throw HttpError.validation([
      { type: "missing", loc: ["body"], msg: "Field required", input: null },
    ]);
  }
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw HttpError.validation([
      {
        type: "model_attributes_type",
        loc: ["body"],
        msg: "Input should be a valid dictionary or object to extract fields from",
        input: parsed,
      },
    ]);
  }
  if (depthExceeds(parsed, maxJsonDepth)) {
    throw HttpError.validation([
      {
        type: "json_invalid",
        loc: ["body"],
        msg: `JSON nested deeper than ${maxJsonDepth} levels`,
        input: {},
        ctx: { error: "Nesting too deep" },
      },
    ]);
  }
  return parsed as Record<string, unknown>;
}
