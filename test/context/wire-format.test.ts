import { describe, expect, it } from "vitest";
import { fromWire, snakeKeyToCamel, toWire } from "../../src/context/wire-format.js";

describe("wire-format", () => {
  it("rewrites keys recursively but leaves payload, metadata and provenance untouched", () => {
    const camel = {
      subjectId: "s",
      payload: { camelKey: { deepKey: 1 }, snake_key: [{ innerKey: 2 }] },
      metadata: { toolName: "x" },
      nested: [{ sessionId: "a", provenance: { factIds: [] } }],
      skipped: undefined,
    };
    const wire = toWire(camel);
    expect(wire).toEqual({
      subject_id: "s",
      payload: { camelKey: { deepKey: 1 }, snake_key: [{ innerKey: 2 }] },
      metadata: { toolName: "x" },
      nested: [{ session_id: "a", provenance: { factIds: [] } }],
    });
    expect(
      fromWire({ subject_id: "s", provenance: { fact_ids: ["m1"] }, created_at: "t" }),
    ).toEqual({
      subjectId: "s",
      provenance: { fact_ids: ["m1"] },
      createdAt: "t",
    });
  });

  it("passes scalars and arrays through", () => {
    expect(toWire([1, "a", null, { aB: true }])).toEqual([1, "a", null, { a_b: true }]);
  });

  it("keeps a __proto__ key as a key, not as the object's prototype", () => {
    const camel = JSON.parse('{"__proto__": {"polluted": true}, "subjectId": "s"}');
    const wire = toWire(camel) as Record<string, unknown>;
    expect(Object.getPrototypeOf(wire)).toBe(Object.prototype);
    expect(Object.keys(wire)).toEqual(["__proto__", "subject_id"]);
    expect(wire.polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(wire, "__proto__")?.value).toEqual({ polluted: true });
  });
});

describe("wire keys, the SDK's own rules", () => {
  it("folds a run of underscores with the letter after it", () => {
    expect(snakeKeyToCamel("subject__id")).toBe("subjectId");
  });

  it("leaves out a key whose value is undefined, as JSON would", () => {
    expect(Object.keys(toWire({ subjectId: "s", sessionId: undefined }) as object)).toEqual([
      "subject_id",
    ]);
    expect(Object.keys(fromWire({ subject_id: "s", session_id: undefined }) as object)).toEqual([
      "subjectId",
    ]);
  });
});
