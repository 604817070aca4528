import { join } from "node:path";
import { describe } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { useTempDir } from "../../support/temp-dir.js";
import { describeStoreContract } from "../store-contract.js";

describeStoreContract("EmbeddedStore (:memory:)", async () => {
  const store = new EmbeddedStore({ path: ":memory:" });
  return { store, cleanup: () => store.close() };
});

describe("EmbeddedStore on a file", () => {
  const tempDir = useTempDir("store-contract-");
  describeStoreContract("EmbeddedStore (file)", async () => {
    const store = new EmbeddedStore({ path: join(tempDir(), "nested", "store.db") });
    return { store, cleanup: () => store.close() };
  });
});
