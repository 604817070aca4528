import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HookInputError } from "../../src/hooks/errors/hook-input-error.js";
import { skimJson } from "../../src/hooks/skim-json.js";

/** `text` in chunks of the given sizes (the last takes the rest), as a pipe delivers it. */
async function* chunked(text: string, sizes: readonly number[]): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.length) return;
    yield bytes.subarray(at, at + size);
    at += size;
  }
  if (at < bytes.length) yield bytes.subarray(at);
}

/** Every string of `value` (keys and values), in order. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...strings(inner)]);
  }
  return [];
}

describe("skimJson", () => {
  it("keeps a Write's path whole and its 20 MiB content to its first bytes", async () => {
    const content = "x".repeat(20 * 1024 * 1024);
    const text = JSON.stringify({
      tool_name: "Write",
      tool_input: { content, file_path: "/home/alice/acme/src/orders/order.ts" },
    });
    const skimmed = JSON.parse(
      await skimJson(chunked(text, Array(400).fill(65_536)), {
        stringBytes: 1024,
        totalBytes: 4096,
      }),
    );
    expect(skimmed.tool_name).toBe("Write");
    expect(skimmed.tool_input.file_path).toBe("/home/alice/acme/src/orders/order.ts");
    expect(skimmed.tool_input.content).toBe("x".repeat(1024));
  });

  it("never cuts inside an escape or a character", async () => {
    const value = { a: `${"\\".repeat(5)}\u00e9\ud83d\ude00"\u0001${"é".repeat(10)}` };
    for (let stringBytes = 0; stringBytes < 40; stringBytes++) {
      const skimmed = JSON.parse(
        await skimJson(chunked(JSON.stringify(value), [1, 2, 3]), {
          stringBytes,
          totalBytes: 1000,
        }),
      );
      expect(value.a.startsWith(skimmed.a), `cut at ${stringBytes}`).toBe(true);
    }
  });

  it("refuses an input whose kept part is still over the total, naming it", async () => {
    const text = JSON.stringify(Array(100).fill("abcdefgh"));
    await expect(skimJson(chunked(text, [7]), { stringBytes: 4, totalBytes: 100 })).rejects.toThrow(
      new HookInputError("", "over 100 bytes even with each string cut to 4 bytes"),
    );
  });

  it("gives any JSON back as it was, apart from long strings cut to a prefix of themselves", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue(),
        fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 50 }),
        fc.integer({ min: 0, max: 12 }),
        async (value, sizes, stringBytes) => {
          const text = JSON.stringify(value);
          const skimmed: unknown = JSON.parse(
            await skimJson(chunked(text, sizes), { stringBytes, totalBytes: 1 << 20 }),
          );
          const before = strings(value);
          const after = strings(skimmed);
          expect(after).toHaveLength(before.length);
          after.forEach((kept, index) => {
            const original = before[index] ?? "";
            expect(original.startsWith(kept.replace(/\ufffd$/, ""))).toBe(true);
            if (Buffer.byteLength(JSON.stringify(original)) - 2 <= stringBytes) {
              expect(kept).toBe(original);
            }
          });
        },
      ),
    );
  });
});
