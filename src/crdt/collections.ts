/** Orders strings that are never equal within one sort (escalation ids, path keys). */
export function compareDistinct(left: string, right: string): number {
  return left < right ? -1 : 1;
}

/** `items` grouped by `keyOf`, groups and members in the order they first appear. */
export function groupBy<Key, Item>(
  items: Iterable<Item>,
  keyOf: (item: Item) => Key,
): Map<Key, Item[]> {
  const groups = new Map<Key, Item[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
