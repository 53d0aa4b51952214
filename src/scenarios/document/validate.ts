/**
 * Validation of scenario documents against the JSON Schema generated from their types (ajv 8,
 * loaded on the first validation, never at import: cold import time matters), then the checks a
 * schema cannot say (one action per timeline step, `at` never going back).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ErrorObject, ValidateFunction } from "ajv";
import { nearest } from "../options.js";
import { ScenarioDocumentError, type ScenarioProblem } from "./errors.js";
import { checkDocumentStructure } from "./structure.js";
import { checkTimeline } from "./timeline.js";
import type { ScenarioDocument } from "./types.js";

/** File name of the schema, next to this module (src) or the bundle (dist). */
export const SCHEMA_FILE_NAME = "scenario.schema.json";

let compiled: ValidateFunction | undefined;
let schemaCache: Record<string, unknown> | undefined;

/**
 * The JSON Schema of scenario documents (draft-07), as shipped in `infra-doubles/scenario.schema.json`.
 * @example scenarioSchema().$ref // "#/definitions/ScenarioDocument"
 */
export function scenarioSchema(): Record<string, unknown> {
  // tsup shims import.meta.url in the CommonJS build; chunks live at dist/'s top level beside the schema.
  schemaCache ??= JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), SCHEMA_FILE_NAME), "utf8")) as Record<string, unknown>;
  return schemaCache;
}

function validator(): ValidateFunction {
  if (compiled !== undefined) return compiled;
  const AjvModule = createRequire(import.meta.url)("ajv") as { default: new (options: object) => { compile(schema: object): ValidateFunction } };
  const ajv = new AjvModule.default({ allErrors: true, strict: false, verbose: true });
  compiled = ajv.compile(scenarioSchema());
  return compiled;
}

function valueAt(document: unknown, path: string): unknown {
  let current = document;
  for (const raw of path.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Turns ajv's errors into one problem per place, in words. */
function problemsOf(errors: readonly ErrorObject[], document: unknown): ScenarioProblem[] {
  const byPath = new Map<string, string[]>();
  const types = new Map<string, string[]>();
  const add = (path: string, text: string): void => {
    const list = byPath.get(path) ?? [];
    if (!list.includes(text)) list.push(text);
    byPath.set(path, list);
  };
  for (const error of errors) {
    const path = error.instancePath;
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case "additionalProperties": {
        const name = String(params.additionalProperty);
        const properties = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
        const guess = nearest(name, properties);
        add(`${path}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`, `unknown property${guess === undefined ? "" : ` (did you mean "${guess}"?)`}; allowed here: ${properties.join(", ")}`);
        break;
      }
      case "required":
        add(path, `missing property "${String(params.missingProperty)}"`);
        break;
      case "enum":
        add(path, `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")} (got ${shown(valueAt(document, path))})`);
        break;
      case "const":
        add(path, `must be ${JSON.stringify(params.allowedValue)} (got ${shown(valueAt(document, path))})`);
        break;
      case "type": {
        const list = types.get(path) ?? [];
        list.push(...String(params.type).split(","));
        types.set(path, list);
        break;
      }
      case "anyOf":
      case "oneOf":
        break;
      default:
        add(path, `${error.message ?? error.keyword} (got ${shown(valueAt(document, path))})`);
    }
  }
  // A misspelt property is also a missing one: say it once, as the misspelling with its guess.
  for (const error of errors) {
    if (error.keyword !== "required") continue;
    const missing = String((error.params as Record<string, unknown>).missingProperty);
    const misspelt = [...byPath.entries()].some(([path, texts]) => path.startsWith(`${error.instancePath}/`) && !path.slice(error.instancePath.length + 1).includes("/") && texts.some((t) => t.startsWith(`unknown property (did you mean "${missing}"?)`)));
    if (!misspelt) continue;
    const list = (byPath.get(error.instancePath) ?? []).filter((text) => text !== `missing property "${missing}"`);
    if (list.length === 0) byPath.delete(error.instancePath);
    else byPath.set(error.instancePath, list);
  }
  for (const [path, list] of types) add(path, `must be ${[...new Set(list)].join(" or ")} (got ${shown(valueAt(document, path))})`);
  for (const error of errors) {
    if ((error.keyword === "anyOf" || error.keyword === "oneOf") && !byPath.has(error.instancePath)) {
      add(error.instancePath, `must match one of the allowed shapes (got ${shown(valueAt(document, error.instancePath))})`);
    }
  }
  return [...byPath.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, 20)
    .map(([path, texts]) => ({ path, expected: texts.join("; ") }));
}

/**
 * Checks `document` against the scenario schema and the timeline rules.
 * @returns the document, typed.
 * @throws {ScenarioDocumentError} (`syntax`) for a document that is not a tree (a value containing
 *   itself) or nests deeper than `MAX_DOCUMENT_DEPTH` (100) levels, at the culprit's pointer;
 *   (`schema`) listing each place that does not fit: its JSON pointer and what was expected there,
 *   e.g. `/runs/workspaces/0: missing property "organization"`.
 * @example validateScenario({ runs: { organizations: [{ name: "acme" }] } })
 */
export function validateScenario(document: unknown): ScenarioDocument {
  if (document === null || typeof document !== "object" || Array.isArray(document)) {
    throw new ScenarioDocumentError("schema", [{ path: "", expected: `must be an object (got ${shown(document)})` }]);
  }
  checkDocumentStructure(document);
  const validate = validator();
  if (!validate(document)) throw new ScenarioDocumentError("schema", problemsOf(validate.errors ?? [], document));
  const doc = document as ScenarioDocument;
  checkTimeline(doc.timeline ?? []);
  return doc;
}

