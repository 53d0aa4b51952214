/**
 * Reads a scenario document from text: JSON, or YAML (1.2 core schema, with the `yaml` package,
 * loaded on the first YAML document only). Remembers where each parsed document came from (its
 * text and file), so an error found later (schema, reference, fixture) can name the line and
 * column of the field: positions are computed only then, never for a document that loads.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { ScenarioDocumentError, type ScenarioProblem } from "./errors.js";
import { TOO_DEEP, tooDeepYaml, type YamlCstToken } from "./structure.js";

/** The formats a document's text can be in. */
export type ScenarioFormat = "json" | "yaml";

interface YamlNode {
  range?: [number, number, number] | null;
  items?: unknown[];
}
interface YamlPair {
  key: (YamlNode & { value?: unknown }) | null;
  value: YamlNode | null;
}
interface YamlDocument {
  contents: YamlNode | null;
  errors: (Error & { pos?: [number, number] })[];
  range: [number, number, number];
  toJS(options: object): unknown;
}
type YamlModule = {
  Parser: new () => { parse(text: string): Iterable<YamlCstToken> };
  Composer: new (options: object) => { compose(tokens: Iterable<YamlCstToken>, forceDoc: boolean, endOffset: number): Iterable<YamlDocument> };
  isMap(node: unknown): boolean;
  isSeq(node: unknown): boolean;
  isScalar(node: unknown): boolean;
};
let yamlModule: YamlModule | undefined;
const yaml = (): YamlModule => (yamlModule ??= createRequire(import.meta.url)("yaml") as YamlModule);

/** Where a parsed document came from: its text, format and file. */
interface Source {
  readonly text: string;
  readonly format: ScenarioFormat;
  readonly file: string | undefined;
}
const sources = new WeakMap<object, Source>();

/**
 * The format a file name or a content type says (`.json`, `application/json` -> json; `.yaml`,
 * `.yml`, `application/yaml`, `text/yaml`, ... -> yaml), else what the text looks like (JSON when it
 * starts with `{`).
 * @example formatOf("world.yml", "runs: {}") // "yaml"
 */
export function formatOf(nameOrType: string | undefined, text: string): ScenarioFormat {
  const hint = (nameOrType ?? "").toLowerCase();
  if (/\.json$|[/+]json\b/.test(hint)) return "json";
  if (/\.ya?ml$|[/+-]yaml\b|yml\b/.test(hint)) return "yaml";
  return text.trimStart().startsWith("{") ? "json" : "yaml";
}

/** Line and column (1-based) of a character offset. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/**
 * The first YAML document of `text` (as the `yaml` package's `parseDocument`, a second document an
 * error), composed only once its syntax tree is known to nest at most `MAX_DOCUMENT_DEPTH` levels:
 * the composer recurses once per level, and a stack overflow there may end the process.
 * @throws {ScenarioDocumentError} (`syntax`) at the pointer, line and column of a collection too deep.
 */
function yamlDocument(text: string, options: object, file?: string): YamlDocument {
  const y = yaml();
  const tokens = [...new y.Parser().parse(text)];
  const deep = tooDeepYaml(tokens);
  if (deep !== undefined) throw new ScenarioDocumentError("syntax", [{ path: deep.path, expected: TOO_DEEP, ...positionOf(text, deep.offset) }], file);
  let first: YamlDocument | undefined;
  for (const document of new y.Composer(options).compose(tokens, true, text.length)) {
    if (first === undefined) first = document;
    else {
      first.errors.push(Object.assign(new Error("Source contains multiple documents; please use YAML.parseAllDocuments()"), { pos: [document.range[0], document.range[1]] as [number, number] }));
      break;
    }
  }
  return first as YamlDocument;
}

/**
 * Parses a document's text (not yet validated: pass the result to `doubles.load`).
 * @param format - default: JSON when the text starts with `{`, else YAML.
 * @param file - the file the text was read from: errors then start with `file:line:column:`.
 * @throws {ScenarioDocumentError} (`syntax`) with the line and column of the syntax error.
 * @example parseScenarioText("runs:\n  organizations: [{ name: acme }]\n") // { runs: { organizations: [{ name: "acme" }] } }
 */
export function parseScenarioText(text: string, format: ScenarioFormat = formatOf(undefined, text), file?: string): unknown {
  let parsed: unknown;
  if (format === "json") {
    try {
      parsed = JSON.parse(text) as unknown;
    } catch (error) {
      const message = (error as Error).message;
      const offset = /at position (\d+)/.exec(message)?.[1];
      const at = offset === undefined ? {} : positionOf(text, Number(offset));
      throw new ScenarioDocumentError("syntax", [{ path: "", expected: `valid JSON: ${message}`, ...at }], file);
    }
  } else {
    const document = yamlDocument(text, { uniqueKeys: true }, file);
    const first = document.errors[0];
    if (first !== undefined) {
      const at = first.pos === undefined ? {} : positionOf(text, first.pos[0]);
      throw new ScenarioDocumentError("syntax", [{ path: "", expected: `valid YAML: ${(first.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "")}`, ...at }], file);
    }
    try {
      parsed = document.toJS({ maxAliasCount: 100 });
    } catch (error) {
      throw new ScenarioDocumentError("syntax", [{ path: "", expected: `valid YAML: ${(error as Error).message}` }], file);
    }
  }
  if (parsed !== null && typeof parsed === "object") sources.set(parsed, { text, format, file });
  return parsed;
}

