/**
 * Request parsing of the run orchestration service: the bearer token, JSON bodies, and typed
 * readers of JSON:API `data` (type, attributes, relationships) that refuse wrong shapes with 422
 * `invalid attribute` and a `source.pointer` to the offending member. Unknown attributes are
 * ignored, as the real service does.
 */
import { bodyText, type SimRequest } from "../http.js";
import { jsonDepthExceeds } from "../go-json-syntax.js";
import { invalidAttribute } from "../../simulator/runs/errors.js";
import type { RunVariable } from "../../simulator/runs/state.js";

/**
 * The bearer value of `Authorization: Bearer <token>` (scheme case-insensitive), or undefined.
 * @example
 * bearerToken(request) // "abc.atlasv1.def" for "Authorization: Bearer abc.atlasv1.def"
 */
export function bearerToken(request: SimRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Nesting the real service's JSON parser accepts (Ruby `JSON.parse`'s default `max_nesting`). */
export const RUNS_MAX_JSON_DEPTH = 100;

/**
 * The JSON body, or undefined when there is none (empty or only whitespace).
 * @throws {DomainError} `invalid` (422, pointer `pointer`, default `""`: the whole document) when it is not valid JSON.
 * @example
 * jsonBody(request, "create run") // the parsed body, or undefined when empty
 */
