import { describe, expect, it } from "vitest";
import { createAgentDirectory } from "../../../src/ui/format/agent-directory.js";
import { humanizeEncodings } from "../../../src/ui/format/humanize-encodings.js";

describe("humanizeEncodings", () => {
  const agents = createAgentDirectory([
    { id: "coder-2", role: "coder", name: "Coder 2", color: "green" },
    { id: "planner", role: "planner", name: "Planner", color: "cyan" },
  ]);

  it("says claims and decisions as meaning, with display names", () => {
    expect(
      humanizeEncodings(
        "modules/search-index: Coder 1: claimed-by:coder-1 vs Coder 2: claimed-by:coder-2 (resolved to deprecated-by:planner by Planner)",
        agents,
      ),
    ).toBe(
      "modules/search-index: Coder 1: claimed by Coder-1 vs Coder 2: claimed by Coder 2 (resolved to deprecated by Planner by Planner)",
    );
  });

  it("leaves other text alone", () => {
    expect(humanizeEncodings("Built jwt-issuer", agents)).toBe("Built jwt-issuer");
  });
});
