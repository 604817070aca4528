import { useEffect, useState } from "react";

/** The frames of the work-in-progress spinner (the "dots" of cli-spinners). */
export const spinnerFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;

/**
 * The spinner's current frame; it turns only while `active` (no timer runs once the work is done,
 * so a finished demo sits still and the process can exit).
 */
export function useSpinner(active: boolean, intervalMs = 80): string {
  const [index, setIndex] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(
      () => setIndex((value) => (value + 1) % spinnerFrames.length),
      intervalMs,
    );
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return spinnerFrames[index] ?? "⠋";
}
