import type { CreateEpisodeInput, JsonObject } from "./context-store.js";
import { StoreValidationError } from "./errors/store-validation-error.js";

/**
 * Input rules of the store, the same bounds as Statewave's `/v1` request schemas
 * (`statewave-contract.md` §5), checked before anything is written. Each check throws a
 * `StoreValidationError` naming the field and what it must be.
 */
export const inputLimits = {
  subjectId: 256,
  source: 256,
  type: 128,
  sessionId: 256,
  task: 4000,
  maxTokens: 128_000,
  batch: 100,
  searchLimit: 100,
  /** Statewave caps the timeline at 100; we allow paging through big runs. */
  timelineLimit: 10_000,
  subjectsLimit: 200,
  /** A tenant id (`X-Tenant-ID`): as long as a subject id. */
  tenantId: 256,
  /** An episode's idempotency key. */
  idempotencyKey: 256,
  /** A compile job id: ours are UUIDs; anything longer is refused before a lookup. */
  jobId: 256,
  /** A memory or episode id read by id (`getMemory`, `getEpisode`). */
  itemId: 256,
} as const;

/**
 * Characters as Statewave counts them (pydantic's `max_length` on a Python `str`): code points,
 * so an emoji is one character, not two UTF-16 units. The one length rule of the server and
 * the store alike.
 */
export function codePointLength(text: string): number {
  // Every code point takes one or two UTF-16 units: no surrogate means units = code points.
  if (!/[\uD800-\uDFFF]/.test(text)) return text.length;
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

/** Throws unless `value` is a string of 1..`max` characters (code points, see {@link codePointLength}). */
export function requireText(field: string, value: unknown, max: number): string {
  if (typeof value !== "string" || value.length < 1 || codePointLength(value) > max) {
    throw new StoreValidationError(field, `a string of 1..${max} characters`);
  }
  return value;
}

/**
 * U+0000, or a UTF-16 surrogate without its partner: text that Postgres cannot store (it refuses
 * U+0000) or that no store keeps as sent (an unpaired surrogate is not Unicode; UTF-8 encoders
 * replace it). Statewave answers both with a 500; every store here refuses them alike.
 */
const unstorableSource = String.raw`\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]`;
const unstorableText = new RegExp(unstorableSource);

/** A fresh pattern matching each U+0000 and unpaired surrogate (see {@link hasUnstorableText}). */
export function unstorableTextPattern(): RegExp {
  return new RegExp(unstorableSource, "g");
}

/** Whether `text` holds U+0000 or an unpaired surrogate (see {@link requireId}). */
export function hasUnstorableText(text: string): boolean {
  return unstorableText.test(text);
}

/**
 * The one id rule of every store (subject, source, type, session, tenant ids): a string of
 * 1..`max` characters (code points) without U+0000 or an unpaired surrogate. Every other
 * character, control characters included, is kept as sent, as Statewave keeps them.
 * @throws StoreValidationError
 */
export function requireId(field: string, value: unknown, max: number): string {
  const text = requireText(field, value, max);
  if (hasUnstorableText(text)) {
    throw new StoreValidationError(
      field,
      `a string of 1..${max} characters without U+0000 or unpaired surrogates`,
    );
  }
  return text;
}

/**
 * A tenant id as every store takes it: `null` (the default tenant) or a string of 0..256
 * characters by the id rule of {@link requireId}.
 * @throws StoreValidationError
 */
export function requireTenantId(value: unknown): string | null {
  if (value === null) return null;
  // "" is a tenant of its own (not the default tenant), so 0 characters are allowed here.
  if (
    typeof value !== "string" ||
    codePointLength(value) > inputLimits.tenantId ||
    hasUnstorableText(value)
  ) {
    throw new StoreValidationError(
      "tenantId",
      `null or a string of at most ${inputLimits.tenantId} characters without U+0000 or unpaired surrogates`,
    );
  }
  return value;
}

/**
 * Free text a read searches with (`task`, `q`, `kind`): 1..`max` characters; U+0000 and unpaired
 * surrogates are refused as in ids, since no stored text can contain them.
 * @throws StoreValidationError
 */
export function requireSearchText(field: string, value: unknown, max: number): string {
  return requireId(field, value, max);
}

/**
 * `searchMemories`' options as every store reads them: `limit` 0..100 (default 20); `kind` and
 * `q` strings (empty means "no filter", as on the wire) without U+0000 or unpaired surrogates,
 * which no stored memory can contain.
 * @throws StoreValidationError
 */
export function validateSearchOptions(options: { limit?: unknown; kind?: unknown; q?: unknown }): {
  limit: number;
  kind: string | undefined;
  q: string | undefined;
} {
  const limit = requireInteger("limit", options.limit, 0, inputLimits.searchLimit, 20);
  // No length bound of their own (the server's schemas bound them): any string filters.
  const filter = (field: string, value: unknown): string | undefined =>
    value === undefined || value === ""
      ? undefined
      : requireSearchText(field, value, Number.MAX_SAFE_INTEGER);
  return { limit, kind: filter("kind", options.kind), q: filter("q", options.q) };
}

/** Throws unless `value` is an integer in `min..max`; `undefined` gives `fallback`. */
export function requireInteger(
  field: string,
  value: unknown,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new StoreValidationError(field, `an integer in ${min}..${max}`);
  }
  return value;
}

