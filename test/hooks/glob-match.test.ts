import { describe, expect, it } from "vitest";
import { globToRegExp, matchesGlob, normalizeSlashes } from "../../src/hooks/glob-match.js";

describe("matchesGlob", () => {
  it.each([
    ["src/billing/**", "src/billing", true],
    ["src/billing/**", "src/billing/a.ts", true],
    ["src/billing/**", "src/billing/deep/er/a.ts", true],
    ["src/billing/**", "src/billing-v2/a.ts", false],
    ["src/billing", "src/billing/a.ts", true],
    ["src/billing", "src/billing", true],
    ["src/billing", "src/billingx/a.ts", false],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/deep/a.ts", false],
    ["src/?.ts", "src/a.ts", true],
    ["src/?.ts", "src/ab.ts", false],
    ["**/*.md", "README.md", true],
    ["**/*.md", "docs/deep/a.md", true],
    ["**/*.md", "docs/a.ts", false],
    ["**", "anything/at/all", true],
    ["packages/*/src/**", "packages/billing/src/a.ts", true],
    ["packages/*/src/**", "packages/billing/test/a.ts", false],
    ["a/**/b.ts", "a/b.ts", true],
    ["a/**/b.ts", "a/x/y/b.ts", true],
    ["a/**/b.ts", "a/x/y/c.ts", false],
    ["src/{billing,payments}/**", "src/payments/x.ts", true],
    ["src/{billing,payments}/**", "src/orders/x.ts", false],
    ["src/[ab]*.ts", "src/apple.ts", true],
    ["src/[!ab]*.ts", "src/apple.ts", false],
    ["src/[!ab]*.ts", "src/cherry.ts", true],
    ["src/[a-c].ts", "src/b.ts", true],
    ["./src/legacy/", "src/legacy/x.ts", true],
    ["src/a.b", "src/aXb", false],
    ["src/(x)", "src/(x)/y", true],
  ])("%s against %s is %s", (pattern, path, expected) => {
    expect(matchesGlob(path, pattern)).toBe(expected);
  });

  it("treats backslashes as separators", () => {
    expect(matchesGlob("src\\billing\\a.ts", "src/billing/**")).toBe(true);
  });

  it("normalizes ./, doubled and trailing slashes", () => {
    expect(normalizeSlashes("./a//b/")).toBe("a/b");
  });

  it("compiles an unclosed bracket or brace literally", () => {
    expect(globToRegExp("a[b").test("a[b")).toBe(true);
    expect(globToRegExp("a{b").test("a{b")).toBe(true);
  });
});
