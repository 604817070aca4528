/** The module a unit of work is about ("Build module X"), if it is about one. */
export function moduleOfTask(task: string): string | undefined {
  return /^Build module (\S+)$/.exec(task)?.[1];
}

/**
 * `module` and every module it depends on, transitively: what a decision must be about to bear
 * on work on `module` (a decision that retires a dependency reaches its dependents).
 */
export function bearingOn(
  module: string,
  dependsOn: ReadonlyMap<string, readonly string[]>,
): Set<string> {
  const names = new Set<string>();
  const visit = (name: string) => {
    if (names.has(name)) return;
    names.add(name);
    for (const dependency of dependsOn.get(name) ?? []) visit(dependency);
  };
  visit(module);
  return names;
}
