// A vitest setup file (vitest.config.ts `setupFiles`): every fast-check property in the suite runs
// from one seed, taken from FC_SEED (CI sets a fixed one, then runs the properties once more with a
// random one) or drawn here, and a failing property names the seed that reproduces it.
import fc from "fast-check";
import { afterEach } from "vitest";

/** The seed of this test file's properties: FC_SEED when it is an integer, else a random one. */
export const fastCheckSeed = seedFrom(process.env.FC_SEED);

function seedFrom(value: string | undefined): number {
  const parsed = Number(value);
  if (value !== undefined && value !== "" && Number.isSafeInteger(parsed)) return parsed;
  // Any 32-bit integer, as fast-check draws its own.
  return Math.floor(Math.random() * 0x1_0000_0000) - 0x8000_0000;
}

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: fastCheckSeed });

afterEach((context) => {
  const failed = context.task.result?.errors?.some((error) =>
    String(error.message).includes("Property failed"),
  );
  if (failed) {
    process.stderr.write(
      `fast-check: "${context.task.name}" failed with seed ${fastCheckSeed}; rerun with FC_SEED=${fastCheckSeed}\n`,
    );
  }
});
