import { TenantView } from "../tenant-view.js";
import type { PostgresStoreCore } from "./store-core.js";

/** The `ContextStore` of one tenant over a shared `PostgresStoreCore` (one pool). */
export class PostgresTenantView extends TenantView<PostgresStoreCore> {}
