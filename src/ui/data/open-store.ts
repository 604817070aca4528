import { existsSync } from "node:fs";
import type { ContextStore } from "../../context/context-store.js";
import { openContextStore } from "../../context/open-context-store.js";
import { redactDatabaseUrl } from "../../context/postgres/database-url.js";
import { resolveStoreLocation } from "../../context/store-location.js";
import { messageOf } from "../../errors.js";
import { StoreOpenError } from "./store-open-error.js";

/** Which store a command reads or writes, as its flags and the environment say. */
export interface StoreSelection {
  readonly store?: "embedded" | "statewave";
  readonly db?: string;
  readonly url?: string;
  /** Postgres URL (`--database-url`); `SHARED_CTX_DATABASE_URL` when not given. */
  readonly databaseUrl?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** Where the selected store is: the embedded file path, or the server URL. */
export function describeStoreLocation(selection: StoreSelection): {
  kind: "embedded" | "statewave" | "postgres";
  location: string;
} {
  const location = resolveStoreLocation(selection);
  if (location.kind === "postgres") {
    // The password never reaches a message or a log line.
    return { kind: location.kind, location: redactDatabaseUrl(location.url) };
  }
  return location.kind === "statewave"
    ? { kind: location.kind, location: location.url }
    : { kind: location.kind, location: location.path };
}

/**
 * Opens the selected store, turning a failure into a {@link StoreOpenError} that names it. Loads
 * only that store's module (start-up: the embedded store does not load the Postgres client).
 * @param options.mustExist refuse to create a new embedded file (commands that only read runs)
 * @throws StoreOpenError
 */
export async function openStore(
  selection: StoreSelection,
  options: { mustExist?: boolean } = {},
): Promise<ContextStore> {
  const { kind, location } = describeStoreLocation(selection);
  if (
    kind === "embedded" &&
    options.mustExist &&
    location !== ":memory:" &&
    !existsSync(location)
  ) {
    throw new StoreOpenError({
      location,
      reason:
        "the file does not exist (nothing has run here yet: try `shared-ctx demo`, or point --db / SHARED_CTX_DB at your store)",
    });
  }
  try {
    return await openContextStore({
      store: kind,
      ...(selection.db !== undefined ? { db: selection.db } : {}),
      ...(selection.url !== undefined ? { url: selection.url } : {}),
      ...(selection.databaseUrl !== undefined ? { databaseUrl: selection.databaseUrl } : {}),
      env: { ...selection.env },
      cwd: selection.cwd,
    });
  } catch (error) {
    throw new StoreOpenError({
      location,
      reason: messageOf(error),
      cause: error,
    });
  }
}
