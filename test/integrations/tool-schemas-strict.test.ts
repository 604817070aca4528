import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { asSchema, type FlexibleSchema } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { SharedState } from "../../src/crdt/shared-state.js";
import { sharedContextTools } from "../../src/integrations/ai-sdk-tools.js";
import {
  openSharedContextMcpServer,
  type SharedContextMcpSession,
} from "../../src/integrations/mcp-server.js";
import { linkMcpClient } from "./support/in-memory-mcp.js";

/**
 * OpenAI Structured Outputs' "strict mode" rules for a function's parameters, as its guide
 * ("Structured Outputs" › "Supported schemas", platform.openai.com/docs/guides/structured-outputs)
 * states them, and as openai-node's `zodFunction`/`toStrictJsonSchema` helpers produce them:
 * 1. the root is an object (not `anyOf`);
 * 2. every object lists all its properties in `required` (an optional one is a union with `null`,
 *    e.g. `"type": ["string", "null"]`) and sets `additionalProperties: false`;
 * 3. every schema has a type: `type` (string, number, integer, boolean, object, array, null, or a
 *    list of them), `enum`/`const`, or an `anyOf` of such schemas; `{}` ("anything") is refused;
 * 4. only the supported keywords: for strings `pattern` and `format` (from a fixed list: none of
 *    ours needs one, so none is allowed here); for numbers `minimum`, `maximum`,
 *    `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`; for arrays `items`, `minItems`,
 *    `maxItems`; for objects `properties`, `required`, `additionalProperties`; `anyOf`, `$ref`,
 *    `$defs`, `description`, `title`, `enum`, `const`. Refused: `minLength`, `maxLength`,
 *    `allOf`, `oneOf`, `not`, `if`/`then`/`else`, `patternProperties`, `propertyNames`,
 *    `minProperties`, `maxProperties`, `unevaluatedProperties`, `default`.
 * Returns every rule a schema breaks, each with the path of the schema that breaks it.
 */
function strictModeViolations(schema: unknown, path = "$", root = true): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return [`${path}: not a schema object`];
  }
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  const allowed = new Set([
    "type",
    "description",
    "title",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
  ]);
  if (root) allowed.add("$schema");
  for (const key of Object.keys(node)) {
    if (!allowed.has(key)) problems.push(`${path}: keyword "${key}" is not supported`);
  }
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  if (root && !types.includes("object")) problems.push(`${path}: the root must be an object`);
  const typed = types.length > 0 || "enum" in node || "const" in node || "$ref" in node;
  if (!typed && !Array.isArray(node.anyOf))
    problems.push(`${path}: no type (a schema of "anything")`);
  if (types.includes("object")) {
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(node.required) ? node.required : [];
    for (const name of Object.keys(properties)) {
      if (!required.includes(name)) problems.push(`${path}: property "${name}" is not required`);
    }
    if (node.additionalProperties !== false) {
      problems.push(`${path}: additionalProperties is not false`);
    }
    for (const [name, property] of Object.entries(properties)) {
      problems.push(...strictModeViolations(property, `${path}.${name}`, false));
    }
  }
  if (types.includes("array")) {
    if (node.items === undefined) problems.push(`${path}: an array without items`);
    else problems.push(...strictModeViolations(node.items, `${path}[]`, false));
  }
  if (Array.isArray(node.anyOf)) {
    node.anyOf.forEach((member, index) => {
      problems.push(...strictModeViolations(member, `${path}|${index}`, false));
    });
  }
  for (const [name, definition] of Object.entries((node.$defs ?? {}) as Record<string, unknown>)) {
    problems.push(...strictModeViolations(definition, `${path}.$defs.${name}`, false));
  }
  return problems;
}

describe("strictModeViolations (the checker itself)", () => {
  it.each([
    [{ type: "object", properties: { a: { type: "string" } } }, "not required"],
    [{ type: "object", properties: {}, required: [] }, "additionalProperties"],
    [
      {
        type: "object",
        properties: { a: {} },
        required: ["a"],
        additionalProperties: false,
      },
      "no type",
    ],
    [
      {
        type: "object",
        properties: { a: { type: "string", minLength: 1 } },
        required: ["a"],
        additionalProperties: false,
      },
      '"minLength"',
    ],
    [{ anyOf: [{ type: "object" }] }, "root must be an object"],
  ])("refuses %j (%s)", (schema, problem) => {
    expect(strictModeViolations(schema).join("\n")).toContain(problem);
  });

  it("accepts a nullable optional property", () => {
    const schema = {
      type: "object",
      properties: { a: { type: ["string", "null"], pattern: "\\S" } },
      required: ["a"],
      additionalProperties: false,
    };
    expect(strictModeViolations(schema)).toEqual([]);
  });
});

describe("every tool's input schema passes OpenAI strict mode's rules", () => {
  const store = new EmbeddedStore({ path: ":memory:" });
  let session: SharedContextMcpSession;
  let client: Client;
  let state: SharedState;
  let shared: SharedContext;

  beforeAll(async () => {
    session = await openSharedContextMcpServer({ store, subjectId: "repo", agentId: "alice" });
    client = await linkMcpClient(session, "strict-check");
    state = await SharedState.open({ store, subjectId: "repo", agentId: "bob" });
    shared = new SharedContext({ store, subjectId: "repo", state });
  });

  afterAll(async () => {
    await client.close();
    await session.close();
    await shared.close();
    await state.close();
    await store.close();
  });

  it("over MCP (tools/list), for all nine tools", async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(9);
    const problems = tools.flatMap((tool) =>
      strictModeViolations(tool.inputSchema).map((problem) => `${tool.name} ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it("in the AI SDK (the JSON schema the provider is sent), for all eight tools", async () => {
    const tools = sharedContextTools(shared, { callerId: "bob", state });
    expect(Object.keys(tools)).toHaveLength(8);
    const problems: string[] = [];
    for (const [name, tool] of Object.entries(tools)) {
      const schema = await asSchema(tool.inputSchema as FlexibleSchema<unknown>).jsonSchema;
      problems.push(...strictModeViolations(schema).map((problem) => `${name} ${problem}`));
    }
    expect(problems).toEqual([]);
  });

  it("still parses what a lenient client sends: optional keys left out, an object as value", async () => {
    const published = await client.callTool({
      name: "publish_decision",
      arguments: { content: "Use Postgres", target: "database" },
    });
    expect(published.isError).toBeFalsy();
    const put = await client.callTool({
      name: "put_state",
      arguments: { namespace: "plan", key: "owners", value: { api: "alice" } },
    });
    expect(put.structuredContent).toMatchObject({ value: { api: "alice" } });
    // And what a strict one sends: every key, null for "not given", an object as JSON text.
    const strict = await client.callTool({
      name: "put_state",
      arguments: { namespace: "plan", key: "limits", value: null, valueJson: '{"rps": 10}' },
    });
    expect(strict.structuredContent).toMatchObject({ value: { rps: 10 } });
    const both = await client.callTool({
      name: "put_state",
      arguments: { namespace: "plan", key: "limits", value: 1, valueJson: "2" },
    });
    expect(both.isError).toBe(true);
  });
});
