import type { ContextStore } from "../context/context-store.js";

/** Hono's typed per-request variables of the shared-ctx server. */
export interface ServerEnv {
  Variables: {
    /** Echoed `X-Request-ID`, or a generated one. */
    requestId: string;
    /** The store view of this request's tenant (`X-Tenant-ID`). */
    store: ContextStore;
  };
}
