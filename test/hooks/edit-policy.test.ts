import { describe, expect, it } from "vitest";
import type { Memory } from "../../src/context/context-store.js";
import type { EditActivity } from "../../src/hooks/edit-activity.js";
import { decideEdit, type EditFacts, stanceOn } from "../../src/hooks/edit-policy.js";
import { defaultHookSettings } from "../../src/hooks/project-config.js";

function decision(
  id: string,
  content: string,
  options: { source: string; at: string; target?: string; contradicts?: string[] },
): Memory {
  return {
    id,
    subjectId: "s",
    kind: "architectural_decision",
    content,
    summary: content,
    confidence: 0.9,
    validFrom: options.at,
    validTo: null,
    sourceEpisodeIds: [`ep-${id}`],
    metadata: {
      source: options.source,
      ...(options.target ? { target: options.target } : {}),
      ...(options.contradicts ? { contradicts: options.contradicts } : {}),
    },
    status: "active",
    createdAt: options.at,
    updatedAt: options.at,
  };
}

const noActivity: EditActivity = { claims: [], denials: [], sessionStarts: new Map() };

function facts(overrides: Partial<EditFacts>): EditFacts {
  return {
    module: "legacy-billing",
    path: "src/legacy-billing/a.ts",
    agent: "b",
    decisions: [],
    activity: noActivity,
    escalations: [],
    settings: defaultHookSettings,
    ...overrides,
  };
}

const retire = decision("m1", "Retire legacy-billing", {
  source: "a",
  at: "2026-01-01T10:00:00.000Z",
  target: "legacy-billing",
});

