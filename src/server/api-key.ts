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
