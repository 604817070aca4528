/**
 * string-width, with the text a terminal UI mostly draws measured without loading it.
 *
 * Ink measures every string it lays out with string-width. Importing string-width builds an
 * `Intl.Segmenter` (ICU's break-iterator data) and the `\p{RGI_Emoji}` class at module load, and
 * the first measure of a non-ASCII string compiles that class: 30–75 ms of CPU before the demo's
 * first frame on the 2-core machine this is developed on, for text that is ASCII, Latin, punctuation,
 * arrows, box drawing and Braille spinners. The CLI bundle (scripts/bundle-cli.mjs) puts this
 * function in front of each string-width copy Ink uses and loads that copy on the first string
 * outside {@link fastPathText}.
 *
 * Exact by construction, checked exhaustively by test/ui/layout/fast-string-width.test.ts against
 * the installed copies: every code point of the fast path is a grapheme cluster of its own whatever
 * stands next to it (no combining marks, joiners, Hangul jamo or regional indicators), so a width is
 * the sum of its code points' widths, each measured with string-width's own rules.
 */

/** string-width's options. */
export interface StringWidthOptions {
  readonly ambiguousIsNarrow?: boolean;
  readonly countAnsiEscapeCodes?: boolean;
}

/** string-width's default export. */
export type StringWidth = (text: string, options?: StringWidthOptions) => number;

/** What {@link fastStringWidth} is built from: the copy it stands for and that copy's own parts. */
export interface FastStringWidthParts {
  /** The string-width it stands for, loaded on the first string the fast path cannot measure. */
  readonly full: () => StringWidth;
  /** strip-ansi, as that string-width uses it. */
  readonly stripAnsi: (text: string) => string;
  /** get-east-asian-width's `eastAsianWidth`, as that string-width uses it. */
  readonly eastAsianWidth: (codePoint: number, options: { ambiguousAsWide: boolean }) => number;
  /**
   * How that copy measures a lone pictograph (©, ✔, ⌚). string-width 8: 2 columns with emoji
   * presentation, else its East Asian width (`"measure"`). string-width 7 asks emoji-regex, which
   * also counts text-presentation pictographs as 2: text holding one goes to `full` (`"delegate"`).
   */
  readonly lonePictographs: "measure" | "delegate";
}

/**
 * The text the fast path measures: printable ASCII, Latin-1 to spacing modifiers, general
 * punctuation, super/subscripts, currency, letterlike symbols, number forms, arrows, mathematical
 * operators, technical symbols, box drawing, block elements, geometric shapes, dingbats, Braille.
 */
const fastPathText =
  /^[\u0020-\u007E\u00A0-\u02FF\u2010-\u2027\u2030-\u205E\u2070-\u20C0\u2100-\u2BFF]*$/;
const printableAscii = /^[\u0020-\u007E]*$/;
/** What string-width 8 skips as invisible (its `visibleCharacterRegex`, negated). */
const invisible =
  /^[\p{Default_Ignorable_Code_Point}\p{Control}\p{Format}\p{Nonspacing_Mark}\p{Enclosing_Mark}\p{Surrogate}]$/u;
const emojiPresentation = /^\p{Emoji_Presentation}$/u;
const pictograph = /[\p{Extended_Pictographic}\p{Emoji_Presentation}]/u;

/** A string-width that measures {@link fastPathText} itself and hands anything else to `full`. */
export function fastStringWidth(parts: FastStringWidthParts): StringWidth {
  let full: StringWidth | undefined;
  const measureFully = (text: string, options: StringWidthOptions) => {
    full ??= parts.full();
    return full(text, options);
  };
  return (input, options = {}) => {
    if (typeof input !== "string" || input.length === 0) return 0;
    if (options.countAnsiEscapeCodes) return measureFully(input, options);
    const text = input.includes("\x1B") || input.includes("\x9B") ? parts.stripAnsi(input) : input;
    if (printableAscii.test(text)) return text.length;
    if (!fastPathText.test(text)) return measureFully(input, options);
    if (parts.lonePictographs === "delegate" && pictograph.test(text)) {
      return measureFully(input, options);
    }
    const eastAsianOptions = { ambiguousAsWide: options.ambiguousIsNarrow === false };
    let width = 0;
    for (const character of text) {
      if (invisible.test(character)) continue;
      width += emojiPresentation.test(character)
        ? 2
        : parts.eastAsianWidth(character.codePointAt(0) ?? 0, eastAsianOptions);
    }
    return width;
  };
}
