/**
 * The JSON Schema of state documents (draft-07, `state.schema.json`, shipped as
 * `infra-doubles/state.schema.json`), checked with ajv (loaded on the first check, never at import).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ErrorObject, ValidateFunction } from "ajv";
import { refuse } from "./errors.js";

/** File name of the schema, next to this module (src) or the bundle (dist). */
export const STATE_SCHEMA_FILE_NAME = "state.schema.json";

let compiled: ValidateFunction | undefined;
let schemaCache: Record<string, unknown> | undefined;

/**
 * The JSON Schema of state documents, as shipped in `infra-doubles/state.schema.json`.
 * @example stateSchema().title // "infra-doubles state document, version 1"
 */
export function stateSchema(): Record<string, unknown> {
  schemaCache ??= JSON.parse(readFileSync(schemaPath(), "utf8")) as Record<string, unknown>;
  return schemaCache;
}

/**
 * Where the schema is: beside this module (src, or dist/'s top level where the chunks live; tsup
 * shims import.meta.url in the CommonJS build), else through the package's own export
 * `infra-doubles/state.schema.json` (this module bundled elsewhere, e.g. by the benchmarks).
 */
function schemaPath(): string {
  const beside = join(dirname(fileURLToPath(import.meta.url)), STATE_SCHEMA_FILE_NAME);
  if (existsSync(beside)) return beside;
  try {
    return createRequire(import.meta.url).resolve(`infra-doubles/${STATE_SCHEMA_FILE_NAME}`);
  } catch {
    return beside;
  }
}

function validator(): ValidateFunction {
  if (compiled !== undefined) return compiled;
  const AjvModule = createRequire(import.meta.url)("ajv") as { default: new (options: object) => { compile(schema: object): ValidateFunction } };
  compiled = new AjvModule.default({ allErrors: false, strict: false }).compile(stateSchema());
  return compiled;
}

/**
 * Checks `document` against the schema.
 * @throws {StateDocumentError} with the pointer and what the schema expected there, for the first
 *   value that does not fit.
 */
export function checkStateSchema(document: unknown): void {
  const validate = validator();
  if (validate(document)) return;
  const error = (validate.errors ?? [])[0] as ErrorObject | undefined;
  if (error === undefined) refuse([], "does not fit the state document schema");
  const params = error.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[]; allowedValue?: unknown };
  const segments = error.instancePath === "" ? [] : error.instancePath.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (error.keyword === "required" && params.missingProperty !== undefined) refuse(segments, `missing property "${params.missingProperty}"`);
  if (error.keyword === "additionalProperties" && params.additionalProperty !== undefined) refuse([...segments, params.additionalProperty], "unknown property");
  if (error.keyword === "enum" && params.allowedValues !== undefined) refuse(segments, `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`);
  if (error.keyword === "const") refuse(segments, `must be ${JSON.stringify(params.allowedValue)}`);
  refuse(segments, error.message ?? "does not fit the state document schema");
}
