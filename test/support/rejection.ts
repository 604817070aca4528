/**
 * The error `work` rejects with, checked to be an instance of `type` (its fields are then typed);
 * throws when `work` resolves or rejects with anything else.
 */
export async function rejectionOf<E extends Error>(
  work: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof type)) throw new Error(`expected a ${type.name}, got ${String(error)}`);
  return error;
}