export function jsonBody(request: SimRequest, operation: string, pointer = ""): unknown {
  const text = bodyText(request);
  if (text.trim() === "") return undefined;
  // The real service's JSON parser (Ruby's, `max_nesting` 100) refuses deeper documents.
  if (jsonDepthExceeds(text, RUNS_MAX_JSON_DEPTH)) {
    throw invalidAttribute(operation, pointer, `request body is not valid JSON: nesting of ${RUNS_MAX_JSON_DEPTH + 1} is too deep`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw invalidAttribute(operation, pointer, `request body is not valid JSON: ${(error as Error).message}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `data` member of a JSON:API request document. */
export interface RequestData {
  readonly attributes: AttributeReader;
  readonly relationships: Record<string, unknown>;
}

/**
 * Reads `data` of type `type`.
 * @param options.optional - an absent body, or one without `data`, reads as empty `data` (create configuration version).
 * @throws {DomainError} `invalid` (422) when `data` is missing or not an object, `data.type` is not
 *   `type`, or `attributes`/`relationships` are not objects.
 * @example
 * readData(jsonBody(request, "create run"), "runs", "create run").attributes.boolean("is-destroy")
 */
export function readData(body: unknown, type: string, operation: string, options: { optional?: boolean } = {}): RequestData {
  const empty = body === undefined || (isObject(body) && body.data === undefined);
  if (empty && options.optional) return { attributes: new AttributeReader(operation, {}), relationships: {} };
  if (!isObject(body) || !isObject(body.data)) throw invalidAttribute(operation, "/data", "data must be an object");
  const data = body.data;
  if (data.type !== undefined || !options.optional) {
    if (data.type !== type) throw invalidAttribute(operation, "/data/type", dataTypeMessage(type));
  }
  if (data.attributes !== undefined && !isObject(data.attributes)) throw invalidAttribute(operation, "/data/attributes", "attributes must be an object");
  if (data.relationships !== undefined && !isObject(data.relationships)) {
    throw invalidAttribute(operation, "/data/relationships", "relationships must be an object");
  }
  return {
    attributes: new AttributeReader(operation, (data.attributes as Record<string, unknown> | undefined) ?? {}),
    relationships: (data.relationships as Record<string, unknown> | undefined) ?? {},
  };
}

/**
 * The id of a to-one relationship (`data.relationships.<name>.data.id`), or undefined when absent.
 * `{"data": null}` is JSON:API's empty to-one relationship and reads as absent: go-tfe sends it for
 * every unset relationship (FIDELITY.md "What real clients send and read").
 * @throws {DomainError} `invalid` (422) when present with the wrong shape or `type`.
 * @example
 * relationshipId(data.relationships, "workspace", "workspaces", "create run") // "ws-abc"
 */
export function relationshipId(relationships: Record<string, unknown>, name: string, type: string, operation: string): string | undefined {
  const base = `/data/relationships/${name}`;
  const relationship = relationships[name];
  if (relationship === undefined) return undefined;
  if (isObject(relationship) && relationship.data === null) return undefined;
  if (!isObject(relationship) || !isObject(relationship.data)) throw invalidAttribute(operation, `${base}/data`, `${name} must be {"data": {"type": "${type}", "id": ...}}`);
  const data = relationship.data;
  if (data.type !== undefined && data.type !== type) throw invalidAttribute(operation, `${base}/data/type`, `${name} type must be "${type}"`);
  if (typeof data.id !== "string" || data.id === "") throw invalidAttribute(operation, `${base}/data/id`, `${name} id must be a non-empty string`);
  return data.id;
}

/**
 * How an attribute is read: its JSON type (spec: "Runs", create attributes). The field-rule tables
 * (`fields.ts`) describe each attribute by one of these, and the testing kit generates values from them.
 */
export type AttributeKind = "boolean" | "string" | "nullable-string" | "string-array" | "variables";

/**
 * The 422 detail for an attribute whose value is not of its kind (the `source.pointer` is
 * `/data/attributes/<name>`). Shared by the reader and the testing kit's labels.
 * @example attributeTypeMessage("boolean", "is-destroy") // "is-destroy must be a boolean"
 */
export function attributeTypeMessage(kind: AttributeKind, name: string): string {
  switch (kind) {
    case "boolean":
      return `${name} must be a boolean`;
    case "string":
    case "nullable-string":
      return `${name} must be a string`;
    case "string-array":
      return `${name} must be an array of strings`;
    case "variables":
      return `${name} must be an array of {"key": string, "value": string}`;
  }
}

/**
 * The 422 detail when `data.type` is not the endpoint's type (pointer `/data/type`).
 * @example dataTypeMessage("runs") // 'data.type must be "runs"'
 */
export function dataTypeMessage(type: string): string {
  return `data.type must be "${type}"`;
}

/**
 * Typed, pointer-aware reads of `data.attributes`.
 * @example
 * new AttributeReader("create run", { "is-destroy": true }).boolean("is-destroy") // true
 */
export class AttributeReader {
  constructor(
    private readonly operation: string,
    private readonly values: Record<string, unknown>,
    private readonly base = "/data/attributes",
  ) {}

  private fail(name: string, message: string): never {
    throw invalidAttribute(this.operation, `${this.base}/${name}`, message);
  }

  /**
   * Reads `name` as `kind` (the field-rule tables' entry point).
   * @throws {DomainError} 422 as the kind's own reader does.
   */
  read(kind: AttributeKind, name: string): unknown {
    switch (kind) {
      case "boolean":
        return this.boolean(name);
      case "string":
        return this.string(name);
      case "nullable-string":
        return this.nullableString(name);
      case "string-array":
        return this.stringArray(name);
      case "variables":
        return this.variables(name);
    }
  }

  /** Whether the attribute is present (even as null). */
  has(name: string): boolean {
    return Object.hasOwn(this.values, name);
  }

  /** A boolean, or undefined when absent. @throws {DomainError} 422 for another type (null included). */
  boolean(name: string): boolean | undefined {
    const value = this.values[name];
    if (value === undefined) return undefined;
    if (typeof value !== "boolean") this.fail(name, attributeTypeMessage("boolean", name));
    return value;
  }

  /** A string, or undefined when absent. @throws {DomainError} 422 for another type. */
  string(name: string): string | undefined {
    const value = this.values[name];
    if (value === undefined) return undefined;
    if (typeof value !== "string") this.fail(name, attributeTypeMessage("string", name));
    return value;
  }

  /** A string or null, or undefined when absent. @throws {DomainError} 422 for another type. */
  nullableString(name: string): string | null | undefined {
    if (this.values[name] === null) return null;
    return this.string(name);
  }

  /** An array of strings or null, or undefined when absent. @throws {DomainError} 422 otherwise. */
  stringArray(name: string): string[] | null | undefined {
    const value = this.values[name];
    if (value === undefined) return undefined;
    if (value === null) return null;
    if (!Array.isArray(value)) this.fail(name, attributeTypeMessage("string-array", name));
    value.forEach((item, index) => {
      if (typeof item !== "string") throw invalidAttribute(this.operation, `${this.base}/${name}/${index}`, attributeTypeMessage("string-array", name));
    });
    return [...(value as string[])];
  }

  /** Run variables: an array of `{key, value}` strings. @throws {DomainError} 422 otherwise. */
  variables(name: string): RunVariable[] | undefined {
    const value = this.values[name];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) this.fail(name, attributeTypeMessage("variables", name));
    return value.map((item: unknown, index) => {
      const at = `${this.base}/${name}/${index}`;
      if (!isObject(item)) throw invalidAttribute(this.operation, at, `${name} entries must be {"key": string, "value": string}`);
      if (typeof item.key !== "string" || item.key === "") throw invalidAttribute(this.operation, `${at}/key`, "key must be a non-empty string");
      if (typeof item.value !== "string") {
        throw invalidAttribute(this.operation, `${at}/value`, "value must be a string holding a literal of the configuration language (e.g. \"\\\"text\\\"\" or \"10\")");
      }
      return { key: item.key, value: item.value };
    });
  }
}

/**
 * The optional `{comment: string}` body of a run action.
 * @throws {DomainError} `invalid` (422) when the body is not a JSON object or `comment` not a string or null.
 * @example
 * actionComment(request, "apply run") // "Looks good" for {"comment":"Looks good"}, null without a body
 */
export function actionComment(request: SimRequest, operation: string): string | null {
  const body = jsonBody(request, operation);
  if (body === undefined || body === null) return null;
  if (!isObject(body)) throw invalidAttribute(operation, "", "the body must be a JSON object like {\"comment\": \"...\"}");
  const comment = body.comment;
  if (comment === undefined || comment === null) return null;
  if (typeof comment !== "string") throw invalidAttribute(operation, "/comment", "comment must be a string");
  return comment;
}
