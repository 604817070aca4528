import { describe, expect, it } from "vitest";
import type { EditActivity } from "../../../src/hooks/edit-activity.js";
import { buildSubjectView, formatSubjectView } from "../../../src/ui/format/subject-view.js";

describe("buildSubjectView › edits (the Claude Code hooks' activity)", () => {
  const edits: EditActivity = {
    claims: [
      {
        module: "orders",
        agent: "session-d",
        description: "session-d edited src/orders/a.ts (Edit)",
        at: "2026-01-01T10:00:00.000Z",
        expiresAt: "2026-01-01T10:15:00.000Z",
      },
      {
        module: "orders",
        agent: "session-e",
        description: "session-e edited src/orders/b.ts (Write)",
        at: "2026-01-01T10:01:00.000Z",
        expiresAt: "2026-01-01T10:16:00.000Z",
      },
    ],
    denials: [
      {
        module: "legacy-billing",
        agent: "session-b",
        description:
          'session-b\'s Edit of src/legacy-billing/a.ts was denied: retired by session-a ("Retire legacy-billing")',
        at: "2026-01-01T10:02:00.000Z",
      },
    ],
    sessionStarts: new Map(),
  };
  const empty = { subjectId: "acme", episodes: [], memories: [] };

  it("shows which session holds which module (two sessions can hold one) and who was refused what", () => {
    const view = buildSubjectView(empty, undefined, edits);
    expect(view.claims).toEqual([
      { module: "orders", agent: "session-d", state: "editing" },
      { module: "orders", agent: "session-e", state: "editing" },
    ]);
    const lines = formatSubjectView(view);
    expect(lines).toContain("  session-d editing orders");
    expect(lines).toContain("Edits refused (1)");
    expect(lines).toContain(
      '  10:02 session-b\'s Edit of src/legacy-billing/a.ts was denied: retired by session-a ("Retire legacy-billing")',
    );
  });

  it("has no refused-edits section when the edit activity was not read", () => {
    const view = buildSubjectView(empty);
    expect(view.denials).toBeUndefined();
    expect(formatSubjectView(view).some((line) => line.startsWith("Edits refused"))).toBe(false);
  });
});
