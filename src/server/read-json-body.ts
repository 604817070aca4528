import { HttpError } from "./http-error.js";

/**
 * Statewave itself has no limit (it stores a ~1 MiB episode, and a batch of several); shared-ctx
 * refuses bodies over 16 MiB so one request cannot exhaust memory. `serve --max-body-bytes`
 * changes it.
 */
export const defaultMaxBodyBytes = 16 * 1024 * 1024;

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

/**
 * The client went away before its body arrived (an aborted upload, a reset connection). Nobody
 * reads the answer, and it is not the server's fault: a 499, never logged as an internal error.
 */
function clientDisconnected(cause: unknown): HttpError {
  const error = new HttpError(499, {
    code: "client_closed_request",
    message: "The client closed the connection before the request body arrived",
  });
  error.cause = cause;
  return error;
}

/** Reads at most `maxBytes` of the body; one byte more and it stops with a 413. */
async function readBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  try {
    return await readBytesUnchecked(request, maxBytes);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    // Reading a body can only fail because its connection did: the socket was reset or closed.
    throw clientDisconnected(error);
  }
}

async function readBytesUnchecked(request: Request, maxBytes: number): Promise<Uint8Array> {
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

/** A number JSON.parse may have changed: out of float range, -0, 0 (underflow?) or an unsafe integer. */
function isSuspiciousNumber(value: number): boolean {
  return (
    !Number.isFinite(value) ||
    value === 0 ||
    (Number.isInteger(value) && !Number.isSafeInteger(value))
  );
}

interface JsonInspection {
  /** The body nests deeper than the limit. */
  tooDeep: boolean;
  /** Numbers that may not be what was sent, with where they are (at most 20). */
  suspicious: Array<{ value: number; loc: Array<string | number> }>;
}

interface WalkItem {
  value: unknown;
  depth: number;
  key: string | number | undefined;
  parent: WalkItem | undefined;
}

function locOf(item: WalkItem): Array<string | number> {
  const loc: Array<string | number> = [];
  for (let at: WalkItem | undefined = item; at?.key !== undefined; at = at.parent) {
    loc.unshift(at.key);
  }
  return loc;
}

/**
 * One iterative walk over parsed JSON (so it cannot overflow the stack itself): is it deeper than
 * `limit`, and which numbers need a look at their source text? Stops at the first level too deep,
 * before anything else walks the value.
 */
function inspectJson(value: unknown, limit: number): JsonInspection {
  const suspicious: JsonInspection["suspicious"] = [];
  const stack: WalkItem[] = [{ value, depth: 1, key: undefined, parent: undefined }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const current = item.value;
    if (typeof current === "number") {
      if (suspicious.length < 20 && isSuspiciousNumber(current)) {
        suspicious.push({ value: current, loc: locOf(item) });
      }
      continue;
    }
    if (typeof current !== "object" || current === null) continue;
    if (item.depth > limit) return { tooDeep: true, suspicious };
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) {
        stack.push({ value: current[index], depth: item.depth + 1, key: index, parent: item });
      }
    } else {
      for (const key of Object.keys(current).reverse()) {
        const child = (current as Record<string, unknown>)[key];
        stack.push({ value: child, depth: item.depth + 1, key, parent: item });
      }
    }
  }
  return { tooDeep: false, suspicious };
}

/**
 * Why a JSON number literal would not come back exactly as sent, or `undefined` when it would.
 * Statewave (JSONB) keeps integers up to 2^53 and floats exactly; so do we, and refuse the rest
 * instead of silently changing them.
 */
export function numberLiteralProblem(literal: string): string | undefined {
  const value = Number(literal);
  if (!Number.isFinite(value)) {
    return "it is outside the range of a 64-bit float and would be stored as null";
  }
  if (Object.is(value, -0)) return "-0 would be stored as 0";
  const mantissa = literal.split(/[eE]/)[0] ?? "";
  if (value === 0 && /[1-9]/.test(mantissa)) {
    return "it is too small for a 64-bit float and would be stored as 0";
  }
  if (/^-?\d+$/.test(literal) && !Number.isSafeInteger(value)) {
    // Past 2^53 only some integers are doubles; from 1e21 on JSON writes them as `1e+21`.
    if (BigInt(literal) !== BigInt(value) || Math.abs(value) >= 1e21) {
      return "it is an integer beyond what a 64-bit float holds exactly (2^53); send it as a string";
    }
  }
  return undefined;
}

/** Number literals of JSON text that is known to parse (strings are skipped whole). */
const jsonTokens = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * 422 unless every number in `text` comes back as sent. Only runs when the walk saw a number
 * that might have changed, so ordinary bodies are not scanned twice.
 */
function checkNumbers(text: string, suspicious: JsonInspection["suspicious"]): void {
  if (suspicious.length === 0) return;
  for (const match of text.matchAll(jsonTokens)) {
    const literal = match[0];
    if (literal.startsWith('"')) continue;
    const problem = numberLiteralProblem(literal);
    if (problem === undefined) continue;
    const parsed = Number(literal);
    const where = suspicious.find((entry) => Object.is(entry.value, parsed))?.loc ?? [];
    throw HttpError.validation([
      {
        type: "number_not_exact",
        loc: ["body", ...where],
        msg: `Number ${literal.length > 40 ? `${literal.slice(0, 40)}…` : literal} cannot be stored exactly: ${problem}`,
        input: literal,
      },
    ]);
  }
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
 *   nested deeper than {@link maxJsonDepth}, JSON that is not an object, or a number that would not
 *   come back exactly as sent (see {@link numberLiteralProblem}); 499 when the client disconnects
 *   before its body arrived.
 */
export async function readJsonBody(
  request: Request,
  maxBytes = defaultMaxBodyBytes,
): Promise<Record<string, unknown>> {
  const contentType = request.headers.get("content-type");
  if (!isJsonContentType(contentType)) {
    throw new HttpError(415, {
      code: "unsupported_media_type",
      message: `Send the body as JSON with Content-Type: application/json (got ${contentType === null ? "no Content-Type" : contentType.slice(0, 200)})`,
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
  // Depth first: every later step (the 422 below echoes the input) may walk the value.
  const inspection = inspectJson(parsed, maxJsonDepth);
  if (inspection.tooDeep) {
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
  checkNumbers(text, inspection.suspicious);
  return parsed as Record<string, unknown>;
}
