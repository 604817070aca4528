import { describe, expect, it } from "vitest";
import {
  minTenantKeyLength,
  parseTenantKeys,
  TenantKeysFileError,
} from "../../src/server/tenant-keys-file.js";

const path = "/etc/shared-ctx/keys.json";
const goodKey = "k-team-a-0123456789";

/** The error `parseTenantKeys` throws for `content`. */
function refusal(content: string | Uint8Array): TenantKeysFileError {
  try {
    parseTenantKeys(content, path);
  } catch (error) {
    expect(error).toBeInstanceOf(TenantKeysFileError);
    return error as TenantKeysFileError;
  }
  throw new Error("the file was accepted");
}

const file = (entries: string) => `{\n  "keys": [\n${entries}\n  ]\n}\n`;

describe("parseTenantKeys", () => {
  it("reads keys and their tenants, from text or from bytes", () => {
    const text = file(`    { "key": "${goodKey}", "tenants": ["team-a", "team-b"] }`);
    const expected = [{ key: goodKey, tenants: ["team-a", "team-b"] }];
    expect(parseTenantKeys(text, path)).toEqual(expected);
    expect(parseTenantKeys(new TextEncoder().encode(text), path)).toEqual(expected);
  });

  it("accepts a UTF-8 byte order mark, as bytes and as text", () => {
    const text = file(`    { "key": "${goodKey}", "tenants": ["team-a"] }`);
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    expect(parseTenantKeys(bytes, path)).toEqual([{ key: goodKey, tenants: ["team-a"] }]);
    expect(parseTenantKeys(`\uFEFF${text}`, path)).toEqual([{ key: goodKey, tenants: ["team-a"] }]);
  });

  it("refuses bytes that are not UTF-8, naming the file and their line", () => {
    const before = new TextEncoder().encode(
      `{\n  "keys": [\n    { "key": "${goodKey}", "tenants": ["a"] },\n    { "key": "k-`,
    );
    const after = new TextEncoder().encode(`-0123456789abcdef", "tenants": ["b"] }\n  ]\n}\n`);
    const error = refusal(new Uint8Array([...before, 0xff, 0xfe, ...after]));
    expect(error.message).toContain(
      `invalid tenant keys file ${path}: line 4: bytes that are not UTF-8`,
    );
    expect(error.message).toContain("can never match a request");
  });

  it("refuses a tenant holding U+0000, with its line, the entry and the reason", () => {
    const error = refusal(
      file(
        `    { "key": "${goodKey}", "tenants": ["a"] },\n    { "key": "${goodKey}-2", "tenants": [\n      "b",\n      "team\\u0000c"\n    ] }`,
      ),
    );
    expect(error.problem).toBe(
      "line 6: keys[1].tenants[1] holds the control character U+0000, which no X-Tenant-ID header carries: it can never match",
    );
  });

  it("refuses a key holding a control character", () => {
    const error = refusal(file(`    { "key": "k-0123456789\\tabcdef", "tenants": ["a"] }`));
    expect(error.problem).toBe(
      "line 3: keys[0].key holds the control character U+0009, which no X-API-Key header carries: it can never match",
    );
  });

  it(`refuses a key shorter than ${minTenantKeyLength} characters`, () => {
    const error = refusal(
      file(
        `    { "key": "${goodKey}", "tenants": ["a"] },\n    { "key": "abcde", "tenants": ["b"] }`,
      ),
    );
    expect(error.problem).toBe(
      `line 4: keys[1].key is shorter than ${minTenantKeyLength} characters (5): too easy to guess`,
    );
    // Characters, not UTF-16 units: 15 emoji are 30 units and still too short.
    expect(refusal(file(`{ "key": "${"🔑".repeat(15)}", "tenants": ["a"] }`)).problem).toMatch(
      /shorter than 16 characters \(15\)/,
    );
    expect(
      parseTenantKeys(file(`{ "key": "${"🔑".repeat(16)}", "tenants": ["a"] }`), path),
    ).toHaveLength(1);
  });

  it.each([
    ["{", /^not JSON/],
    ["{}", /^no "keys" array$/],
    ['{"keys":[1]}', /^keys\[0\] is not an object$/],
    ['{"keys":[{"key":"","tenants":["a"]}]}', /^keys\[0\]\.key is not a non-empty string$/],
    [
      `{"keys":[{"key":"${goodKey}","tenants":[""]}]}`,
      /^keys\[0\]\.tenants is not a non-empty list/,
    ],
  ])("refuses %s", (text, problem) => {
    expect(refusal(text).problem).toMatch(problem);
  });
});
