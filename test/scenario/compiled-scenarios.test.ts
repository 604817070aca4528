import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCompiledScenario, scenarioSourceHash } from "../../src/scenario/compiled-scenarios.js";
import { listScenarios, loadScenario } from "../../src/scenario/load-scenario.js";
import { useTempDir } from "../support/temp-dir.js";

const names = (await listScenarios()).map((scenario) => scenario.name);

describe("readCompiledScenario", () => {
  const tempDir = useTempDir("compiled-scenarios-");

  /** A shipped folder with one scenario and a compiled folder with its record. */
  function compiled(text: string, recorded = text) {
    const root = tempDir();
    const shippedDirectory = join(root, "shipped");
    const compiledDirectory = join(root, "compiled");
    mkdirSync(shippedDirectory);
    mkdirSync(compiledDirectory);
    writeFileSync(join(shippedDirectory, "tiny.yaml"), text);
    const record = {
      source: "tiny.yaml",
      sha256: scenarioSourceHash(recorded),
      scenario: { name: "tiny" },
    };
    writeFileSync(join(compiledDirectory, "tiny.json"), JSON.stringify(record));
    return { shippedDirectory, compiledDirectory };
  }

  it.each(names)("a build record keeps %s exactly as the loader gives it", async (name) => {
    const scenario = await loadScenario(name);
    expect(JSON.parse(JSON.stringify(scenario))).toStrictEqual(scenario);
  });

  it("gives the recorded scenario while its source is unchanged", async () => {
    const directories = compiled("name: tiny\n");
    expect(await readCompiledScenario("tiny", directories)).toEqual({ name: "tiny" });
  });

  it("gives nothing once the source changed since the build", async () => {
    const directories = compiled("name: tiny\ntitle: edited\n", "name: tiny\n");
    expect(await readCompiledScenario("tiny", directories)).toBeUndefined();
  });

  it.each(["missing", "../tiny", "tiny.yaml", "sub/tiny"])(
    "gives nothing for %s (no record, or not a shipped name)",
    async (name) => {
      expect(await readCompiledScenario(name, compiled("name: tiny\n"))).toBeUndefined();
    },
  );

  describe("a record's name and source", () => {
    const tempDir = useTempDir("compiled-scenarios-names-");

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
      expect(await readCompiledScenario("tiny_2-b", compiled("tiny_2-b", "tiny_2-b.yaml"))).toEqual(
        {
          name: "tiny_2-b",
        },
      );
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
});
