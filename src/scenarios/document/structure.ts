/**
 * The shape every scenario document must have before anything reads it: a tree (no value that
 * contains itself, as a YAML alias to an enclosing node or a JavaScript object that refers back to
 * itself makes) at most {@link MAX_DOCUMENT_DEPTH} levels deep. Both checks walk with an explicit
 * stack, never recursion, so a document a million levels deep is refused, not a stack overflow
 * (which V8 cannot always catch: one inside its regular expression compiler ends the process).
 *
 * Implements issue 24 item 5; docs/decisions/scenario-documents.md.
 */
import { pointer, ScenarioDocumentError } from "./errors.js";

/**
 * How deep a scenario document may nest objects and lists (the document itself is level 1). Real
 * documents use fewer than 10; the limit keeps every reader of a document (the YAML composer, the
 * schema validator, `expect` comparisons, JSON output) far from the stack's end.
 */
export const MAX_DOCUMENT_DEPTH = 100;

/** What a too-deep value is told. */
export const TOO_DEEP = `nested at most ${MAX_DOCUMENT_DEPTH} levels deep (objects and lists)`;

type Segment = string | number;

interface Frame {
  readonly value: object;
  readonly path: readonly Segment[];
  readonly depth: number;
  readonly entries: readonly [Segment, unknown][];
  index: number;
  /** Levels of objects and lists from this value down (1: no object below it). */
  height: number;
}

function frameOf(value: object, path: readonly Segment[], depth: number): Frame {
  const entries: [Segment, unknown][] = Array.isArray(value) ? value.map((item, i): [Segment, unknown] => [i, item]) : Object.entries(value);
  return { value, path, depth, entries, index: 0, height: 1 };
}

/**
 * Refuses a document that is not a tree or nests deeper than {@link MAX_DOCUMENT_DEPTH}. Linear in
 * the document's size: a value reached twice (a YAML alias used twice, an object shared in a
 * JavaScript document) is walked once.
 * @throws {ScenarioDocumentError} (`syntax`) at the pointer of the value that closes a cycle, or
 *   of the first value too deep.
 * @example checkDocumentStructure({ timeline: [] }) // passes
 */
export function checkDocumentStructure(document: unknown): void {
  if (document === null || typeof document !== "object") return;
  const heights = new WeakMap<object, number>();
  const onPath = new Set<object>([document]);
  const stack: Frame[] = [frameOf(document, [], 1)];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as Frame;
    const entry = top.entries[top.index++];
    if (entry === undefined) {
      stack.pop();
      onPath.delete(top.value);
      heights.set(top.value, top.height);
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.height = Math.max(parent.height, top.height + 1);
      continue;
    }
    const [key, child] = entry;
    if (child === null || typeof child !== "object") continue;
    const path = [...top.path, key];
    if (onPath.has(child)) {
      throw new ScenarioDocumentError("syntax", [{ path: pointer(path), expected: "a value that does not contain itself (a YAML alias of an enclosing node, or an object referring back to itself): a document is a tree" }]);
    }
    const known = heights.get(child);
    if (top.depth + (known ?? 1) > MAX_DOCUMENT_DEPTH) throw new ScenarioDocumentError("syntax", [{ path: pointer(path), expected: TOO_DEEP }]);
    if (known !== undefined) {
      top.height = Math.max(top.height, known + 1);
      continue;
    }
    onPath.add(child);
    stack.push(frameOf(child, path, top.depth + 1));
  }
}

/** A token of the `yaml` package's concrete syntax tree, as far as nesting goes. */
export interface YamlCstToken {
  readonly type: string;
  readonly offset: number;
  readonly source?: string;
  readonly start?: { readonly type: string } | readonly unknown[];
  readonly value?: YamlCstToken;
  readonly items?: readonly { readonly key?: YamlCstToken | null; readonly value?: YamlCstToken }[];
}

const COLLECTIONS = new Set(["block-map", "block-seq", "flow-collection"]);

/** A map key as the document's pointer writes it. */
function keyText(key: YamlCstToken | null | undefined): string {
  const source = key?.source;
  if (source === undefined) return "?";
  if (key?.type === "single-quoted-scalar") return source.slice(1, -1).replace(/''/g, "'");
  if (key?.type === "double-quoted-scalar") {
    try {
      return JSON.parse(source) as string;
    } catch {
      return source.slice(1, -1);
    }
  }
  return source;
}

/**
 * The first collection of a YAML document's syntax tree nested deeper than
 * {@link MAX_DOCUMENT_DEPTH}, found before the tree is composed (the composer recurses once per
 * level): its pointer and character offset.
 * @returns undefined when the tree is shallow enough.
 */
export function tooDeepYaml(tokens: readonly YamlCstToken[]): { readonly path: string; readonly offset: number } | undefined {
  const stack: { token: YamlCstToken; depth: number; path: readonly Segment[] }[] = [];
  for (let i = tokens.length - 1; i >= 0; i--) stack.push({ token: tokens[i] as YamlCstToken, depth: 0, path: [] });
  while (stack.length > 0) {
    const { token, depth, path } = stack.pop() as (typeof stack)[number];
    if (token.type === "document") {
      if (token.value !== undefined) stack.push({ token: token.value, depth, path });
      continue;
    }
    if (!COLLECTIONS.has(token.type)) continue;
    if (depth + 1 > MAX_DOCUMENT_DEPTH) return { path: pointer(path), offset: token.offset };
    const isMap = token.type === "block-map" || (token.type === "flow-collection" && !Array.isArray(token.start) && (token.start as { type: string } | undefined)?.type === "flow-map-start");
    const children: { token: YamlCstToken; depth: number; path: readonly Segment[] }[] = [];
    for (const [index, item] of (token.items ?? []).entries()) {
      // In a list, `[a: 1]` is a one-pair map at that index (one level more).
      const pair = !isMap && item.key !== undefined && item.key !== null;
      const base = isMap ? path : [...path, index];
      const level = pair ? depth + 2 : depth + 1;
      if (pair && level > MAX_DOCUMENT_DEPTH) return { path: pointer(base), offset: item.key?.offset ?? token.offset };
      if (item.key !== undefined && item.key !== null) children.push({ token: item.key, depth: level, path: base });
      if (item.value !== undefined) children.push({ token: item.value, depth: level, path: isMap || pair ? [...base, keyText(item.key)] : base });
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as (typeof children)[number]);
  }
  return undefined;
}
