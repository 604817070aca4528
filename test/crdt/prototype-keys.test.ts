import { describe, expect, it } from "vitest";
import { StateReplica } from "../../src/crdt/state-replica.js";

describe("StateReplica with keys named like Object members (issue 11)", () => {
  it("keeps a __proto__ key of a map write as data and never touches Object.prototype", () => {
    const replica = new StateReplica({
      subjectId: "s",
      peerId: 1n,
      schema: { cfg: { settings: "map" } },
      now: () => 0,
    });
    replica.write(
      "agent-a",
      "cfg",
      "settings",
      JSON.parse('{"__proto__":{"polluted":"a"},"ok":1}'),
    );
    replica.write("agent-b", "cfg", "settings", JSON.parse('{"__proto__":{"other":"b"}}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).other).toBeUndefined();
    expect(JSON.stringify(replica.get("cfg", "settings"))).toBe(
      '{"ok":1,"__proto__":{"other":"b","polluted":"a"}}',
    );
  });

  it.each(["constructor", "__proto__", "toString"])(
    "a namespace or key named %s is an undeclared field, not an Object member",
    (name) => {
      const replica = new StateReplica({ subjectId: "s", peerId: 2n, schema: {}, now: () => 0 });
      replica.write("agent-a", name, name, 5);
      expect(replica.get(name, name)).toBe(5);
    },
  );

  it("keeps a namespace and a key named __proto__ in toJSON()", () => {
    const replica = new StateReplica({ subjectId: "s", peerId: 3n, schema: {}, now: () => 0 });
    replica.write("agent-a", "__proto__", "__proto__", 5);
    replica.write("agent-a", "plain", "__proto__", "x");
    expect(JSON.stringify(replica.toJSON())).toBe(
      '{"__proto__":{"__proto__":5},"plain":{"__proto__":"x"}}',
    );
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});
