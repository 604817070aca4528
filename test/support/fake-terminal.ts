import { EventEmitter } from "node:events";
import { stripAnsi } from "../../src/ui/format/text-width.js";

/** Ink's keyboard, as ink-testing-library's `Stdin` is: raw mode accepted, keys read on `readable`. */
class FakeKeyboard extends EventEmitter {
  readonly isTTY = true;
  #pending: string | null = null;
  setRawMode(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  read(): string | null {
    const pending = this.#pending;
    this.#pending = null;
    return pending;
  }
  /** Types `keys` as one chunk. */
  type(keys: string): void {
    this.#pending = keys;
    this.emit("readable");
    this.emit("data", keys);
  }
}

/**
 * A terminal for the CLI's interactive paths (`isTTY`, a size, events): pass `stdout` and `stdin`
 * as `CliDeps`. Ink draws on it as on a real one (cursor moves, erased lines), so `screens()`
 * strips ANSI from each write: a write that draws a frame is that whole frame.
 *
 * Ink draws only the last frame when it believes it runs in CI (is-in-ci reads `CI` when Ink is
 * first imported): a test file that looks at frames drawn before the end sets `CI=false` in
 * `vi.hoisted` first.
 */
export function fakeTerminal(size: { columns: number; rows: number }) {
  const writes: string[] = [];
  const stdout = Object.assign(new EventEmitter(), {
    isTTY: true as const,
    columns: size.columns,
    rows: size.rows,
    write(chunk: string | Uint8Array): boolean {
      writes.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return true;
    },
  });
  const keyboard = new FakeKeyboard();
  /** Every write with text in it, without ANSI, in order. */
  const screens = () =>
    writes.map((write) => stripAnsi(write)).filter((screen) => screen.trim().length > 0);
  return {
    stdout: stdout as typeof stdout & NodeJS.WriteStream,
    stdin: keyboard as unknown as NodeJS.ReadStream,
    screens,
    /** Everything written, escapes included. */
    raw: () => writes.join(""),
    /** The last write with text in it (Ink's last frame), without ANSI. */
    lastScreen: () => screens().at(-1) ?? "",
    /** Types keys after React has flushed its effects (Ink subscribes input handlers in one). */
    press: async (keys: string) => {
      await new Promise((resolve) => setImmediate(resolve));
      keyboard.type(keys);
    },
  };
}
