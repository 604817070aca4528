import { describe, expect, it } from "vitest";
import { canonicalJson, defineOwn, isJsonValue, isPlainObject } from "../../src/crdt/json-value.js";

describe("isPlainObject", () => {
  it.each<[string, unknown, boolean]>([
    ["an object literal", { a: 1 }, true],
    ["an empty object", {}, true],
    ["an object without prototype", Object.create(null), true],
    ["null", null, false],
    ["an array", [1], false],
    ["an array without prototype", Object.setPrototypeOf([1], null), false],
    ["a date", new Date(0), false],
    ["a class instance", new (class Point {})(), false],
    ["a string", "a", false],
    ["a function", () => 1, false],
  ])("%s: %s", (_, value, plain) => {
    expect(isPlainObject(value)).toBe(plain);
  });
});

describe("isJsonValue", () => {
  it.each<[string, unknown, boolean]>([
    ["null", null, true],
    ["a string", "a", true],
    ["false", false, true],
    ["true", true, true],
    ["a number", -1.5, true],
    ["zero", 0, true],
    ["nested arrays and objects", { a: [1, { b: [null, "c"] }], d: {} }, true],
    ["an empty array", [], true],
    ["undefined", undefined, false],
    ["NaN", Number.NaN, false],
    ["Infinity", Number.POSITIVE_INFINITY, false],
    ["a bigint", 1n, false],
    ["a symbol", Symbol("s"), false],
    ["a function", () => 1, false],
    ["a date", new Date(0), false],
    ["an array holding undefined", [1, undefined], false],
    ["an array holding NaN after JSON", ["a", Number.NaN], false],
    ["an object holding a function", { a: 1, b: () => 1 }, false],
    ["an object holding Infinity deep down", { a: { b: [Number.NEGATIVE_INFINITY] } }, false],
  ])("%s: %s", (_, value, json) => {
    expect(isJsonValue(value)).toBe(json);
  });
});

describe("canonicalJson", () => {
  it("sorts object keys at every depth, so equal values have equal strings", () => {
    const left = { b: 1, a: { d: [2, { z: 1, y: 2 }], c: "x" } };
    const right = { a: { c: "x", d: [2, { y: 2, z: 1 }] }, b: 1 };
    expect(canonicalJson(left)).toBe('{"a":{"c":"x","d":[2,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(right)).toBe(canonicalJson(left));
  });

  it("keeps array order, escapes keys and strings, and writes undefined as null", () => {
    expect(canonicalJson(["b", "a", null])).toBe('["b","a",null]');
    expect(canonicalJson({ 'q"k': 'v"' })).toBe('{"q\\"k":"v\\""}');
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson([])).toBe("[]");
    expect(canonicalJson({})).toBe("{}");
  });
});

describe("defineOwn", () => {
  it("defines __proto__ as an own, enumerable, writable, deletable key and leaves the prototype", () => {
    const target: Record<string, unknown> = {};
    defineOwn(target, "__proto__", { polluted: true });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(Object.keys(target)).toStrictEqual(["__proto__"]);
    expect(JSON.stringify(target)).toBe('{"__proto__":{"polluted":true}}');
    expect(Reflect.set(target, "__proto__", 2)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(target, "__proto__")?.value).toBe(2);
    expect(Reflect.deleteProperty(target, "__proto__")).toBe(true);
    expect(Object.keys(target)).toStrictEqual([]);
  });
});
