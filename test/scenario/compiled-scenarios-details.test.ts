import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCompiledScenario, scenarioSourceHash } from "../../src/scenario/compiled-scenarios.js";
import { useTempDir } from "../support/temp-dir.js";

describe("readCompiledScenario", () => {
  const tempDir = useTempDir("compiled-scenarios-details-");

  /** A shipped folder holding `file` and a compiled folder with a record `name.json` naming it. */
  function compiled(name: string, file: string, text = "name: tiny\n") {
    const root = tempDir();
    const shippedDirectory = join(root, "shipped");
    const compiledDirectory = join(root, "compiled");
    mkdirSync(shippedDirectory);
    mkdirSync(compiledDirectory);
    writeFileSync(join(shippedDirectory, file), text);
    const record = { source: file, sha256: scenarioSourceHash(text), scenario: { name } };
    writeFileSync(join(compiledDirectory, `${name}.json`), JSON.stringify(record));
    return { shippedDirectory, compiledDirectory };
  }

  it("gives a record for a name in letters, digits, dashes and underscores", async () => {
    expect(await readCompiledScenario("tiny_2-b", compiled("tiny_2-b", "tiny_2-b.yaml"))).toEqual({
      name: "tiny_2-b",
    });
  });

  it("gives nothing for a name that is not a shipped name, even with a record for it", async () => {
    expect(
      await readCompiledScenario("tiny.v2", compiled("tiny.v2", "tiny.v2.yaml")),
    ).toBeUndefined();
  });

  it("gives nothing for a record whose source is another scenario's file", async () => {
    expect(await readCompiledScenario("tiny", compiled("tiny", "other.yaml"))).toBeUndefined();
  });

  it("gives nothing for a record that is not JSON", async () => {
    const directories = compiled("tiny", "tiny.yaml");
    writeFileSync(join(directories.compiledDirectory, "tiny.json"), "{ not json");
    expect(await readCompiledScenario("tiny", directories)).toBeUndefined();
  });
});
