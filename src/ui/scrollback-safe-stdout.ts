/** Erase the scrollback (part of Ink's `clearTerminal`): the user's shell history above the UI. */
export const eraseScrollback = "\u001B[3J";

/**
 * The stream Ink draws on, with every "erase the scrollback" sequence removed from what is written.
 *
 * Ink clears the whole terminal (`ESC[2J ESC[3J ESC[H`) when a frame is as tall as the screen.
 * The demo's layout keeps every frame shorter than that, but a resize can shrink the screen under
 * a frame already drawn, and Ink redraws it once before the layout catches up; this keeps that
 * redraw from wiping the user's shell history. Everything else (size, events, TTY-ness) is the
 * stream's own.
 */
export function scrollbackSafe(stdout: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const text =
      typeof chunk === "string"
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString("utf8")
          : String(chunk);
    const safe = text.includes(eraseScrollback) ? text.split(eraseScrollback).join("") : chunk;
    return (stdout.write as (...args: unknown[]) => boolean).call(stdout, safe, ...rest);
  };
  return new Proxy(stdout, {
    get(target, property) {
      if (property === "write") return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
