import type { ContextStore } from "../context/context-store.js";

/** Hono's typed per-request variables of the shared-ctx server. */
export interface ServerEnv {
  Variables: {
    /** Echoed `X-Request-ID`, or a generated one. */
    requestId: string;
    /** The store view of this request's tenant (`X-Tenant-ID`). */
    store: ContextStore;
    /**
     * Whether the request presented a valid key (always false on a server without keys): only
     * then does `/readyz` say why it is not ready.
     */
    authenticated: boolean;
  };
}
