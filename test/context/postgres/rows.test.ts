import { describe, expect, it } from "vitest";
import { changeKey, indexedTerms, scopePrefix } from "../../../src/context/postgres/rows.js";

/** A distinct search word of exactly `length` letters and digits. */
function word(index: number, length: number): string {
  const head = `w${String(index).padStart(8, "0")}`;
  return head + "a".repeat(length - head.length);
}

describe("changeKey", () => {
  it("is a fixed 32-hex-digit key, different for each tenant and subject", () => {
    const keys = [
      changeKey("", "alpha"),
      changeKey("", "beta"),
      changeKey("t:acme", "alpha"),
      changeKey("t:acme", "x".repeat(10_000)),
    ];
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(keys.length);
    expect(changeKey("t:acme", "alpha")).toBe(changeKey("t:acme", "alpha"));
  });
});

describe("scopePrefix", () => {
  it("is one short letters-and-digits token, different for each tenant and subject", () => {
    const prefixes = [
      scopePrefix("", "alpha"),
      scopePrefix("", "beta"),
      scopePrefix("t:acme", "alpha"),
      scopePrefix("t:acme", "x".repeat(10_000)),
    ];
    for (const prefix of prefixes) expect(prefix).toMatch(/^s[0-9a-f]{20}x$/);
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });
});

describe("indexedTerms", () => {
  const prefix = scopePrefix("", "subject");

  it("indexes each word once and counts every occurrence", () => {
    const content = `${"alpha ".repeat(20_000)}omega`;
    const indexed = indexedTerms(prefix, content);
    // Repeats take no room in the index: the word after 20 000 repeats is still indexed.
    expect(indexed.terms).toEqual(["alpha", "omega"]);
    expect(indexed.tokens).toBe(20_001);
    expect({ ...indexed.frequencies }).toEqual({ alpha: 20_000, omega: 1 });
  });

  it("leaves out words Postgres refuses as lexemes (2000 bytes with the prefix) but keeps the rest", () => {
    const longest = word(1, 1999 - prefix.length);
    const refused = word(2, 2000 - prefix.length);
    const indexed = indexedTerms(prefix, `${longest} ${refused} after`);
    expect(indexed.terms).toEqual([longest, "after"]);
    expect(indexed.tokens).toBe(3);
    expect(indexed.frequencies[refused]).toBe(1);
  });

  it("stops indexing at 512 KiB of lexemes (each byte plus one separator), still counting the rest", () => {
    const limit = 512 * 1024;
    const size = 1000; // prefix + word, in bytes
    const fitting = Array.from({ length: 523 }, (_, index) => word(index, size - prefix.length));
    const used = fitting.length * (size + 1);
    // The last word that fits ends exactly at the limit.
    const last = word(9999, limit - used - prefix.length);
    const content = [...fitting, last, "tail", "more"].join(" ");
    const indexed = indexedTerms(prefix, content);
    expect(indexed.terms).toEqual([...fitting, last]);
    expect(indexed.tokens).toBe(fitting.length + 3);
    expect(indexed.frequencies.tail).toBe(1);
  });
});
