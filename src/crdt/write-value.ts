import type { JsonValue } from "../context/context-store.js";
import { FieldKindError } from "./errors/field-kind-error.js";
import type { Escalation } from "./escalation.js";
import {
  type FieldKind,
  inferFieldKind,
  type NamespaceSchema,
  valueFitsKind,
} from "./field-kind.js";
import { isPlainObject } from "./json-value.js";
import { pathsRelated } from "./map-leaves.js";
import type { FieldView } from "./materialize-field.js";
import { uniqueJson } from "./unique-json.js";

// What a write stores, given the field it writes to: the part of a text it adds, a set's new
// elements, the dispute heads it joins, and the kind a schema declares for the field.

/** What a write stores, given what the field holds; undefined when it would change nothing. */
export function storedValue(
  kind: FieldKind,
  value: JsonValue,
  view: FieldView | undefined,
): JsonValue | undefined {
  const sameKind = view !== undefined && view.kind === kind;
  switch (kind) {
    case "text": {
      const text = String(value);
      if (!sameKind || !Array.isArray(view.attribution)) return text;
      // A read-modify-write append: store only what was added, so concurrent appends all stay.
      // The writer may have read an older text (fewer segments): try the longest prefix first.
      const lines = view.attribution as Array<{ text: string }>;
      // Most appends do not repeat the text read: skip the prefix search (O(length)).
      if (!text.startsWith(lines[0]?.text ?? "")) {
        return text === "" ? undefined : text;
      }
      const segments = lines.map((segment) => segment.text);
      let prefix = segments.join("\n");
      for (let count = segments.length; count > 0; count--) {
        if (prefix.length > 0 && text.startsWith(prefix)) {
          const rest = text.slice(prefix.length);
          if (rest === "") return undefined;
          if (rest.startsWith("\n")) return rest.slice(1);
        }
        prefix = prefix.slice(
          0,
          Math.max(0, prefix.length - (segments[count - 1]?.length ?? 0) - 1),
        );
      }
      return text === "" ? undefined : text;
    }
    case "set": {
      // A set write never reads the field (see `needsView` in `write`): it stores its elements
      // once each, and reading the field drops the ones already present.
      return uniqueJson(Array.isArray(value) ? value : [value]);
    }
    case "counter":
    case "register":
    case "map":
      return value;
  }
}

/** On a disputed register (or map leaf) a plain write joins the dispute instead of ending it. */
export function joinedHeads(kind: FieldKind, value: JsonValue, view: FieldView): string[] {
  if (kind === "register") return view.disputedHeads.get("") ?? [];
  if (!isPlainObject(value) || kind !== "map") return [];
  const written = leafPaths(value);
  const joined = new Set<string>();
  for (const [pathKey, heads] of view.disputedHeads) {
    if (pathKey === "") continue;
    const path = JSON.parse(pathKey) as string[];
    if (written.some((leaf) => pathsRelated(leaf, path)))
      for (const head of heads) joined.add(head);
  }
  return [...joined];
}

/**
 * The kind the schema declares for `namespace.key`, reading own members only: both names come
 * from callers and other replicas, and `schema["constructor"]` must not find `Object`.
 */
export function declaredKind(
  schema: Readonly<Record<string, Readonly<Record<string, FieldKind>> | undefined>>,
  namespace: string,
  key: string,
): FieldKind | undefined {
  const fields = Object.hasOwn(schema, namespace) ? schema[namespace] : undefined;
  return fields && Object.hasOwn(fields, key) ? fields[key] : undefined;
}

/** `value` nested at `path` (a leaf resolution's stored value). */
function nestAtPath(path: readonly string[], value: JsonValue): JsonValue {
  let nested: JsonValue = value;
  for (const part of [...path].reverse()) nested = { [part]: nested };
  return nested;
}

/** Every path to a leaf of `value` (an empty object is a leaf of its own). */
function leafPaths(value: Record<string, unknown>, prefix: string[] = []): string[][] {
  const paths: string[][] = [];
  const names = Object.keys(value);
  if (names.length === 0) paths.push(prefix);
  for (const name of names) {
    const child = value[name];
    if (isPlainObject(child)) paths.push(...leafPaths(child, [...prefix, name]));
    else paths.push([...prefix, name]);
  }
  return paths;
}

/**
 * The kind and stored value of a resolution of `escalation` on the field `fieldKey`: a map leaf's
 * value nested at its path, else the kind the schema declares (the value must fit it), else a
 * register for a register dispute, or the kind the value implies.
 * @throws FieldKindError when the schema declares a kind the value does not fit.
 */
export function resolvedValue(
  schema: Readonly<Record<string, NamespaceSchema>>,
  escalation: Escalation,
  fieldKey: string,
  path: readonly string[] | undefined,
  value: JsonValue,
): { kind: FieldKind; stored: JsonValue } {
  const declared = declaredKind(schema, escalation.namespace, fieldKey);
  let kind: FieldKind;
  let stored: JsonValue = value;
  if (path !== undefined) {
    kind = "map";
    stored = nestAtPath(path, value);
  } else if (declared !== undefined) {
    if (!valueFitsKind(declared, value)) {
      throw new FieldKindError({
        namespace: escalation.namespace,
        key: fieldKey,
        expected: declared,
        value,
      });
    }
    kind = declared;
  } else {
    kind =
      escalation.reason === "concurrent-register" ? "register" : inferFieldKind(fieldKey, value);
  }
  return { kind, stored };
}
