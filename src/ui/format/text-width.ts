/**
 * Width arithmetic for terminal text, from the libraries Ink itself draws with (`string-width`,
 * `wrap-ansi`, `cli-truncate`), so a CJK character or an emoji counts two columns, a combining mark
 * none, and a table lines up exactly where Ink puts the text. ANSI escapes are never counted.
 */
import { createRequire } from "node:module";
import { stripVTControlCharacters } from "node:util";

/** The three width libraries, each loaded on first need. */
interface WidthLibraries {
  readonly cliTruncate: typeof import("cli-truncate").default;
  readonly stringWidth: typeof import("string-width").default;
  readonly wrapAnsi: typeof import("wrap-ansi").default;
}

/**
 * Start-up: evaluating these libraries (Unicode tables, emoji patterns) costs ~100 ms of CPU, more
 * than the rest of `shared-ctx runs`, whose table is printable ASCII. So each loads on first need,
 * synchronously through `require()` of its ES module (Node ≥ 20.19); an older Node 20 cannot, and
 * loads them up front. In the CLI bundle these `require` calls are the bundle's own
 * (scripts/bundle-cli.mjs): the copies Ink draws with, string-width behind its fast path.
 */
const require = createRequire(import.meta.url);
const preloaded: WidthLibraries | undefined = process.features.require_module
  ? undefined
  : await Promise.all([import("cli-truncate"), import("string-width"), import("wrap-ansi")]).then(
      ([truncateModule, widthModule, wrapModule]) => ({
        cliTruncate: truncateModule.default,
        stringWidth: widthModule.default,
        wrapAnsi: wrapModule.default,
      }),
    );
const loaded: { -readonly [Name in keyof WidthLibraries]?: WidthLibraries[Name] } = {
  ...preloaded,
};

function stringWidth(text: string): number {
  loaded.stringWidth ??= require("string-width").default as WidthLibraries["stringWidth"];
  return loaded.stringWidth(text);
}

function cliTruncate(...args: Parameters<WidthLibraries["cliTruncate"]>): string {
  loaded.cliTruncate ??= require("cli-truncate").default as WidthLibraries["cliTruncate"];
  return loaded.cliTruncate(...args);
}

function wrapAnsi(...args: Parameters<WidthLibraries["wrapAnsi"]>): string {
  loaded.wrapAnsi ??= require("wrap-ansi").default as WidthLibraries["wrapAnsi"];
  return loaded.wrapAnsi(...args);
}

/** The text without ANSI escape sequences. */
export function stripAnsi(text: string): string {
  return stripVTControlCharacters(text);
}

/**
 * Printable ASCII takes one column a character, as string-width and cli-truncate say too. Checked
 * first because it is most text, and string-width's first call compiles its Unicode emoji patterns
 * (~100 ms of CPU: most of `shared-ctx runs`' start-up before this shortcut).
 */
const printableAscii = /^[ -~]*$/;

/** Columns the text takes on one line (wide characters count two, combining marks none). */
export function textWidth(text: string): number {
  return printableAscii.test(text) ? text.length : stringWidth(text);
}

/** The text cut to `width` columns, ending in "…" when something was cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  if (textWidth(text) <= width) return text;
  // What cli-truncate returns for printable ASCII, without its width calls.
  if (printableAscii.test(text)) return `${text.slice(0, width - 1)}…`;
  return cliTruncate(text, width, { position: "end" });
}

/** The text padded with spaces (or cut) to exactly `width` columns. */
export function fitWidth(text: string, width: number): string {
  const cut = truncate(text, width);
  return cut + " ".repeat(Math.max(0, width - textWidth(cut)));
}

/**
 * Word-wraps one line to `width` columns, runs of whitespace collapsed. Words longer than the
 * width are split, so no line ever exceeds it (long module names and run ids must not push a table
 * out of shape).
 */
export function wrapText(text: string, width: number): string[] {
  const words = text.split(/\s+/).filter((part) => part.length > 0);
  if (width <= 0) return [words.join(" ")];
  if (words.length === 0) return [""];
  // A wide character cannot be split: at width 1 it would still take two columns.
  const wrapped = wrapAnsi(words.join(" "), Math.max(2, width), {
    hard: true,
    trim: true,
  });
  return wrapped.split("\n");
}

/**
 * Rows the text takes in an Ink `<Text wrap="wrap">` that is `width` columns wide: the same
 * wrapping Ink applies (`wrap-ansi`, hard, untrimmed), so a log measured here is exactly as tall
 * as drawn.
 */
export function wrappedRows(text: string, width: number): number {
  if (width <= 0) return 1;
  return wrapAnsi(text, width, { hard: true, trim: false }).split("\n").length;
}

/**
 * The newest items that fit in `maxRows` terminal rows once wrapped at `width`, oldest first.
 * A live pane shows the tail of its log this way without growing taller than the screen.
 */
export function fitTail<T>(
  items: readonly T[],
  textOf: (item: T) => string,
  width: number,
  maxRows: number,
): T[] {
  const kept: T[] = [];
  let rows = 0;
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] as T;
    const height = wrappedRows(textOf(item), width);
    if (rows + height > maxRows) break;
    rows += height;
    kept.unshift(item);
  }
  return kept;
}