describe("decideEdit", () => {
  it("allows an edit nobody decided anything about, with nothing to add", () => {
    expect(decideEdit(facts({}))).toMatchObject({ decision: "allow", conflicts: [], unread: [] });
  });

  it("denies an edit of a module someone else retired", () => {
    const verdict = decideEdit(facts({ decisions: [retire] }));
    expect(verdict.decision).toBe("deny");
    expect(verdict.conflicts).toEqual([
      { type: "retired", decision: expect.objectContaining({ id: "m1", author: "a" }) },
    ]);
    expect(verdict.reason).toContain(
      'a decided "Retire legacy-billing" (decision m1, 2026-01-01 10:00 UTC)',
    );
  });

  it("asks instead when the project says so", () => {
    const verdict = decideEdit(
      facts({ decisions: [retire], settings: { ...defaultHookSettings, onConflict: "ask" } }),
    );
    expect(verdict.decision).toBe("ask");
  });

  it("lets the author of the retirement edit (it is theirs to remove)", () => {
    expect(decideEdit(facts({ decisions: [retire], agent: "a" })).decision).toBe("allow");
  });

  it("reads a retirement in the words without a target", () => {
    const untargeted = decision(
      "m2",
      "Deprecate the legacy billing module in favour of billing-v2",
      { source: "a", at: "2026-01-01T10:00:00.000Z" },
    );
    expect(decideEdit(facts({ decisions: [untargeted] })).decision).toBe("deny");
  });

  it("lets a newer keep stand over an older retirement", () => {
    const keep = decision("m3", "Keep legacy-billing", {
      source: "lead",
      at: "2026-01-01T11:00:00.000Z",
      target: "legacy-billing",
    });
    const verdict = decideEdit(facts({ decisions: [retire, keep] }));
    expect(verdict.decision).toBe("allow");
    expect(verdict.unread.map((ref) => ref.id)).toEqual(["m3", "m1"]);
  });

  it("treats a keep written without knowing the retirement as an open dispute", () => {
    const keep = decision("m3", "Keep legacy-billing", {
      source: "lead",
      at: "2026-01-01T11:00:00.000Z",
      target: "legacy-billing",
      contradicts: ["m1"],
    });
    const verdict = decideEdit(facts({ decisions: [retire, keep] }));
    expect(verdict.decision).toBe("deny");
    expect(verdict.conflicts).toEqual([
      {
        type: "disputed",
        about: "legacy-billing",
        sides: [
          { agent: "lead", says: "Keep legacy-billing" },
          { agent: "a", says: "Retire legacy-billing" },
        ],
      },
    ]);
  });

  it("ignores decisions about other modules", () => {
    const other = decision("m4", "Retire orders", {
      source: "a",
      at: "2026-01-01T10:00:00.000Z",
      target: "orders",
    });
    expect(decideEdit(facts({ decisions: [other] })).decision).toBe("allow");
  });

  describe("claims", () => {
    const claim = {
      module: "legacy-billing",
      agent: "c",
      description: "c edited x (Edit)",
      at: "2026-01-01T10:00:00.000Z",
      expiresAt: "2026-01-01T10:15:00.000Z",
    };
    const activity: EditActivity = { claims: [claim], denials: [], sessionStarts: new Map() };

    it("denies while another session holds the module", () => {
      const verdict = decideEdit(facts({ activity }));
      expect(verdict.conflicts).toEqual([{ type: "claimed", claim }]);
      expect(verdict.reason).toContain("session c is working on legacy-billing");
    });

    it("never blocks the holder itself", () => {
      expect(decideEdit(facts({ activity, agent: "c" })).decision).toBe("allow");
    });

    it("follows a person's settlement: the holder goes on, earlier claims of others lapse", () => {
      const settled = { holder: "b", at: "2026-01-01T10:05:00.000Z" };
      expect(decideEdit(facts({ activity, settlement: settled })).decision).toBe("allow");
      expect(
        decideEdit(facts({ activity, settlement: { holder: "c", at: settled.at }, agent: "d" }))
          .decision,
      ).toBe("deny");
    });
  });

  it("denies while a shared-state escalation on the module is open, naming it", () => {
    const verdict = decideEdit(
      facts({
        escalations: [
          {
            id: "modules/legacy-billing#0",
            about: "modules/legacy-billing",
            sides: [{ agent: "c", says: "claimed-by:c" }],
          },
        ],
      }),
    );
    expect(verdict.decision).toBe("deny");
    expect(verdict.reason).toContain("resolve_escalation modules/legacy-billing#0");
  });

  it("shows only decisions published after the session was last shown the module's", () => {
    const keep = decision("m3", "Keep legacy-billing", {
      source: "lead",
      at: "2026-01-01T11:00:00.000Z",
      target: "legacy-billing",
    });
    const seen: EditActivity = {
      claims: [],
      denials: [],
      sessionStarts: new Map([["b", "2026-01-01T10:30:00.000Z"]]),
    };
    expect(
      decideEdit(facts({ decisions: [retire, keep], activity: seen })).unread.map((ref) => ref.id),
    ).toEqual(["m3"]);
  });
});

describe("stanceOn", () => {
  it.each([
    ["Retire legacy-billing", "legacy-billing", undefined, "deprecate"],
    ["Keep legacy-billing", "legacy-billing", undefined, "keep"],
    ["Use Postgres for orders", "orders", "orders", "mentions"],
    ["Use Postgres for orders", "orders", undefined, undefined],
    ["Retire the old ledger", "legacy-billing", "legacy-billing", "deprecate"],
    ["Retire it", "legacy-billing", "legacy-billing", "mentions"],
    // Another module named in a retiring clause of a decision targeted elsewhere is not retired.
    ["Retire legacy-billing: invoices move to payments", "payments", "legacy-billing", "mentions"],
    [
      "Retire legacy-billing: invoices move to payments",
      "legacy-billing",
      "legacy-billing",
      "deprecate",
    ],
  ])("%s about %s (target %s) → %s", (content, module, target, expected) => {
    const memory = decision("m", content, {
      source: "a",
      at: "2026-01-01T10:00:00.000Z",
      ...(target ? { target } : {}),
    });
    expect(stanceOn(memory, module)).toBe(expected);
  });
});
