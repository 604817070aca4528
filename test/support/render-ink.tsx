import { renderToString } from "ink";
import { cleanup, render } from "ink-testing-library";
import type { ReactElement } from "react";
import { afterEach } from "vitest";
import { stripAnsi } from "../../src/ui/format/text-width.js";

afterEach(() => {
  cleanup();
});

/**
 * ink-testing-library's `render`, with ANSI stripped and the empty transient frames Ink 6 +
 * React 19 sometimes write ignored; instances are cleaned up after each test.
 * Its terminal is 100 columns wide.
 */
export function renderInk(tree: ReactElement) {
  const instance = render(tree);
  const frames = () => instance.frames.map(stripAnsi).filter((frame) => frame.trim().length > 0);
  return {
    ...instance,
    /** The last non-empty frame, without ANSI. */
    lastFrame: () => frames().at(-1) ?? "",
    frames,
    /**
     * Sends keys as a terminal would, after React has flushed its pending effects: Ink subscribes
     * each render's input handler in an effect, and a person never types within the same tick.
     */
    press: async (keys: string) => {
      await new Promise((resolve) => setImmediate(resolve));
      instance.stdin.write(keys);
    },
  };
}

/** A synchronous render at a given width, without ANSI (Ink's `renderToString`). */
export function renderAt(tree: ReactElement, columns: number): string {
  return stripAnsi(renderToString(tree, { columns }));
}

/** Key sequences for `press`. */
export const keys = {
  up: "\u001B[A",
  down: "\u001B[B",
  enter: "\r",
  escape: "\u001B",
  ctrlC: "\u0003",
} as const;
