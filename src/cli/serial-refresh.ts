/**
 * Re-reads on demand, one read at a time, with one more read when demands arrived meanwhile: two
 * reads in flight could settle out of order and leave the older view on screen, and a burst of
 * changes (a replayed history) costs two reads, not one per change.
 */
export function serialRefresh<T>(
  read: () => Promise<T>,
  onResult: (value: T) => void,
  onError: (error: unknown) => void = () => undefined,
): { refresh: () => void; close: () => void } {
  let reading = false;
  let changedMeanwhile = false;
  let closed = false;
  const refresh = () => {
    if (closed) return;
    if (reading) {
      changedMeanwhile = true;
      return;
    }
    reading = true;
    read()
      .then((value) => {
        if (!closed) onResult(value);
      }, onError)
      .finally(() => {
        reading = false;
        if (changedMeanwhile) {
          changedMeanwhile = false;
          refresh();
        }
      });
  };
  return {
    refresh,
    close: () => {
      closed = true;
    },
  };
}
