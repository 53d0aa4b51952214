/**
 * Cloud engine roles (`roles/:name`): create-or-update with the real service's merge and
 * validation rules, the legacy `policy`/`arn` form (not mixable with the others), upgrade of
 * entries an earlier version stored, read, list and delete.
 *
 * Spec: secrets.md "Cloud-account engine" (role parameters, legacy parameters, read form), Errors
 * row "Read or delete of a missing cloud-account role"; FIDELITY.md "Secrets" (role errors).
 */
import { clonePlain } from "../../kernel/clone.js";
import type { EngineContext } from "../engine.js";
import { cloudBadRequest, cloudInternal, cloudMissing } from "./cloud-errors.js";
import { goMultiError, goQuote } from "./go-format.js";
import type { CloudMountState, CloudRole } from "./state.js";
import { CREDENTIAL_TYPES } from "./state.js";

/** Role parameters; `undefined` means not supplied (an update keeps the stored value). */
export interface RoleInput {
  readonly credentialType?: string;
  readonly roleArns?: readonly string[];
  readonly policyArns?: readonly string[];
  readonly policyDocument?: string;
  readonly iamGroups?: readonly string[];
  readonly iamTags?: Readonly<Record<string, string>>;
  /** Seconds. */
  readonly defaultStsTtl?: number;
  /** Seconds. */
  readonly maxStsTtl?: number;
  readonly userPath?: string;
  readonly permissionsBoundaryArn?: string;
  /** Legacy: an inline policy (JSON). */
  readonly policy?: string;
  /** Legacy: an existing policy's or role's ARN. */
  readonly arn?: string;
}

/** The warning of a write that used the legacy parameters. */
export const LEGACY_WARNING = "Detected use of legacy role or policy parameter. Please upgrade to use the new parameters.";

const USER_PATH = /^\/([\x21-\x7F]{0,510}\/)?$/;
const USER_PATH_SOURCE = "^\\/([\\x21-\\x7F]{0,510}\\/)?$";

function emptyRole(): CloudRole {
  return {
    credentialTypes: [],
    policyArns: [],
    roleArns: [],
    policyDocument: "",
    iamGroups: [],
    iamTags: {},
    defaultStsTtl: 0,
    maxStsTtl: 0,
    userPath: "",
    permissionsBoundaryArn: "",
    invalidData: "",
    prohibitFlexibleCredPath: false,
    version: 0,
  };
}

/**
 * Go's `json.Compact`: the JSON text without insignificant whitespace (keys, order and number
 * spelling kept).
 * @throws {SyntaxError} when the text is not JSON.
 * @example compactJson('{ "a": [1, 2] }') // '{"a":[1,2]}'
 */
export function compactJson(text: string): string {
  JSON.parse(text);
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (inString) {
      out += char;
      if (char === "\\") {
        out += text[i + 1] ?? "";
        i++;
      } else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      out += char;
    } else if (char !== " " && char !== "\t" && char !== "\n" && char !== "\r") out += char;
  }
  return out;
}

/**
 * Why an ARN is not a managed policy ARN (the real service's check of `permissions_boundary_arn`), or undefined.
 * @example managedPolicyArnProblem("arn:aws:s3:::b") // "expected a service of iam but got s3"
 */
export function managedPolicyArnProblem(arn: string): string | undefined {
  if (!arn.startsWith("arn:")) return "arn: invalid prefix";
  const sections = arn.split(":");
  if (sections.length < 6) return "arn: not enough sections";
  const service = sections[2] ?? "";
  const resource = sections.slice(5).join(":");
  if (service !== "iam") return `expected a service of iam but got ${service}`;
  if (!resource.startsWith("policy/")) return `expected a resource type of policy but got ${resource}`;
  return undefined;
}

/**
 * Upgrades an entry an earlier version stored: a role ARN becomes an `assumed_role` role, a policy
 * ARN an `iam_user` role, a JSON policy an `iam_user`/`federation_token` role; anything else is kept
 * as `invalidData`.
 * @example upgradeLegacyEntry("arn:aws:iam::123456789012:role/R").credentialTypes // ["assumed_role"]
 */
