import { describe, expect, it } from "vitest";
import { waitForJob } from "../../src/context/wait-for-job.js";

describe("waitForJob", () => {
  it("rejects at once with the reason of a signal that aborted before the wait began", async () => {
    // The Postgres store's status read is async: an abort can land between it and this wait, and
    // its event has then passed. The wait must not sleep the job or the whole interval out.
    const reason = new Error("stopped by the caller");
    const job = new Promise<void>(() => undefined);
    await expect(waitForJob(job, 600_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it("resolves when the job settles, before the interval ends", async () => {
    const controller = new AbortController();
    await expect(
      waitForJob(Promise.resolve(), 600_000, controller.signal),
    ).resolves.toBeUndefined();
  });
});
