import type { Embeddings } from "@langchain/core/embeddings";
import type { ItemVector } from "./langgraph-item-log.js";

/**
 * Semantic search for `SyncedStore`, configured as LangGraph's stores are (`index: { embeddings,
 * dims, fields }`) and computed where LangGraph's `InMemoryStore` computes it: a batch's puts embed
 * their indexed fields (one `embedDocuments` call, each distinct text once) before anything is
 * written, and a search embeds its query (`embedQuery`). The vectors travel with the put, so every
 * process reading the item searches it without embedding it again. Type-only import of LangChain.
 */

/** LangGraph's `IndexConfig`: the embeddings, their size, and which fields to embed. */
export interface ItemIndexConfig {
  /** LangChain's `Embeddings` (e.g. `OpenAIEmbeddings`). */
  embeddings: Embeddings;
  /** The vectors' length. */
  dims: number;
  /**
   * Paths of the fields embedded when a put names none: `"text"`, `"a.b"`, `"texts[*]"`,
   * `"texts[0]"`, `"texts[-1]"`, `"*"`, `"{title,body}"`; `"$"` is the whole value as JSON.
   * @default ["$"]
   */
  fields?: string[];
}

/** A text to embed and the item field it came from (`path`, or `path.i` for one of several). */
export interface IndexedText {
  field: string;
  text: string;
}

/**
 * The texts a put embeds, as LangGraph extracts them: `index: false` none, a list those paths,
 * otherwise the config's fields.
 */
export function indexedTexts(
  value: unknown,
  index: false | string[] | undefined,
  config: ItemIndexConfig,
): IndexedText[] {
  if (index === false) return [];
  const paths = index ?? config.fields ?? ["$"];
  const texts: IndexedText[] = [];
  for (const path of paths) {
    const found = textsAt(value, path);
    if (found.length === 1 && found[0] !== undefined) texts.push({ field: path, text: found[0] });
    else {
      for (const [position, text] of found.entries()) {
        texts.push({ field: `${path}.${position}`, text });
      }
    }
  }
  return texts;
}

/**
 * Embeds every put's texts in one call (each distinct text once), or throws before anything is
 * written. Returns each put's vectors in order.
 * @throws Error when the provider fails or returns fewer vectors than texts.
 */
export async function embedPuts(
  puts: readonly IndexedText[][],
  config: ItemIndexConfig,
): Promise<ItemVector[][]> {
  const distinct = [...new Set(puts.flat().map((entry) => entry.text))];
  if (distinct.length === 0) return puts.map(() => []);
  const vectors = await config.embeddings.embedDocuments(distinct);
  const byText = new Map<string, number[]>();
  distinct.forEach((text, position) => {
    const vector = vectors[position];
    if (!vector) throw new Error(`No embedding found for text: ${text}`);
    byText.set(text, vector);
  });
  return puts.map((texts) =>
    texts.map(({ field, text }) => ({ field, vector: byText.get(text) ?? [] })),
  );
}

/** The texts at `path` in `value` (LangGraph's path syntax; scalars as strings, objects as JSON). */
function textsAt(value: unknown, path: string): string[] {
  if (path === "" || path === "$") return [JSON.stringify(value, null, 2)];
  return walk(value, tokenize(path), 0);
}

function walk(value: unknown, tokens: readonly string[], position: number): string[] {
  const token = tokens[position];
  if (token === undefined) return leafTexts(value);
  if (token.startsWith("[") && token.endsWith("]")) {
    if (!Array.isArray(value)) return [];
    const selector = token.slice(1, -1);
    if (selector === "*") return value.flatMap((element) => walk(element, tokens, position + 1));
    const parsed = Number.parseInt(selector, 10);
    if (Number.isNaN(parsed)) return [];
    const at = parsed < 0 ? value.length + parsed : parsed;
    return at >= 0 && at < value.length ? walk(value[at], tokens, position + 1) : [];
  }
  if (token.startsWith("{") && token.endsWith("}")) {
    if (typeof value !== "object" || value === null) return [];
    return token
      .slice(1, -1)
      .split(",")
      .map((field) => field.trim())
      .flatMap((field) => {
        const found = walk(value, tokenize(field), 0);
        return found.length > 0 ? [found.join(" ")] : [];
      });
  }
  if (token === "*") {
    const children = Array.isArray(value)
      ? value
      : typeof value === "object" && value !== null
        ? Object.values(value)
        : [];
    return children.flatMap((child) => walk(child, tokens, position + 1));
  }
  if (typeof value !== "object" || value === null || !Object.hasOwn(value, token)) return [];
  return walk(Reflect.get(value, token), tokens, position + 1);
}

function leafTexts(value: unknown): string[] {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return [String(value)];
  }
  if (typeof value === "object" && value !== null) return [JSON.stringify(value, null, 2)];
  return [];
}

/** `"a.b[*].c"` → `["a", "b", "[*]", "c"]`; brackets and braces stay whole. */
function tokenize(path: string): string[] {
  const tokens: string[] = [];
  let current = "";
  let depth = 0;
  for (const character of path) {
    if (depth === 0 && (character === "[" || character === "{")) {
      if (current) tokens.push(current);
      current = character;
      depth = 1;
      continue;
    }
    if (depth > 0) {
      current += character;
      if (character === "[" || character === "{") depth += 1;
      if (character === "]" || character === "}") depth -= 1;
      if (depth === 0) {
        tokens.push(current);
        current = "";
      }
      continue;
    }
    if (character === ".") {
      if (current) tokens.push(current);
      current = "";
      continue;
    }
    current += character;
  }
  if (current) tokens.push(current);
  return tokens;
}