export function upgradeLegacyEntry(raw: string): CloudRole {
  const role = { ...emptyRole(), version: 1 };
  if (raw.startsWith("arn:")) {
    const sections = raw.split(":");
    const resourceType = sections.length >= 6 ? (sections.slice(5).join(":").split("/")[0] ?? "") : "";
    if (resourceType === "role") return { ...role, credentialTypes: ["assumed_role"], roleArns: [raw], prohibitFlexibleCredPath: true };
    if (resourceType === "policy") return { ...role, credentialTypes: ["iam_user"], policyArns: [raw], prohibitFlexibleCredPath: true };
    return { ...role, invalidData: raw };
  }
  try {
    return { ...role, credentialTypes: ["iam_user", "federation_token"], policyDocument: compactJson(raw), prohibitFlexibleCredPath: true };
  } catch {
    return { ...role, invalidData: raw };
  }
}

/**
 * The validation errors of a role, in the real service's order (plus the spec's requirements of
 * `role_arns` for `assumed_role` and of a policy for `iam_user` and `federation_token`).
 * @example validateRole(role) // ["did not supply credential_type"]
 */
export function validateRole(role: CloudRole): string[] {
  let errors: string[] = [];
  const types = role.credentialTypes;
  const has = (type: string): boolean => types.includes(type);
  if (types.length === 0) errors.push("did not supply credential_type");
  for (const type of types) if (!(CREDENTIAL_TYPES as readonly string[]).includes(type)) errors.push(`unrecognized credential type: ${type}`);
  const sts = has("assumed_role") || has("federation_token");
  if (role.defaultStsTtl !== 0 && !sts) errors.push("default_sts_ttl parameter only valid for assumed_role and federation_token credential types");
  if (role.maxStsTtl !== 0 && !sts) errors.push("max_sts_ttl parameter only valid for assumed_role and federation_token credential types");
  if (role.maxStsTtl > 0 && role.defaultStsTtl > 0 && role.defaultStsTtl > role.maxStsTtl) {
    errors.push('"default_sts_ttl" value must be less than or equal to "max_sts_ttl" value');
  }
  if (role.userPath !== "") {
    if (!has("iam_user")) errors.push("user_path parameter only valid for iam_user credential type");
    if (!USER_PATH.test(role.userPath)) errors.push(`the specified value for user_path is invalid. It must match ${goQuote(USER_PATH_SOURCE)} regexp`);
  }
  if (role.permissionsBoundaryArn !== "") {
    if (!has("iam_user")) errors.push("cannot supply permissions_boundary_arn when credential_type isn't iam_user");
    const problem = managedPolicyArnProblem(role.permissionsBoundaryArn);
    // The real service starts a new error list here (earlier errors are dropped from the message).
    if (problem !== undefined) errors = [`invalid permissions_boundary_arn parameter: ${problem}`];
  }
  if (role.roleArns.length > 0 && !has("assumed_role")) errors.push("cannot supply role_arns when credential_type isn't assumed_role");
  if (has("assumed_role") && role.roleArns.length === 0) errors.push("must specify role_arns with assumed_role credential_type");
  for (const type of ["iam_user", "federation_token"]) {
    if (types.length === 1 && has(type) && role.policyDocument === "" && role.policyArns.length === 0) {
      errors.push(`must specify at least one of policy_arns or policy_document with ${type} credential_type`);
    }
  }
  return errors;
}

/**
 * The role as stored, or an entry of an earlier version upgraded on the fly, or undefined.
 * @example readRole(mount, "deploy")?.credentialTypes // ["iam_user"]
 */
export function readRole(mount: CloudMountState, name: string): CloudRole | undefined {
  const role = mount.roles[name];
  if (role !== undefined) return role;
  const legacy = mount.legacyRoles[name];
  return legacy === undefined ? undefined : upgradeLegacyEntry(legacy);
}

/**
 * Creates or updates a role. Parameters not supplied keep their stored values; the result must
 * validate as a whole. Legacy `policy`/`arn` replace the role entirely and cannot be mixed with the
 * other parameters.
 * @returns warnings for the response (legacy use, cleared invalid data).
 * @throws {DomainError} `invalid` (400) with the real service's messages, e.g.
 *   `error(s) validating supplied role data: "1 error occurred:\n\t* did not supply credential_type\n\n"`;
 *   `internal` (500) `only one of policy or arn should be provided`.
 * @example writeRole(ctx, "deploy", { credentialType: "iam_user", policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] })
 */