/**
 * Reads and parses a document file (JSON or YAML by its extension, else by its text).
 * @throws {ScenarioDocumentError} (`syntax`) for a file that cannot be read or parsed, naming the file.
 * @example readScenarioFile("world.yaml") // { runs: {...}, timeline: [...] }
 */
export function readScenarioFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ScenarioDocumentError("syntax", [{ path: "", expected: `a readable file: ${(error as Error).message}` }], file);
  }
  return parseScenarioText(text, formatOf(file, text), file);
}

/** The yaml node at `pointer` (the deepest one found), with the position of its key when it is a map entry. */
function nodeAt(root: YamlNode | null, segments: readonly string[]): number | undefined {
  const y = yaml();
  let node: YamlNode | null = root;
  let offset = node?.range?.[0];
  for (const segment of segments) {
    if (node === null) break;
    if (y.isMap(node)) {
      const pair = (node.items as YamlPair[]).find((p) => p.key !== null && String(y.isScalar(p.key) ? p.key.value : p.key) === segment);
      if (pair === undefined) break;
      offset = pair.key?.range?.[0] ?? offset;
      node = pair.value;
    } else if (y.isSeq(node)) {
      const item = (node.items as YamlNode[])[Number(segment)];
      if (item === undefined || !/^\d+$/.test(segment)) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return offset;
}

/**
 * The error with the file and, for a document parsed from text, each problem's line and column
 * (of the field's key for a map entry, of the item for a list item; the nearest enclosing one for
 * a field that is not there, such as a missing property). Also names a duration field a service
 * refused (`cannot parse duration`) at the field, with what a duration looks like.
 * @returns `error` unchanged when it is no {@link ScenarioDocumentError} or the document has no source.
 */
export function locate(error: unknown, document: unknown): unknown {
  if (!(error instanceof ScenarioDocumentError)) return error;
  const problems = error.problems.map((problem) => refineDuration(problem, document));
  const source = document !== null && typeof document === "object" ? sources.get(document) : undefined;
  if (source === undefined) return problems.some((p, i) => p !== error.problems[i]) ? new ScenarioDocumentError(error.kind, problems, error.file) : error;
  let root: YamlNode | null = null;
  try {
    // JSON is YAML: the same parser gives the positions of a JSON document's nodes.
    root = yamlDocument(source.text, { uniqueKeys: false }).contents;
  } catch {
    root = null;
  }
  const located = problems.map((problem): ScenarioProblem => {
    if (problem.line !== undefined || root === null) return problem;
    const segments = problem.path.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    const offset = nodeAt(root, segments);
    return offset === undefined ? problem : { ...problem, ...positionOf(source.text, offset) };
  });
  return new ScenarioDocumentError(error.kind, located, error.file ?? source.file);
}

/** The value at a JSON pointer, or undefined. */
function valueAt(document: unknown, path: string): unknown {
  let current = document;
  for (const raw of path.split("/").slice(1)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return current;
}

/** What a duration looks like, for messages. */
export const DURATION_EXPECTED = 'expected a duration such as "10m", "1h30m"';

/**
 * A service's "cannot parse duration ... "10 minutes"" about a whole fixture, moved to the field
 * that holds that value and said as what a duration looks like.
 */
function refineDuration(problem: ScenarioProblem, document: unknown): ScenarioProblem {
  const bad = /parse duration.*?"([^"]*)"|invalid duration "([^"]*)"|not a duration:? "([^"]*)"|"([^"]*)" is not a duration|not a duration:? (-?[\d.]+(?:e[+-]?\d+)?)\b/.exec(problem.expected);
  const text = bad?.slice(1).find((group) => group !== undefined);
  if (text === undefined) return problem;
  const fixture = valueAt(document, problem.path);
  if (fixture === null || typeof fixture !== "object") return problem;
  const field = fieldHolding(fixture, text);
  if (field === undefined) return problem;
  const why = /\((longer than [^)]*)\)/.exec(problem.expected)?.[1];
  return { path: `${problem.path}${field}`, expected: `${DURATION_EXPECTED}${why === undefined ? "" : `, not ${why}`} (got ${JSON.stringify(text)})` };
}

/** The pointer (relative to `value`) of the first string equal to `text` inside it, depth first. */
function fieldHolding(value: unknown, text: string, depth = 0): string | undefined {
  if (value === null || typeof value !== "object" || depth > 8) return undefined;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const here = `/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (child === text || (typeof child === "number" && String(child) === text)) return here;
    const deeper = fieldHolding(child, text, depth + 1);
    if (deeper !== undefined) return `${here}${deeper}`;
  }
  return undefined;
}
