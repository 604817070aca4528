import type { CreateEpisodeInput, Episode } from "../context-store.js";
import { TenantView } from "../tenant-view.js";
import type { EmbeddedStoreCore } from "./store-core.js";

/**
 * The embedded store's tenant view: the shared one, plus group commit (creates that arrive in the
 * same event-loop turn share one transaction when the core is set up for it, as `serve` does).
 */
export class TenantStoreView extends TenantView<EmbeddedStoreCore> {
  override async createEpisode(
    input: CreateEpisodeInput,
    options?: { signal?: AbortSignal },
  ): Promise<Episode> {
    if (this.core.groupCommit) {
      return this.core.createEpisodeGrouped(this.tenantId, input, options?.signal);
    }
    return this.core.createEpisode(this.tenantId, input, options?.signal);
  }
}
