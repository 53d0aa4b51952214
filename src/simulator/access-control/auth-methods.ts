/**
 * Auth methods as the access-control service sees them: which identity fields a method exposes
 * to selectors and BindName templates, and how a bearer token the method accepts becomes an
 * identity. Auth methods themselves are scenario fixtures (the spec shows no endpoint for them).
 *
 * - `kubernetes` (fields-based, like a Kubernetes service account): `serviceaccount.name`,
 *   `serviceaccount.namespace`, `serviceaccount.uid`.
 * - `jwt` / `oidc` (claims-based): `value.<name>` (strings) and `list.<name>` (lists of strings)
 *   for the claims the method maps; selectors may test any `value.x` / `list.x`, BindName
 *   templates only the mapped ones.
 *
 * FIDELITY.md "Access control" (selector typing, BindName variables).
 */
import type { Identity, IdentitySchema } from "./selector/index.js";
import { invalid } from "./errors.js";
import type { AuthMethodRecord, AuthMethodType, IdentityRecord } from "./state.js";

/** The identity of a Kubernetes-like service account. */
export interface ServiceAccountIdentityInput {
  readonly name: string;
  readonly namespace: string;
  readonly uid?: string;
}

/** Raw token claims for a claims-based method, e.g. `{ sub: "alice", groups: ["dev"] }`. */
export type ClaimsInput = Readonly<Record<string, unknown>>;

const SERVICE_ACCOUNT_FIELDS = ["serviceaccount.name", "serviceaccount.namespace", "serviceaccount.uid"] as const;

/** Whether `type` is a claims-based kind. */
export function isClaimsBased(type: AuthMethodType): boolean {
  return type === "jwt" || type === "oidc";
}

/** The fields selectors of rules on `method` are typed against. */
export function selectorSchema(method: AuthMethodRecord): IdentitySchema {
  if (!isClaimsBased(method.type)) {
    return { fields: Object.fromEntries(SERVICE_ACCOUNT_FIELDS.map((f) => [f, "string" as const])) };
  }
  const fields: Record<string, "string" | "list" | "map"> = { value: "map", list: "map" };
  for (const name of Object.values(method.claimMappings)) fields[`value.${name}`] = "string";
  for (const name of Object.values(method.listClaimMappings)) fields[`list.${name}`] = "list";
  return { fields, claims: true };
}

/** The variables BindName templates of rules on `method` may use (all strings). */
export function bindNameSchema(method: AuthMethodRecord): IdentitySchema {
  if (!isClaimsBased(method.type)) {
    return { fields: Object.fromEntries(SERVICE_ACCOUNT_FIELDS.map((f) => [f, "string" as const])) };
  }
  return { fields: Object.fromEntries(Object.values(method.claimMappings).map((name) => [`value.${name}`, "string" as const])) };
}

/** An identity with every BindName variable of `method` set to `fake` (to check a template's result). */
export function placeholderIdentity(method: AuthMethodRecord): Identity {
  const out: Record<string, Record<string, string>> = {};
  for (const path of Object.keys(bindNameSchema(method).fields)) {
    const [head, ...rest] = path.split(".");
    if (head === undefined) continue;
    out[head] ??= {};
    (out[head] as Record<string, string>)[rest.join(".")] = "fake";
  }
  return out;
}

function claimString(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * The identity `method` would validate for a bearer token carrying `input`.
 * @param input - a {@link ServiceAccountIdentityInput} for `kubernetes`, raw {@link ClaimsInput}
 * for `jwt`/`oidc` (only mapped claims become identity fields, like the real method).
 * @throws {DomainError} `invalid` when a service account lacks its name or namespace.
 */
export function identityFromInput(method: AuthMethodRecord, input: ServiceAccountIdentityInput | ClaimsInput): IdentityRecord {
  if (!isClaimsBased(method.type)) {
    const account = input as Partial<ServiceAccountIdentityInput>;
    if (typeof account.name !== "string" || account.name === "" || typeof account.namespace !== "string" || account.namespace === "") {
      throw invalid("register bearer token", "a service account identity needs a name and a namespace", method.name);
    }
    return { serviceaccount: { name: account.name, namespace: account.namespace, uid: account.uid ?? "" } };
  }
  const claims = input as ClaimsInput;
  const value: Record<string, string> = {};
  const list: Record<string, string[]> = {};
  for (const [claim, name] of Object.entries(method.claimMappings)) {
    const text = claimString(claims[claim]);
    if (text !== undefined) value[name] = text;
  }
  for (const [claim, name] of Object.entries(method.listClaimMappings)) {
    const raw = claims[claim];
    const items = Array.isArray(raw) ? raw : raw === undefined ? undefined : [raw];
    if (items !== undefined) list[name] = items.map(claimString).filter((s): s is string => s !== undefined);
  }
  return { value, list };
}

/** The error the real methods give for a bearer token they do not accept. */
export function rejectedBearerTokenMessage(method: AuthMethodRecord): string {
  return isClaimsBased(method.type)
    ? "no known key successfully validated the token signature"
    : "lookup failed: [invalid bearer token, Token has been invalidated]";
}
