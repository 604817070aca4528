import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectPathsOf, realPathOf } from "../../src/hooks/real-paths.js";
import { useTempDir } from "../support/temp-dir.js";

describe("real paths", () => {
  const tempDir = useTempDir("shared-ctx-real-paths-");

  function project() {
    const base = realpathSync(tempDir());
    const root = join(base, "acme");
    mkdirSync(join(root, "src/legacy-billing"), { recursive: true });
    writeFileSync(join(root, "src/legacy-billing/invoice.ts"), "export {};\n");
    symlinkSync("legacy-billing", join(root, "src/alias"));
    symlinkSync(root, join(base, "acme-link"));
    return { base, root, link: join(base, "acme-link") };
  }

  it("resolves a file that does not exist yet through its nearest existing folder", () => {
    const { root } = project();
    expect(realPathOf(join(root, "src/alias/new/vat.ts"))).toBe(
      join(root, "src/legacy-billing/new/vat.ts"),
    );
  });

  it("gives the real project path first, then the path as given", () => {
    const { root, link } = project();
    expect(projectPathsOf(link, join(root, "src/alias/invoice.ts"))).toEqual([
      "src/legacy-billing/invoice.ts",
      "src/alias/invoice.ts",
    ]);
    expect(projectPathsOf(root, join(link, "src/legacy-billing/invoice.ts"))).toEqual([
      "src/legacy-billing/invoice.ts",
    ]);
    expect(projectPathsOf(root, "/elsewhere/x.ts")).toEqual([]);
  });
});
