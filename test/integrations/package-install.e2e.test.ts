import { execFile } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The tools `sharedContextTools` gives a consumer that passes no state, in their order. */
const toolsWithoutState = [
  "check_shared_decisions",
  "publish_decision",
  "retract_decision",
  "get_decision_history",
];

/** A strict NodeNext tsconfig at `path` that type-checks the one consumer file `file`. */
function writeStrictTsconfig(path: string, file: string): void {
  writeFileSync(
    path,
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        // Our declarations are checked through their use; LangChain's own take ~40 s.
        skipLibCheck: true,
        types: ["node"],
      },
      files: [file],
    }),
  );
}

/**
 * The package as a user installs it: `npm pack`, the tarball installed into an empty folder, and
 * there the bin, the MCP server, both entry points and their types. It needs the npm registry (with
 * `--prefer-offline`, a warm cache is enough) and a built `dist/`, and takes ~30-60 s: `.ci/run`
 * runs it after the build with SHARED_CTX_PACKAGE_TEST=1; the default suite skips it.
 */
describe.skipIf(process.env.SHARED_CTX_PACKAGE_TEST !== "1")(
  "the packed package, installed",
  () => {
    // One folder for the whole file (the install is the expensive part), removed after it.
    let root: string;
    let consumer: string;
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), "shared-ctx-package-"));
      if (!existsSync(join(repoRoot, "dist", "index.js"))) {
        throw new Error("dist/ is missing: run `npm run build` first (as .ci/run does)");
      }
      const packs = join(root, "packs");
      mkdirSync(packs);
      // --ignore-scripts: `prepare` would rebuild dist/, which the caller just built.
      await run("npm", ["pack", "--ignore-scripts", "--pack-destination", packs], {
        cwd: repoRoot,
      });
      const [tarball] = readdirSync(packs).filter((name) => name.endsWith(".tgz"));
      if (!tarball) throw new Error("npm pack wrote no tarball");

      consumer = join(root, "consumer");
      mkdirSync(consumer);
      writeFileSync(
        join(consumer, "package.json"),
        JSON.stringify({ name: "consumer", private: true, type: "module" }),
      );
      const devDependencies = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"))
        .devDependencies as Record<string, string>;
      await run(
        "npm",
        [
          "install",
          "--prefer-offline",
          "--no-audit",
          "--no-fund",
          // better-sqlite3 compiles its addon when no prebuilt binary can be downloaded (minutes on
          // a small CI machine): its install script is skipped and the repo's own build copied in.
          "--ignore-scripts",
          join(packs, tarball),
          `@langchain/langgraph@${devDependencies["@langchain/langgraph"]}`,
          `@langchain/core@${devDependencies["@langchain/core"]}`,
          `typescript@${devDependencies.typescript}`,
          `@types/node@${devDependencies["@types/node"]}`,
        ],
        { cwd: consumer },
      );
      const addon = join("node_modules", "better-sqlite3", "build", "Release");
      mkdirSync(join(consumer, addon), { recursive: true });
      copyFileSync(
        join(repoRoot, addon, "better_sqlite3.node"),
        join(consumer, addon, "better_sqlite3.node"),
      );
    }, 180_000);

    it("runs `npx shared-ctx --help`", async () => {
      const { stdout } = await run("npx", ["shared-ctx", "--help"], { cwd: consumer });
      expect(stdout).toContain("Usage: shared-ctx");
      expect(stdout).toContain("mcp");
    });

    it("serves MCP with `npx shared-ctx mcp`: initialize, then a tool call", async () => {
      const transport = new StdioClientTransport({
        command: "npx",
        args: ["shared-ctx", "mcp", "--subject", "repo", "--agent", "claude", "--db", "store.db"],
        cwd: consumer,
        stderr: "pipe",
      });
      const client = new Client({ name: "package-test", version: "0.0.0" });
      await client.connect(transport);
      try {
        expect(client.getServerVersion()?.name).toBe("shared-ctx");
        const result = await client.callTool({
          name: "check_shared_decisions",
          arguments: { task: "start" },
        });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ summary: expect.any(String) });
      } finally {
        await client.close();
      }
    });

    it("imports `shared-ctx` and `shared-ctx/langgraph` and works with them", async () => {
      writeFileSync(join(consumer, "use.mjs"), consumerSource);
      const { stdout } = await run("node", ["use.mjs"], { cwd: consumer });
      expect(JSON.parse(stdout)).toEqual({
        tools: toolsWithoutState,
        value: { budget: 900 },
        disputed: false,
      });
    });

    it("requires `shared-ctx`, `shared-ctx/langgraph` and `shared-ctx/mcp` from CommonJS", async () => {
      writeFileSync(join(consumer, "use.cjs"), commonJsConsumerSource);
      const { stdout } = await run("node", ["use.cjs"], { cwd: consumer });
      expect(JSON.parse(stdout)).toEqual({
        tools: toolsWithoutState,
        value: { when: "1970-01-01T00:00:00.000Z", bookings: ["flight"] },
        // One copy of each class across the entries: a Disputed of one is a Disputed of the other.
        sameDisputed: true,
        mcp: "function",
        scenarios: expect.any(Number),
      });
      expect(JSON.parse(stdout).scenarios).toBeGreaterThan(0);
    });

    it("ships what `--help` points at (.env.example)", async () => {
      const { stdout } = await run("npx", ["shared-ctx", "--help"], { cwd: consumer });
      expect(stdout).toContain(".env.example");
      expect(existsSync(join(consumer, "node_modules", "shared-ctx", ".env.example"))).toBe(true);
    });

    it("type-checks a consumer file against the published types", async () => {
      writeFileSync(
        join(consumer, "use.ts"),
        `${consumerSource}
// The types are real, not \`any\`: each of these must be an error.
// @ts-expect-error a SyncedStore is not a string
const notAString: string = synced;
// @ts-expect-error sharedContextTools needs a callerId
sharedContextTools(shared, {});
export { notAString };
`,
      );
      writeStrictTsconfig(join(consumer, "tsconfig.json"), "use.ts");
      await expect(run("npx", ["tsc", "-p", "tsconfig.json"], { cwd: consumer })).resolves.toEqual(
        expect.objectContaining({ stdout: "" }),
      );
    });

    it("type-checks a CommonJS consumer (`require`) against the `.d.cts` declarations", async () => {
      writeFileSync(
        join(consumer, "use-require.cts"),
        `import shared = require("shared-ctx");
import langgraph = require("shared-ctx/langgraph");
import mcp = require("shared-ctx/mcp");

const store = new shared.EmbeddedStore({ path: ":memory:" });
const context = new shared.SharedContext({ store, subjectId: "s" });
const tools = shared.sharedContextTools(context, { callerId: "a" });
const retract: keyof typeof tools = "retract_decision";
const history: Promise<{ status: string }> = context.history("mem-1");
// The types are real, not \`any\`: each of these must be an error.
// @ts-expect-error sharedContextTools needs a callerId
shared.sharedContextTools(context, {});
// @ts-expect-error a Disputed is no string
const notAString: string = new langgraph.Disputed("id", []);
export { history, mcp, notAString, retract };
`,
      );
      writeStrictTsconfig(join(consumer, "tsconfig.require.json"), "use-require.cts");
      await expect(
        run("npx", ["tsc", "-p", "tsconfig.require.json"], { cwd: consumer }),
      ).resolves.toEqual(expect.objectContaining({ stdout: "" }));
      // And the entries resolve to the CommonJS declarations, not the ESM ones.
      const { stdout } = await run("npx", ["tsc", "-p", "tsconfig.require.json", "--listFiles"], {
        cwd: consumer,
        maxBuffer: 64 * 1024 * 1024,
      });
      const ours = stdout.split("\n").filter((file) => file.includes("node_modules/shared-ctx/"));
      expect(ours).toContainEqual(expect.stringMatching(/shared-ctx\/dist\/index\.d\.cts$/));
      expect(ours.filter((file) => file.endsWith(".d.ts"))).toEqual([]);
    });
  },
);

