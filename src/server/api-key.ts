import { createHash, timingSafeEqual } from "node:crypto";

/**
 * A check of a presented API key against the configured one, in constant time: both are hashed
 * first, so neither the content nor the length of the key leaks through timing (Statewave v0.7.1
 * compares with `!=`, contract §2).
 */
export function createApiKeyCheck(expected: string): (presented: string) => boolean {
  const expectedDigest = createHash("sha256").update(expected, "utf8").digest();
  return (presented) => {
    const presentedDigest = createHash("sha256").update(presented, "utf8").digest();
    return timingSafeEqual(expectedDigest, presentedDigest);
  };
}

/** Paths served without a key, as in Statewave (`/docs`, `/redoc`, `/openapi.json` do not exist here). */
export const publicPaths: ReadonlySet<string> = new Set([
  "/healthz",
  "/health",
  "/readyz",
  "/ready",
]);

/** A key that authorises only some tenants (`serve --tenant-keys`). */
export interface TenantKey {
  /** The key, as presented in `X-API-Key` or `?api_key=`. */
  readonly key: string;
  /** The `X-Tenant-ID` values it may name; it never reaches the default tenant (no header). */
  readonly tenants: readonly string[];
}

/** What a presented key may reach: every tenant (the server's key), or the listed ones. */
export type KeyGrant =
  | { readonly kind: "all" }
  | { readonly kind: "tenants"; tenants: Set<string> };

/**
 * The check of a presented key against the server's key (every tenant) and the tenant keys,
 * in constant time per key: every configured key is compared, so the time does not say which
 * one matched. `undefined` = no key matched.
 */
export function createKeyring(options: {
  apiKey?: string;
  tenantKeys?: readonly TenantKey[];
}): (presented: string) => KeyGrant | undefined {
  const entries: Array<{ check: (presented: string) => boolean; grant: KeyGrant }> = [];
  if (options.apiKey)
    entries.push({ check: createApiKeyCheck(options.apiKey), grant: { kind: "all" } });
  for (const tenantKey of options.tenantKeys ?? []) {
    entries.push({
      check: createApiKeyCheck(tenantKey.key),
      grant: { kind: "tenants", tenants: new Set(tenantKey.tenants) },
    });
  }
  return (presented) => {
    let found: KeyGrant | undefined;
    for (const entry of entries) {
      if (entry.check(presented) && found === undefined) found = entry.grant;
    }
    return found;
  };
}
