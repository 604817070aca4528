import { join } from "node:path";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { startServer } from "../../src/server/listen.js";

/**
 * The stores a hook test runs on: the embedded one (`--db`) and the same through `shared-ctx
 * serve` over loopback (`--store statewave --url`), the store behind it at hand for the test.
 */

/** A store the hooks reach: its flags, the store behind them, and what closes it. */
export interface Backend {
  readonly flags: string[];
  /** The store the hooks' records land in (the served one, through serve). */
  readonly store: ContextStore;
  close(): Promise<void>;
}

/** What a served store's writes wait for: released when the test ends. */
export interface Gate {
  readonly wait: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** `store` (and each tenant view of it, what serve writes through) with writes held by `writes`. */
function holdingWrites<T extends object>(store: T, writes: Gate): T {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "forTenant") {
        return (tenantId: string | null) => holdingWrites(value.call(target, tenantId), writes);
      }
      if (property === "createEpisode") {
        return async (...args: unknown[]) => {
          await writes.wait;
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}

export const backends = {
  embedded: async (root: string): Promise<Backend> => {
    const db = join(root, ".shared-ctx", "store.db");
    const store = new EmbeddedStore({ path: db });
    return { flags: ["--db", db], store, close: () => store.close() };
  },
  serve: async (root: string, writes?: Gate): Promise<Backend> => {
    const store = new EmbeddedStore({ path: join(root, ".shared-ctx", "served.db") });
    // A served store whose episode writes wait for `writes` (a writer holding it up) when given.
    const served = writes ? holdingWrites(store, writes) : store;
    const server = await startServer({ store: served, port: 0, shutdownTimeoutMs: 200 });
    return {
      flags: ["--store", "statewave", "--url", server.url],
      store,
      close: async () => {
        writes?.open();
        await server.close();
      },
    };
  },
} as const;

export async function decide(
  store: ContextStore,
  decision: { author: string; content: string; target: string },
): Promise<void> {
  const shared = new SharedContext({ store, subjectId: "acme" });
  await shared.decide(decision.author, decision.content, {
    kind: "architectural_decision",
    target: decision.target,
  });
  await shared.close();
}
