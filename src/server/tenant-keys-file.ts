import { messageOf, SharedCtxError } from "../errors.js";
import type { TenantKey } from "./api-key.js";

/** A `--tenant-keys` file that cannot be used; the message names the file and what is wrong. */
export class TenantKeysFileError extends SharedCtxError {
  override readonly name: string = "TenantKeysFileError";
  /** The file. */
  readonly path: string;
  /** What is wrong, in plain words. */
  readonly problem: string;

  constructor(path: string, problem: string, options?: { cause?: unknown }) {
    super(
      `invalid tenant keys file ${path}: ${problem} (expected {"keys": [{"key": "…", "tenants": ["team-a"]}]})`,
      options,
    );
    this.path = path;
    this.problem = problem;
  }
}

/** The largest tenant keys file read: it holds keys, not data. */
export const maxTenantKeysFileBytes = 1024 * 1024;

/** The shortest key accepted: a shorter one is guessed in a few tries. */
export const minTenantKeyLength = 16;

/**
 * C0 and C1 control characters and DEL: no `X-API-Key` or `X-Tenant-ID` header carries them (an
 * HTTP client refuses them in a header), so a key or tenant holding one can never match a request.
 */
function firstControlCharacter(value: string): string | undefined {
  for (const character of value) {
    const code = character.codePointAt(0) ?? 0;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return character;
  }
  return undefined;
}

/** `U+0007`: how a control character is named in a message (it is invisible as it is). */
function codePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * The file's bytes as text: a UTF-8 byte order mark is dropped (editors on Windows write one);
 * bytes that are not UTF-8 are refused, naming their line, since a key or tenant decoded from
 * them (U+FFFD in their place) can never match what a client sends.
 */
function decodeFile(content: string | Uint8Array, path: string): string {
  if (typeof content === "string") return content.replace(/^\uFEFF/, "");
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  try {
    return decoder.decode(content);
  } catch (error) {
    let line = 1;
    let start = 0;
    for (let index = 0; index <= content.length; index += 1) {
      if (index < content.length && content[index] !== 0x0a) continue;
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(content.subarray(start, index));
      } catch {
        break;
      }
      line += 1;
      start = index + 1;
    }
    throw new TenantKeysFileError(
      path,
      `line ${line}: bytes that are not UTF-8 (a key or tenant holding them can never match a request)`,
      { cause: error },
    );
  }
}

/** A string literal of the file's JSON: its value, its line, and whether it is a property name. */
interface StringToken {
  readonly value: string;
  readonly line: number;
  readonly isName: boolean;
}

/** Every string literal of a JSON text that parsed, in order, with its line. */
function stringTokens(text: string): StringToken[] {
  const tokens: StringToken[] = [];
  let line = 1;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (character === "\n") line += 1;
    if (character !== '"') continue;
    let end = index + 1;
    while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
    const value = JSON.parse(text.slice(index, end + 1)) as string;
    const next = text.slice(end + 1).match(/^\s*(\S)/)?.[1];
    tokens.push({ value, line, isName: next === ":" });
    index = end;
  }
  return tokens;
}

/**
 * The line of each entry's key and tenants: the n-th `"key"` name's value belongs to `keys[n]`,
 * and the strings after the n-th `"tenants"` name to its tenants (the shape the file must have).
 */
function entryLines(text: string): (index: number) => { key?: number; tenants: number[] } {
  const tokens = stringTokens(text);
  const after = (name: string, nth: number): number => {
    let seen = -1;
    for (let index = 0; index < tokens.length; index += 1) {
      const token = tokens[index];
      if (token?.isName && token.value === name && ++seen === nth) return index + 1;
    }
    return tokens.length;
  };
  return (nth) => {
    const first = after("tenants", nth);
    const tenants: number[] = [];
    for (let index = first; index < tokens.length && tokens[index]?.isName === false; index += 1)
      tenants.push(tokens[index]?.line ?? 0);
    return { key: tokens[after("key", nth)]?.line, tenants };
  };
}

/**
 * Why `value` (a key or a tenant) can never serve, or undefined when it can: a control character,
 * or, for a key, fewer than {@link minTenantKeyLength} characters.
 */
function unusable(value: string, what: "key" | "tenant"): string | undefined {
  const control = firstControlCharacter(value);
  if (control !== undefined) {
    const header = what === "key" ? "X-API-Key" : "X-Tenant-ID";
    return `holds the control character ${codePoint(control)}, which no ${header} header carries: it can never match`;
  }
  if (what === "key" && [...value].length < minTenantKeyLength) {
    return `is shorter than ${minTenantKeyLength} characters (${[...value].length}): too easy to guess`;
  }
  return undefined;
}

/**
 * The tenant keys of a `--tenant-keys` file: `{"keys": [{"key", "tenants": [...]}]}`, as its bytes
 * (checked to be UTF-8) or its text; a byte order mark is accepted. Each key must be unique and
 * at least {@link minTenantKeyLength} characters, list at least one non-empty tenant, and neither
 * it nor a tenant may hold a control character (no request could ever match it).
 * @throws TenantKeysFileError naming `path`, the entry at fault, its line and why
 */
export function parseTenantKeys(content: string | Uint8Array, path: string): TenantKey[] {
  const text = decodeFile(content, path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = messageOf(error);
    throw new TenantKeysFileError(path, `not JSON (${reason})`, { cause: error });
  }
  const keys =
    typeof parsed === "object" && parsed !== null && Object.hasOwn(parsed, "keys")
      ? (parsed as { keys: unknown }).keys
      : undefined;
  if (!Array.isArray(keys)) throw new TenantKeysFileError(path, `no "keys" array`);
  const lines = entryLines(text);
  const seen = new Set<string>();
  return keys.map((entry: unknown, index) => {
    const tenantKey = checkEntry(entry, `keys[${index}]`, path);
    const at = lines(index);
    const refuse = (line: number | undefined, problem: string) =>
      new TenantKeysFileError(path, `${line === undefined ? "" : `line ${line}: `}${problem}`);
    if (seen.has(tenantKey.key)) throw refuse(at.key, `keys[${index}].key appears twice`);
    seen.add(tenantKey.key);
    const keyProblem = unusable(tenantKey.key, "key");
    if (keyProblem) throw refuse(at.key, `keys[${index}].key ${keyProblem}`);
    tenantKey.tenants.forEach((tenant, position) => {
      const problem = unusable(tenant, "tenant");
      if (problem)
        throw refuse(at.tenants[position], `keys[${index}].tenants[${position}] ${problem}`);
    });
    return tenantKey;
  });
}

/** One entry's shape: a non-empty string key and a non-empty list of non-empty tenant ids. */
function checkEntry(entry: unknown, where: string, path: string): TenantKey {
  if (typeof entry !== "object" || entry === null) {
    throw new TenantKeysFileError(path, `${where} is not an object`);
  }
  const key = Object.hasOwn(entry, "key") ? (entry as { key: unknown }).key : undefined;
  const tenants = Object.hasOwn(entry, "tenants")
    ? (entry as { tenants: unknown }).tenants
    : undefined;
  if (typeof key !== "string" || key === "") {
    throw new TenantKeysFileError(path, `${where}.key is not a non-empty string`);
  }
  if (
    !Array.isArray(tenants) ||
    tenants.length === 0 ||
    !tenants.every((tenant) => typeof tenant === "string" && tenant !== "")
  ) {
    throw new TenantKeysFileError(path, `${where}.tenants is not a non-empty list of tenant ids`);
  }
  return { key, tenants: tenants as string[] };
}
