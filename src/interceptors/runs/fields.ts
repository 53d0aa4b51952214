/**
 * The run orchestration service's request-body field rules as data: each create endpoint's
 * attributes (wire name, simulator input name, JSON kind) and relationships. The route handlers
 * read bodies through these tables, and the testing kit (`infra-doubles/testing`) generates valid
 * and invalid bodies from the same tables, so the two never drift.
 *
 * Spec: run-orchestration.md "Runs" (create run attributes), "Configuration versions", "Engine versions".
 */
import { invalidAttribute } from "../../simulator/runs/errors.js";
import { relationshipId, type AttributeKind, type AttributeReader } from "./request.js";

/** One attribute of a JSON:API request body. */
export interface AttributeRule {
  /** The wire name under `data.attributes`, e.g. `is-destroy`. */
  readonly attribute: string;
  /** The simulator input member it becomes, e.g. `isDestroy`. */
  readonly input: string;
  /** Its JSON kind (a wrong kind is 422 `attributeTypeMessage(kind, attribute)`). */
  readonly kind: AttributeKind;
}

/** One to-one relationship of a JSON:API request body. */
export interface RelationshipRule {
  /** The wire name under `data.relationships`, e.g. `workspace`. */
  readonly relationship: string;
  /** The JSON:API `type` of its `data`, e.g. `workspaces`. */
  readonly type: string;
  /** The simulator input member its id becomes. */
  readonly input: string;
  /** When required: the 422 pointer and detail of a body without it. */
  readonly missing?: { readonly pointer: string; readonly message: string };
}

/** A create endpoint's body rules: the `data.type`, attributes and relationships. */
export interface BodyRules {
  readonly type: string;
  readonly attributes: readonly AttributeRule[];
  readonly relationships: readonly RelationshipRule[];
}

const rule = (attribute: string, input: string, kind: AttributeKind): AttributeRule => Object.freeze({ attribute, input, kind });

/**
 * `POST /runs`: the attributes (in the order the service reads them: the first bad one is the one
 * reported) and the relationships (`workspace` required).
 * @example CREATE_RUN_RULES.attributes.find((a) => a.attribute === "is-destroy")?.kind // "boolean"
 */
export const CREATE_RUN_RULES: BodyRules = Object.freeze({
  type: "runs",
  relationships: Object.freeze([
    Object.freeze({
      relationship: "workspace",
      type: "workspaces",
      input: "workspaceId",
      missing: Object.freeze({ pointer: "/data/relationships/workspace/data/id", message: 'workspace is required: {"data": {"type": "workspaces", "id": "ws-..."}}' }),
    }),
    Object.freeze({ relationship: "configuration-version", type: "configuration-versions", input: "configurationVersionId" }),
  ]),
  attributes: Object.freeze([
    rule("allow-empty-apply", "allowEmptyApply", "boolean"),
    rule("allow-config-generation", "allowConfigGeneration", "boolean"),
    rule("auto-apply", "autoApply", "boolean"),
    rule("is-destroy", "isDestroy", "boolean"),
    rule("message", "message", "string"),
    rule("refresh", "refresh", "boolean"),
    rule("refresh-only", "refreshOnly", "boolean"),
    rule("replace-addrs", "replaceAddrs", "string-array"),
    rule("target-addrs", "targetAddrs", "string-array"),
    rule("variables", "variables", "variables"),
    rule("plan-only", "planOnly", "boolean"),
    rule("save-plan", "savePlan", "boolean"),
    rule("engine-version", "engineVersion", "string"),
  ]),
});

/**
 * `POST /workspaces/:workspace_id/configuration-versions`: three boolean attributes (the body is optional).
 * @example CREATE_CONFIGURATION_VERSION_RULES.attributes.map((a) => a.attribute) // ["auto-queue-runs", "speculative", "provisional"]
 */
export const CREATE_CONFIGURATION_VERSION_RULES: BodyRules = Object.freeze({
  type: "configuration-versions",
  relationships: Object.freeze([]),
  attributes: Object.freeze([
    rule("auto-queue-runs", "autoQueueRuns", "boolean"),
    rule("speculative", "speculative", "boolean"),
    rule("provisional", "provisional", "boolean"),
  ]),
});

/**
 * `POST /admin/engine-versions` and `PATCH /admin/engine-versions/:id`: the attributes (create
 * needs `version`, `url` and `sha`; an update may send any subset).
 * @example ENGINE_VERSION_RULES.attributes.find((a) => a.attribute === "deprecated-reason")?.kind // "nullable-string"
 */
export const ENGINE_VERSION_RULES: BodyRules = Object.freeze({
  type: "engine-versions",
  relationships: Object.freeze([]),
  attributes: Object.freeze([
    rule("version", "version", "string"),
    rule("url", "url", "string"),
    rule("sha", "sha", "string"),
    rule("deprecated", "deprecated", "boolean"),
    rule("deprecated-reason", "deprecatedReason", "nullable-string"),
    rule("official", "official", "boolean"),
    rule("enabled", "enabled", "boolean"),
    rule("beta", "beta", "boolean"),
  ]),
});

/**
 * Reads every attribute of `rules` into its input member; absent attributes are left out.
 * @throws {DomainError} 422 for the first attribute (in table order) of the wrong kind.
 * @example readAttributes(data.attributes, CREATE_CONFIGURATION_VERSION_RULES) // { speculative: true }
 */
export function readAttributes(reader: AttributeReader, rules: BodyRules): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { attribute, input, kind } of rules.attributes) {
    const value = reader.read(kind, attribute);
    if (value !== undefined) out[input] = value;
  }
  return out;
}

/**
 * Reads every relationship of `rules` into its input member (the id); absent ones are left out.
 * @throws {DomainError} 422 for a malformed relationship, or a required one that is missing.
 * @example readRelationships(data.relationships, CREATE_RUN_RULES, "create run") // { workspaceId: "ws-abc" }
 */
export function readRelationships(relationships: Record<string, unknown>, rules: BodyRules, operation: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { relationship, type, input, missing } of rules.relationships) {
    const id = relationshipId(relationships, relationship, type, operation);
    if (id !== undefined) out[input] = id;
    else if (missing !== undefined) throw invalidAttribute(operation, missing.pointer, missing.message);
  }
  return out;
}