/** What a consumer writes: plain JavaScript, so it runs as `.mjs` and type-checks as `.ts`. */
const consumerSource = `import { EmbeddedStore, SharedContext, SharedState, sharedContextTools } from "shared-ctx";
import { Disputed, SyncedStore } from "shared-ctx/langgraph";

const store = new EmbeddedStore({ path: ":memory:" });
const state = await SharedState.open({ store, subjectId: "s", agentId: "a" });
const shared = new SharedContext({ store, subjectId: "s", state });
const tools = sharedContextTools(shared, { callerId: "a" });
const synced = await SyncedStore.open({ store, subjectId: "s" });
await synced.put(["plan"], "trip", { budget: 900 });
const item = await synced.get(["plan"], "trip");
const disputed = item?.value.budget instanceof Disputed;
console.log(JSON.stringify({ tools: Object.keys(tools), value: item?.value, disputed }));
await synced.close();
await shared.close();
await state.close();
await store.close();
`;

/** A CommonJS consumer: `require` of each entry, no top-level await. */
const commonJsConsumerSource = `const { EmbeddedStore, SharedContext, SharedState, sharedContextTools, Disputed, listScenarios } = require("shared-ctx");
const langgraph = require("shared-ctx/langgraph");
const { createSharedContextMcpServer } = require("shared-ctx/mcp");

(async () => {
  const store = new EmbeddedStore({ path: ":memory:" });
  const state = await SharedState.open({ store, subjectId: "s", agentId: "a" });
  const shared = new SharedContext({ store, subjectId: "s", state });
  const tools = sharedContextTools(shared, { callerId: "a" });
  const synced = await langgraph.SyncedStore.open({ store, subjectId: "s" });
  await synced.put(["plan"], "trip", { when: new Date(0), bookings: ["flight"] });
  const item = await synced.get(["plan"], "trip");
  console.log(JSON.stringify({
    tools: Object.keys(tools),
    value: item && item.value,
    sameDisputed: langgraph.Disputed === Disputed,
    mcp: typeof createSharedContextMcpServer,
    scenarios: (await listScenarios()).length,
  }));
  await synced.close();
  await shared.close();
  await state.close();
  await store.close();
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;
