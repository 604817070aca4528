/**
 * Width arithmetic for terminal text. Every string the UI draws is ASCII plus a few single-column
 * symbols (→ … — ✔ ✖), so a code point is one column; ANSI escapes are not counted.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape sequences is the point.
const ansiPattern = /\u001B\[[0-9;?]*[ -/]*[@-~]/g;

/** The text without ANSI escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ansiPattern, "");
}

/** Columns the text takes on one line. */
export function textWidth(text: string): number {
  return [...stripAnsi(text)].length;
}

/** The text cut to `width` columns, ending in "…" when something was cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width === 1) return "…";
  return `${chars.slice(0, width - 1).join("")}…`;
}

/** The text padded with spaces (or cut) to exactly `width` columns. */
export function fitWidth(text: string, width: number): string {
  const cut = truncate(text, width);
  return cut + " ".repeat(Math.max(0, width - textWidth(cut)));
}

/**
 * Word-wraps one line to `width` columns. Words longer than the width are split, so no line ever
 * exceeds it (long module names and run ids must not push a table out of shape).
 */
export function wrapText(text: string, width: number): string[] {
  if (width <= 0) return [text];
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(/\s+/).filter((part) => part.length > 0)) {
    let rest = word;
    while (textWidth(rest) > width) {
      if (current) {
        lines.push(current);
        current = "";
      }
      const chars = [...rest];
      lines.push(chars.slice(0, width).join(""));
      rest = chars.slice(width).join("");
    }
    if (!rest) continue;
    if (!current) current = rest;
    else if (textWidth(current) + 1 + textWidth(rest) <= width) current = `${current} ${rest}`;
    else {
      lines.push(current);
      current = rest;
    }
  }
  if (current || lines.length === 0) lines.push(current);
  return lines;
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
    const height = wrapText(textOf(item), width).length;
    if (rows + height > maxRows) break;
    rows += height;
    kept.unshift(item);
  }
  return kept;
}
