import { HookInputError } from "./errors/hook-input-error.js";

/**
 * A hook's input read as far as the check needs. A `Write` carries the whole file in
 * `tool_input.content` (a `PostToolUse` of an `Edit` carries it again in `tool_response`), and no
 * hook reads those: it needs the tool's name, the file's path, a Bash command. Kept whole, a
 * 20 MiB write meant 20 MiB (and more as a JS string) held for a path of 40 bytes, and over the
 * old cap of 16 MiB the edit was blocked for its size alone. Skimmed, the input streams through
 * once: every JSON string value keeps at most its first {@link skimLimits}`.stringBytes` bytes
 * (keys are kept whole), the rest is skipped as it arrives, and what is kept is parsed as usual.
 * Pure over its chunks.
 */

export const skimLimits = {
  /** Each string's first bytes kept: paths and commands are far shorter. */
  stringBytes: 256 * 1024,
  /** What is kept in all (the structure and the strings' kept parts). */
  totalBytes: 16 * 1024 * 1024,
} as const;

const quote = 0x22;
const backslash = 0x5c;
const letterU = 0x75;

/** Where the skim is inside a string. */
interface StringState {
  /** An object's key: kept whole (two keys cut alike would become one). */
  key: boolean;
  /** Bytes of the current string kept so far. */
  kept: number;
  /** The last byte was a backslash (the next one is escaped). */
  escaped: boolean;
  /** Hex digits of a `\uXXXX` escape still to come. */
  hexLeft: number;
  /** The rest of this string is being skipped. */
  cut: boolean;
}

/**
 * The JSON text of `chunks` with each string shortened to `stringBytes` bytes (cut between two
 * characters and outside any escape, so the text stays valid JSON).
 * @throws HookInputError when what is kept exceeds `totalBytes`
 */
export async function skimJson(
  chunks: AsyncIterable<Buffer | string>,
  limits: { stringBytes: number; totalBytes: number } = skimLimits,
): Promise<string> {
  const kept: Buffer[] = [];
  let size = 0;
  let inString = false;
  const state: StringState = { key: false, kept: 0, escaped: false, hexLeft: 0, cut: false };
  // Which containers are open ("{" or "["), and whether the next string is an object's key.
  const open: number[] = [];
  let expectKey = false;
  for await (const raw of chunks) {
    const chunk = typeof raw === "string" ? Buffer.from(raw) : raw;
    let from = 0;
    for (let index = 0; index < chunk.length; index += 1) {
      const byte = chunk[index] as number;
      if (!inString) {
        if (byte === quote) {
          inString = true;
          Object.assign(state, { key: expectKey, kept: 0, escaped: false, hexLeft: 0, cut: false });
        } else expectKey = structure(open, byte, expectKey);
        continue;
      }
      const ends = byte === quote && !state.escaped && state.hexLeft === 0;
      if (state.cut) {
        if (ends) {
          // Skipped up to here: the closing quote is kept.
          from = index;
          inString = false;
        } else trackEscape(state, byte);
        continue;
      }
      if (ends) {
        inString = false;
        continue;
      }
      if (!state.key && state.kept >= limits.stringBytes && cuttableBefore(state, byte)) {
        state.cut = true;
        trackEscape(state, byte);
        size += index - from;
        kept.push(chunk.subarray(from, index));
        continue;
      }
      state.kept += 1;
      trackEscape(state, byte);
    }
    if (!(inString && state.cut)) {
      size += chunk.length - from;
      kept.push(chunk.subarray(from));
    }
    if (size > limits.totalBytes) {
      throw new HookInputError(
        "",
        `over ${limits.totalBytes} bytes even with each string cut to ${limits.stringBytes} bytes`,
      );
    }
  }
  return Buffer.concat(kept).toString("utf8");
}

const openObject = 0x7b;
const openArray = 0x5b;
const closeObject = 0x7d;
const closeArray = 0x5d;
const comma = 0x2c;
const colon = 0x3a;

/** Follows the containers outside strings: whether the next string is an object's key. */
function structure(open: number[], byte: number, expectKey: boolean): boolean {
  switch (byte) {
    case openObject:
    case openArray:
      open.push(byte);
      return byte === openObject;
    case closeObject:
    case closeArray:
      open.pop();
      return false;
    case comma:
      return open.at(-1) === openObject;
    case colon:
      return false;
    default:
      return expectKey;
  }
}

/** Whether a string can be cut before `byte`: between two characters, outside any escape. */
function cuttableBefore(state: StringState, byte: number): boolean {
  // 0b10xxxxxx continues a UTF-8 character.
  return !state.escaped && state.hexLeft === 0 && (byte & 0xc0) !== 0x80;
}

/** Follows `\` escapes (and the four hex digits of `\u`) through a string. */
function trackEscape(state: StringState, byte: number): void {
  if (state.hexLeft > 0) state.hexLeft -= 1;
  else if (state.escaped) {
    state.escaped = false;
    if (byte === letterU) state.hexLeft = 4;
  } else if (byte === backslash) state.escaped = true;
}
