/**
 * Reading secrets-service requests: Go-style booleans, `LIST` vs `GET ?list=true`, the logical
 * operation of a method, JSON bodies (query parameters for reads), and common field readers.
 *
 * FIDELITY.md "Secrets": booleans parse like Go's `strconv.ParseBool`, bad values are a 400;
 * listing is `LIST` or `GET` with `?list=true`.
 */
import { GO_MAX_JSON_DEPTH, goJsonSyntaxMessage, jsonDepthExceeds } from "../go-json-syntax.js";
import { bodyText, type SimRequest } from "../http.js";
import { badRequest, secretsError } from "../../simulator/secrets/errors.js";

/** The logical operation of a request. */
export type Operation = "read" | "list" | "create-or-update" | "delete";

const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/**
 * Go's `strconv.ParseBool`: `1 t T TRUE true True` and `0 f F FALSE false False`.
 * @returns the boolean, or `undefined` for anything else.
 */
export function parseGoBool(value: string): boolean | undefined {
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  return undefined;
}

/**
 * The logical operation of `request`: `LIST` or `GET ?list=<true>` -> `list`; `GET` -> `read`;
 * `POST`/`PUT` -> `create-or-update`; `DELETE` -> `delete`. Other methods are unsupported (405).
 * @throws {DomainError} 400 (empty `errors`) for a `list` value Go cannot parse as a boolean;
 * 405 (empty `errors`) for other methods.
 */
export function operationOf(request: SimRequest): Operation {
  const method = request.method;
  switch (method) {
    case "LIST":
      return "list";
    case "GET": {
      const list = request.url.searchParams.get("list");
      if (list === null || list === "") return "read";
      const parsed = parseGoBool(list);
      // The real service answers a bad `list` value with 400 and an empty `errors` list.
      if (parsed === undefined) throw badRequest("parse list parameter", "");
      return parsed ? "list" : "read";
    }
    case "POST":
    case "PUT":
      return "create-or-update";
    case "DELETE":
      return "delete";
    default:
      // Methods the service does not route at all: 405 with an empty `errors` list.
      throw secretsError("unsupported", "route request", "", { status: 405 });
  }
}

/** 404 `unsupported path` (no route, or a path parameter that is not a valid name). */
export function unsupportedPath(): ReturnType<typeof secretsError> {
  return secretsError("not_found", "route request", "1 error occurred:\n\t* unsupported path\n\n", { status: 404 });
}

/** 405 `unsupported operation` (a path that exists, asked an operation it does not have). */
export function unsupportedOperation(): ReturnType<typeof secretsError> {
  return secretsError("unsupported", "route request", "1 error occurred:\n\t* unsupported operation\n\n", { status: 405 });
}

/**
 * The request data: the JSON body (an object; `{}` when empty), or for reads and lists the query
 * parameters (except `list`) as strings, as the real service passes them (it never parses the
 * body of a `GET` or `LIST`).
 * @throws {DomainError} 400 `failed to parse JSON input: ...` for a body that is not a JSON object.
 */
