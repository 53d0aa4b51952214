/**
 * Reads a scenario document from text: JSON, or YAML (1.2 core schema, with the `yaml` package,
 * loaded on the first YAML document only).
 */
import { createRequire } from "node:module";
import { ScenarioDocumentError } from "./errors.js";

/** The formats a document's text can be in. */
export type ScenarioFormat = "json" | "yaml";

type YamlModule = {
  parse(text: string, options: object): unknown;
  YAMLParseError: new (...args: never[]) => Error & { linePos?: [{ line: number; col: number }] };
};
let yaml: YamlModule | undefined;

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

/**
 * Parses a document's text (not yet validated: pass the result to `doubles.load`).
 * @param format - default: JSON when the text starts with `{`, else YAML.
 * @throws {ScenarioDocumentError} (`syntax`) with the line and column of the syntax error.
 * @example parseScenarioText("runs:\n  organizations: [{ name: acme }]\n") // { runs: { organizations: [{ name: "acme" }] } }
 */
export function parseScenarioText(text: string, format: ScenarioFormat = formatOf(undefined, text)): unknown {
  if (format === "json") {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new ScenarioDocumentError("syntax", [{ path: "", expected: `valid JSON: ${(error as Error).message}` }]);
    }
  }
  yaml ??= createRequire(import.meta.url)("yaml") as YamlModule;
  try {
    return yaml.parse(text, { uniqueKeys: true, maxAliasCount: 100, prettyErrors: true });
  } catch (error) {
    if (error instanceof yaml.YAMLParseError) {
      const position = error.linePos?.[0];
      const where = position === undefined ? "" : ` at line ${position.line}, column ${position.col}`;
      throw new ScenarioDocumentError("syntax", [{ path: "", expected: `valid YAML${where}: ${error.message.split("\n")[0] ?? ""}` }]);
    }
    throw error;
  }
}
