import { useStdout } from "ink";
import { useEffect, useState } from "react";

/** The terminal's size now. */
export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

/**
 * The terminal's columns and rows, updated on resize. Falls back to 80×24 when the stream does not
 * say (a test stream, a pipe).
 */
export function useTerminalSize(fallback: TerminalSize = { columns: 80, rows: 24 }): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => ({
    columns: stdout.columns || fallback.columns,
    rows: stdout.rows || fallback.rows,
  });
  const [size, setSize] = useState(read);
  useEffect(() => {
    let cancelled = false;
    const onResize = () => {
      if (!cancelled)
        setSize({
          columns: stdout.columns || fallback.columns,
          rows: stdout.rows || fallback.rows,
        });
    };
    stdout.on("resize", onResize);
    return () => {
      cancelled = true;
      stdout.off("resize", onResize);
    };
  }, [stdout, fallback.columns, fallback.rows]);
  return size;
}
