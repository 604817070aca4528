import { describe, expect, it } from "vitest";
import type { JsonObject, Memory } from "../../src/context/context-store.js";
import type { EditActivity } from "../../src/hooks/edit-activity.js";
import { decideEdit, type EditFacts, effectOn } from "../../src/hooks/edit-policy.js";
import { defaultHookSettings } from "../../src/hooks/project-config.js";

/** An active decision as the store compiles it, with any metadata (effect, authority…). */
function decision(id: string, content: string, at: string, metadata: JsonObject): Memory {
  return {
    id,
    subjectId: "s",
    kind: "architectural_decision",
    content,
    summary: content,
    confidence: 0.9,
    validFrom: at,
    validTo: null,
    sourceEpisodeIds: [`ep-${id}`],
    metadata: { source: "a", ...metadata },
    status: "active",
    createdAt: at,
    updatedAt: at,
  };
}

const noActivity: EditActivity = { claims: [], denials: [], sessionStarts: new Map() };

function verdictOf(decisions: Memory[], agent = "b") {
  const facts: EditFacts = {
    module: "legacy-billing",
    path: "src/legacy-billing/a.ts",
    agent,
    decisions,
    activity: noActivity,
    escalations: [],
    settings: defaultHookSettings,
  };
  return decideEdit(facts);
}

const at = (minute: number) => `2026-01-01T10:${String(minute).padStart(2, "0")}:00.000Z`;

describe("enforcement by effect", () => {
  it("reads the stated effect, not the wording", () => {
    const retired = verdictOf([
      decision("m1", "A note on legacy-billing", at(0), {
        target: "legacy-billing",
        effect: "retire",
      }),
    ]);
    expect(retired.conflicts.map((conflict) => conflict.type)).toEqual(["retired"]);
    const kept = verdictOf([
      decision("m1", "Retire legacy-billing", at(0), { target: "legacy-billing", effect: "keep" }),
    ]);
    expect(kept.decision).toBe("allow");
  });

  it("replace points the agent at the replacement", () => {
    const verdict = verdictOf([
      decision("m1", "Billing moves", at(0), {
        target: "legacy-billing",
        effect: "replace",
        replacement: "invoices",
      }),
    ]);
    expect(verdict.decision).toBe("deny");
    expect(verdict.reason).toContain("put the work in invoices, which replaces it");
  });

  it("freeze refuses everyone, its author too, until a later keep lifts it", () => {
    const freeze = decision("m1", "Hold legacy-billing", at(0), {
      target: "legacy-billing",
      effect: "freeze",
    });
    const frozen = verdictOf([freeze], "a");
    expect(frozen.conflicts.map((conflict) => conflict.type)).toEqual(["frozen"]);
    expect(frozen.reason).toContain(
      "no edits to legacy-billing by anyone until a later decision lifts it",
    );
    const lifted = decision("m2", "Open legacy-billing again", at(5), {
      target: "legacy-billing",
      effect: "keep",
    });
    expect(verdictOf([freeze, lifted], "a").decision).toBe("allow");
  });

  it.each([
    ["Retire legacy-billing: invoices replaces it.", "replace"],
    ["Do not touch legacy-billing any more, it is being deleted", "retire"],
    ["Freeze legacy-billing: no new changes", "freeze"],
  ])("without an effect, %j (target legacy-billing) is enforced as %s", (content, effect) => {
    const memory = decision("m1", content, at(0), { target: "legacy-billing" });
    expect(effectOn(memory, "legacy-billing")).toMatchObject({ effect });
    expect(verdictOf([memory]).decision).toBe("deny");
  });

  it.each([
    "Retire legacy-billing",
    "Deprecate legacy-billing; use invoices",
    "Remove legacy-billing",
    "Delete legacy-billing",
    "Drop legacy-billing",
    "Sunset legacy-billing",
    "Replace legacy-billing with invoices",
    "Phase out legacy-billing",
    "Stop using legacy-billing",
    "legacy-billing is deprecated",
  ])("the phrasing %j still retires it", (content) => {
    const memory = decision("m1", content, at(0), { target: "legacy-billing" });
    expect(verdictOf([memory]).decision).toBe("deny");
  });

  it("a clause about another module says nothing about this one", () => {
    const memory = decision("m1", "Retire legacy-cache; legacy-billing stays", at(0), {});
    expect(verdictOf([memory]).decision).toBe("allow");
  });

  it("an effect stated about another target is at most a mention of this module", () => {
    const memory = decision("m1", "Retire legacy-billing's sibling", at(0), {
      target: "legacy-cache",
      effect: "retire",
    });
    expect(effectOn(memory, "legacy-billing")).toBe("mentions");
    expect(verdictOf([memory]).decision).toBe("allow");
  });
});

describe("enforcement by authority", () => {
  const personKeep = decision("p1", "Keep legacy-billing", at(0), {
    source: "alice",
    target: "legacy-billing",
    effect: "keep",
    authority: "user",
  });

  it("an agent's newer retire does not lift a person's keep", () => {
    const agentRetire = decision("a1", "Retire legacy-billing", at(5), {
      target: "legacy-billing",
      effect: "retire",
      contradicts: ["p1"],
    });
    expect(verdictOf([personKeep, agentRetire]).decision).toBe("allow");
  });

  it("an agent's newer keep does not lift a person's retire or freeze", () => {
    for (const effect of ["retire", "freeze"] as const) {
      const person = decision("p2", `${effect} legacy-billing`, at(0), {
        source: "alice",
        target: "legacy-billing",
        effect,
        authority: "user",
      });
      const agentKeep = decision("a2", "Keep legacy-billing", at(5), {
        target: "legacy-billing",
        effect: "keep",
        contradicts: ["p2"],
      });
      const verdict = verdictOf([person, agentKeep]);
      expect(verdict.decision).toBe("deny");
      expect(verdict.reason).toContain("alice (a person) decided");
    }
  });

  it("two agents' contradicting decisions stay a dispute", () => {
    const retire = decision("a1", "Retire legacy-billing", at(0), {
      target: "legacy-billing",
      effect: "retire",
    });
    const keep = decision("a2", "Keep legacy-billing", at(5), {
      source: "c",
      target: "legacy-billing",
      effect: "keep",
      contradicts: ["a1"],
    });
    expect(verdictOf([retire, keep]).conflicts.map((conflict) => conflict.type)).toEqual([
      "disputed",
    ]);
  });
});