export function requestData(request: SimRequest, operation: Operation): Record<string, unknown> {
  // Reads and lists take their data from the query only: the real service parses a body for
  // writes alone, so a GET's body (an empty chunked one included) is never read, on every transport.
  const text = operation === "read" || operation === "list" ? "" : bodyText(request);
  if (text.trim() === "") {
    if (operation !== "read" && operation !== "list") return {};
    const data: Record<string, unknown> = {};
    for (const [key, value] of request.url.searchParams) {
      if (key === "list") continue;
      const previous = data[key];
      data[key] = previous === undefined ? value : Array.isArray(previous) ? [...(previous as string[]), value] : [previous, value];
    }
    return data;
  }
  // Go's decoder refuses nesting beyond 10,000 levels, valid or not; checked before anything
  // recurses over the body.
  if (jsonDepthExceeds(text, GO_MAX_JSON_DEPTH)) throw badRequest("parse request body", "failed to parse JSON input: exceeded max depth");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw badRequest("parse request body", `failed to parse JSON input: ${goJsonSyntaxMessage(text, error)}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    const kind = Array.isArray(parsed) ? "array" : parsed === null ? "null" : typeof parsed;
    throw badRequest("parse request body", `failed to parse JSON input: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`);
  }
  return parsed as Record<string, unknown>;
}

/** A header value (names are lower case in {@link SimRequest}). */
export function header(request: SimRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * The 400 for a field value that cannot be read as the field's type:
 * `error converting input <value as JSON> for field "<field>": <detail>`.
 * @example fieldConversionError("port", "x", "cannot parse as int")
 */
export function fieldConversionError(field: string, value: unknown, detail: string): ReturnType<typeof badRequest> {
  return badRequest("parse field", `error converting input ${JSON.stringify(value)} for field "${field}": ${detail}`);
}

/**
 * How a request field is read (the real field types): `string` (numbers and booleans printed),
 * `int`, `bool` (Go's `ParseBool` strings, 0/1), `string-list` (an array or a comma-separated
 * string), `duration` (seconds or a Go duration string), `string-map` (an object, a list of
 * objects, or a string holding one), `key-lengths` (a map of integers or lists of integers).
 */
export type SecretsFieldKind = "string" | "int" | "bool" | "string-list" | "duration" | "string-map" | "key-lengths";

/**
 * The detail of the 400 for a value of the wrong JSON type, per kind:
 * `error converting input <value as JSON> for field "<field>": <detail>`. Shared by the readers
 * and the testing kit's labels.
 * @example FIELD_KIND_REFUSALS.int // "cannot parse as int"
 */
export const FIELD_KIND_REFUSALS: Readonly<Record<SecretsFieldKind, string>> = Object.freeze({
  string: "cannot parse as string",
  int: "cannot parse as int",
  bool: "cannot parse as bool",
  "string-list": "cannot parse as []string",
  duration: "not a duration",
  "string-map": "expected a map",
  "key-lengths": "expected a map",
});

function conversionError(field: string, value: unknown, kind: "string" | "int" | "bool" | "string-list"): ReturnType<typeof badRequest> {
  return fieldConversionError(field, value, FIELD_KIND_REFUSALS[kind]);
}

/**
 * A JSON scalar as text: strings as they are, numbers and booleans printed (`1`, `true`);
 * `undefined` for anything else (objects, arrays, `null`).
 * @example scalarText(22) // "22"
 */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * A JSON integer, or a decimal integer string (surrounding spaces allowed); `undefined` for
 * anything else.
 * @example integerOf(" 2048 ") // 2048
 */
export function integerOf(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^[+-]?\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

/** A string field (numbers and booleans are turned into strings, like the real field parser). */
export function stringField(data: Readonly<Record<string, unknown>>, field: string): string | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  const text = scalarText(value);
  if (text === undefined) throw conversionError(field, value, "string");
  return text;
}

/** A boolean field: JSON booleans, or strings Go's `ParseBool` reads, or numbers 0/1. */
export function boolField(data: Readonly<Record<string, unknown>>, field: string): boolean | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const parsed = parseGoBool(value);
    if (parsed === undefined) throw conversionError(field, value, "bool");
    return parsed;
  }
  if (typeof value === "number" && (value === 0 || value === 1)) return value === 1;
  throw conversionError(field, value, "bool");
}

/** An integer field: JSON integers or decimal strings. */
export function intField(data: Readonly<Record<string, unknown>>, field: string): number | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  const parsed = integerOf(value);
  if (parsed === undefined) throw conversionError(field, value, "int");
  return parsed;
}

/**
 * A string-list field: a JSON array of strings, or a comma-separated string (items trimmed,
 * empties dropped), as the real `TypeCommaStringSlice` reads it.
 */
export function stringListField(data: Readonly<Record<string, unknown>>, field: string): string[] | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (Array.isArray(value)) {
    return value.map((item) => {
      const text = scalarText(item);
      if (text === undefined) throw conversionError(field, value, "string-list");
      return text.trim();
    }).filter((s) => s !== "");
  }
  throw conversionError(field, value, "string-list");
}
