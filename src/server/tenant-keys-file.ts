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

/**
 * The tenant keys of a `--tenant-keys` file's text: `{"keys": [{"key", "tenants": [...]}]}`.
 * Each key must be non-empty, unique, and list at least one non-empty tenant.
 * @throws TenantKeysFileError naming `path` and the entry at fault
 */
export function parseTenantKeys(text: string, path: string): TenantKey[] {
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch (error) {
    const reason = messageOf(error);
    throw new TenantKeysFileError(path, `not JSON (${reason})`, { cause: error });
  }
  const keys =
    typeof content === "object" && content !== null && Object.hasOwn(content, "keys")
      ? (content as { keys: unknown }).keys
      : undefined;
  if (!Array.isArray(keys)) throw new TenantKeysFileError(path, `no "keys" array`);
  const seen = new Set<string>();
  return keys.map((entry: unknown, index): TenantKey => {
    const where = `keys[${index}]`;
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
    if (seen.has(key)) throw new TenantKeysFileError(path, `${where}.key appears twice`);
    seen.add(key);
    if (
      !Array.isArray(tenants) ||
      tenants.length === 0 ||
      !tenants.every((tenant) => typeof tenant === "string" && tenant !== "")
    ) {
      throw new TenantKeysFileError(path, `${where}.tenants is not a non-empty list of tenant ids`);
    }
    return { key, tenants: tenants as string[] };
  });
}