/** Throws unless `value` is a non-negative integer; `undefined` gives 0. */
export function requireOffset(field: string, value: unknown): number {
  return requireInteger(field, value, 0, Number.MAX_SAFE_INTEGER, 0);
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Throws unless `value` is a JSON object (`undefined` allowed when `optional`). */
function requireObject(field: string, value: unknown, optional: boolean): JsonObject {
  if (value === undefined && optional) return {};
  if (!isJsonObject(value)) throw new StoreValidationError(field, "a JSON object");
  return value;
}

/** An episode input with every default filled in (`null` where none), checked and ready to store. */
export type ValidEpisodeInput = Required<CreateEpisodeInput>;

/**
 * Checks one `createEpisode` input. `prefix` names the item in a batch (`episodes[3].`).
 * @throws StoreValidationError
 */
export function validateEpisodeInput(input: unknown, prefix = ""): ValidEpisodeInput {
  if (!isJsonObject(input)) {
    // The item itself: `episodes[2]`, not the `episodes[2].` its fields are named under.
    throw new StoreValidationError(prefix.replace(/\.$/, "") || "input", "an object");
  }
  const candidate = input as Partial<CreateEpisodeInput>;
  const sessionId = candidate.sessionId;
  if (
    sessionId !== undefined &&
    sessionId !== null &&
    (typeof sessionId !== "string" ||
      codePointLength(sessionId) > inputLimits.sessionId ||
      hasUnstorableText(sessionId))
  ) {
    throw new StoreValidationError(
      `${prefix}sessionId`,
      `null or a string of at most ${inputLimits.sessionId} characters without U+0000 or unpaired surrogates`,
    );
  }
  return {
    subjectId: requireId(`${prefix}subjectId`, candidate.subjectId, inputLimits.subjectId),
    source: requireId(`${prefix}source`, candidate.source, inputLimits.source),
    type: requireId(`${prefix}type`, candidate.type, inputLimits.type),
    payload: requireObject(`${prefix}payload`, candidate.payload, false),
    metadata: requireObject(`${prefix}metadata`, candidate.metadata, true),
    provenance: requireObject(`${prefix}provenance`, candidate.provenance, true),
    sessionId: sessionId ?? null,
    idempotencyKey:
      candidate.idempotencyKey === undefined || candidate.idempotencyKey === null
        ? null
        : requireId(
            `${prefix}idempotencyKey`,
            candidate.idempotencyKey,
            inputLimits.idempotencyKey,
          ),
  };
}

/**
 * Checks a whole batch before anything is written: 1..100 items, each valid.
 * @throws StoreValidationError
 */
export function validateEpisodeBatch(inputs: unknown): ValidEpisodeInput[] {
  if (!Array.isArray(inputs) || inputs.length < 1 || inputs.length > inputLimits.batch) {
    throw new StoreValidationError("episodes", `an array of 1..${inputLimits.batch} episodes`);
  }
  return inputs.map((input, index) => validateEpisodeInput(input, `episodes[${index}].`));
}