export function writeRole(ctx: EngineContext<CloudMountState>, name: string, input: RoleInput): { warnings: string[] } {
  const operation = "write role";
  const warnings: string[] = [];
  const stored = readRole(ctx.mount, name);
  let role: CloudRole = stored === undefined ? emptyRole() : clonePlain(stored);
  if (role.invalidData !== "") {
    warnings.push(`Invalid data of ${goQuote(role.invalidData)} cleared out of role`);
    role.invalidData = "";
  }
  const policy = input.policy ?? "";
  const arn = input.arn ?? "";
  if (policy !== "" && arn !== "") throw cloudInternal(operation, "only one of policy or arn should be provided", name);
  const legacy = policy !== "" ? policy : arn;
  const refuseLegacy = (parameter: string): void => {
    if (legacy !== "") throw cloudBadRequest(operation, `cannot supply deprecated role or policy parameters with ${parameter}`, name);
  };
  if (input.credentialType !== undefined) {
    refuseLegacy("an explicit credential_type");
    role.credentialTypes = [input.credentialType];
  }
  if (input.roleArns !== undefined) {
    refuseLegacy("role_arns");
    role.roleArns = [...input.roleArns];
  }
  if (input.policyArns !== undefined) {
    refuseLegacy("policy_arns");
    role.policyArns = [...input.policyArns];
  }
  if (input.policyDocument !== undefined) {
    refuseLegacy("policy_document");
    let compacted = input.policyDocument;
    if (compacted.length > 0) {
      try {
        compacted = compactJson(compacted);
      } catch {
        throw cloudBadRequest(operation, `cannot parse policy document: ${goQuote(input.policyDocument)}`, name);
      }
    }
    role.policyDocument = compacted;
  }
  if (input.defaultStsTtl !== undefined) {
    refuseLegacy("default_sts_ttl");
    role.defaultStsTtl = input.defaultStsTtl;
  }
  if (input.maxStsTtl !== undefined) {
    refuseLegacy("max_sts_ttl");
    role.maxStsTtl = input.maxStsTtl;
  }
  if (input.userPath !== undefined) {
    refuseLegacy("user_path");
    role.userPath = input.userPath;
  }
  if (input.permissionsBoundaryArn !== undefined) {
    refuseLegacy("permissions_boundary_arn");
    role.permissionsBoundaryArn = input.permissionsBoundaryArn;
  }
  if (input.iamGroups !== undefined) role.iamGroups = [...input.iamGroups];
  if (input.iamTags !== undefined) role.iamTags = { ...input.iamTags };
  if (legacy !== "") {
    role = upgradeLegacyEntry(legacy);
    if (role.invalidData !== "") throw cloudBadRequest(operation, `unable to parse supplied data: ${goQuote(role.invalidData)}`, name);
    warnings.push(LEGACY_WARNING);
  } else {
    role.prohibitFlexibleCredPath = false;
  }
  const errors = validateRole(role);
  if (errors.length > 0) throw cloudBadRequest(operation, `error(s) validating supplied role data: ${goQuote(goMultiError(errors))}`, name);
  ctx.mount.roles[name] = role;
  delete ctx.mount.legacyRoles[name];
  return { warnings };
}

/**
 * Role names, sorted: current entries first, then entries of an earlier version.
 * @example listRoles(mount) // ["deploy", "readonly"]
 */
export function listRoles(mount: CloudMountState): string[] {
  const current = Object.keys(mount.roles).sort();
  const legacy = Object.keys(mount.legacyRoles).filter((name) => mount.roles[name] === undefined).sort();
  return [...current, ...legacy];
}

/**
 * Deletes a role.
 * @throws {DomainError} `not_found` (404) when there is no such role.
 * @example deleteRole(ctx, "deploy")
 */
export function deleteRole(ctx: EngineContext<CloudMountState>, name: string): void {
  if (readRole(ctx.mount, name) === undefined) throw cloudMissing("delete role", name);
  delete ctx.mount.roles[name];
  delete ctx.mount.legacyRoles[name];
}
