/**
 * Arbitraries of access-control request bodies, generated from the decoding tables the service
 * reads them with (`TOKEN_BODY`, `LOGIN_BODY`: each field's Go kind) and the simulator's rules
 * (identity names, the expiration TTL bounds of the default settings): valid token create, update
 * and clone bodies, login bodies, and invalid token bodies labelled with the 400 the service answers.
 *
 * Binding-rule bodies are generated for a given auth method, from the identity fields its selectors
 * and BindName templates may use (`selectorSchema`, `bindNameSchema`), and the bind types the
 * service knows (`BIND_TYPES`). Invalid bodies that depend on stored data (a rule for an auth
 * method that does not exist, a token linking a policy that does not exist, a login through an
 * unknown method) take the names that exist, so the label is right for the state the test set up.
 *
 * Spec: access-control.md "Token endpoints", "Binding-rule endpoints", "Login"; FIDELITY.md (400 and
 * 500 wording).
 */
import fc from "fast-check";
import { BINDING_RULE_BODY, LOGIN_BODY, TOKEN_BODY, goTypeName, type GoBodyRules, type GoFieldRule } from "../interceptors/access-control/bodies.js";
import { GO_TIME_NOT_A_STRING, goUnmarshalMessage, parseGoDuration } from "../interceptors/access-control/go-json.js";
import { bindNameSchema, rejectedBearerTokenMessage, selectorSchema } from "../simulator/access-control/auth-methods.js";
import { BIND_TYPES, isValidBindName } from "../simulator/access-control/binding-rules.js";
import { isValidIdentityName } from "../simulator/access-control/names.js";
import type { AuthMethodRecord, BindType } from "../simulator/access-control/state.js";
import { goQuote } from "../simulator/access-control/selector/go-string.js";
import { defaultSettings } from "../simulator/access-control/state.js";
import type { InvalidBody } from "./errors.js";

/** A token request body as the service reads it (Go field names). */
export type TokenBody = Record<string, unknown>;

/** Options of {@link tokenBody}. */
export interface TokenBodyOptions {
  /** Names of existing policies a body may link (`Policies: [{"Name": ...}]`). Default none. */
  readonly policies?: readonly string[];
  /** Names of existing roles a body may link. Default none. */
  readonly roles?: readonly string[];
  /** The service's TTL bounds in ms (default the service defaults: 1 minute to 24 hours). */
  readonly minExpirationTtlMs?: number;
  readonly maxExpirationTtlMs?: number;
  /** Whether bodies may carry `ExpirationTTL` (default true). */
  readonly expiring?: boolean;
}

const identityName = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,10}[a-z0-9]$|^[a-z0-9]$/).filter(isValidIdentityName);

/**
 * An `ExpirationTTL` in whole seconds within the bounds, written as Go durations do (`90s`, `2m`, `1h`).
 * @example fc.sample(expirationTtl(), 1) // ["3600s"]
 */
export function expirationTtl(options: Pick<TokenBodyOptions, "minExpirationTtlMs" | "maxExpirationTtlMs"> = {}): fc.Arbitrary<string> {
  const settings = defaultSettings();
  const min = Math.ceil((options.minExpirationTtlMs ?? settings.minExpirationTtlMs) / 1000);
  const max = Math.floor((options.maxExpirationTtlMs ?? settings.maxExpirationTtlMs) / 1000);
  return fc.integer({ min, max }).chain((seconds) =>
    fc.constantFrom(`${seconds}s`, ...(seconds % 60 === 0 ? [`${seconds / 60}m`] : []), ...(seconds % 3600 === 0 ? [`${seconds / 3600}h`] : [])),
  );
}

const links = (names: readonly string[] | undefined): fc.Arbitrary<{ Name: string }[] | undefined> =>
  names === undefined || names.length === 0 ? fc.constant(undefined) : fc.option(fc.subarray([...names], { minLength: 1 }).map((n) => n.map((Name) => ({ Name }))), { nil: undefined });

function compact(body: Record<string, unknown>): TokenBody {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

/**
 * Valid `PUT /acl/token` bodies: `Description`, `Local`, `ExpirationTTL` within the bounds,
 * links to the given policies and roles, and service identities with valid names (no
 * datacenters, so `Local` stays free). The caller's token needs `acl:write`.
 * @returns e.g. `{ Description: "ci", Local: false, ExpirationTTL: "3600s", Policies: [{ Name: "ops" }] }`.
 * @example
 * fc.assert(fc.asyncProperty(tokenBody({ policies: ["ops"] }), async (body) => {
 *   const response = await fetch(`${doubles.baseUrls().accessControl.api}/acl/token`, { method: "PUT", headers: { "x-consul-token": root }, body: JSON.stringify(body) });
 *   expect(response.status).toBe(200);
 * }));
 */
export function tokenBody(options: TokenBodyOptions = {}): fc.Arbitrary<TokenBody> {
  return fc
    .record(
      {
        Description: fc.option(fc.string({ maxLength: 16 }), { nil: undefined }),
        Local: fc.option(fc.boolean(), { nil: undefined }),
        ExpirationTTL: options.expiring === false ? fc.constant(undefined) : fc.option(expirationTtl(options), { nil: undefined }),
        Policies: links(options.policies),
        Roles: links(options.roles),
        ServiceIdentities: fc.option(fc.array(identityName.map((ServiceName) => ({ ServiceName })), { minLength: 1, maxLength: 2 }), { nil: undefined }),
      },
      { noNullPrototype: true },
    )
    .map(compact);
}

/**
 * Valid `PUT /acl/token/:AccessorID` bodies for an existing token: its `AccessorID` (and
 * optionally its unchanged `SecretID`) with a new `Description` and links. `Local` is sent as the
 * token has it (an update without it means `false`, and the service refuses to toggle it);
 * `AuthMethod` and the expiration, which it refuses to change, are left out.
 * @param token - the token as read back (`AccessorID`, `SecretID`, `Local`).
 * @example fc.sample(tokenUpdateBody({ AccessorID: id, SecretID: secret }), 1) // [{ AccessorID: id, Description: "x" }]
 */
export function tokenUpdateBody(token: { readonly AccessorID: string; readonly SecretID?: string; readonly Local?: boolean }, options: Pick<TokenBodyOptions, "policies" | "roles"> = {}): fc.Arbitrary<TokenBody> {
  return fc
    .record(
      {
        SecretID: token.SecretID === undefined ? fc.constant(undefined) : fc.option(fc.constant(token.SecretID), { nil: undefined }),
        Description: fc.option(fc.string({ maxLength: 16 }), { nil: undefined }),
        Policies: links(options.policies),
        Roles: links(options.roles),
      },
      { noNullPrototype: true },
    )
    .map((body) => compact({ AccessorID: token.AccessorID, ...(token.Local === true ? { Local: true } : {}), ...body }));
}

/**
 * Valid `PUT /acl/token/:AccessorID/clone` bodies: `{}` or a new `Description`.
 * @example fc.sample(cloneTokenBody(), 2) // [{}, { Description: "copy" }]
 */
export function cloneTokenBody(): fc.Arbitrary<TokenBody> {
  return fc.option(fc.string({ maxLength: 16 }), { nil: undefined }).map((Description) => compact({ Description }));
}

/**
 * `POST /acl/login` bodies for a bearer token the auth method accepts.
 * @example fc.sample(loginBody("k8s", jwt), 1) // [{ AuthMethod: "k8s", BearerToken: jwt, Meta: { pod: "a" } }]
 */
export function loginBody(authMethod: string, bearerToken: string): fc.Arbitrary<TokenBody> {
  return fc
    .option(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.string({ maxLength: 8 }), { maxKeys: 2, noNullPrototype: true }), { nil: undefined })
    .map((Meta) => compact({ AuthMethod: authMethod, BearerToken: bearerToken, Meta }));
}

/** JSON values that are not of a Go kind (never `null`: the decoder skips null). */
function wrongValue(rule: GoFieldRule): fc.Arbitrary<unknown> {
  const all: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 6 }),
    number: fc.integer(),
    bool: fc.boolean(),
    array: fc.constant([]),
    object: fc.constant({}),
  };
  const refused: Record<string, readonly string[]> = {
    string: ["number", "bool", "array", "object"],
    bool: ["string", "number", "array", "object"],
    uint: ["string", "bool", "array", "object"],
    strings: ["string", "number", "bool", "object"],
    "string-map": ["string", "number", "bool", "array"],
    objects: ["string", "number", "bool", "object"],
    time: ["number", "bool", "array", "object"],
  };
  return fc.oneof(...(refused[rule.kind] ?? []).map((k) => all[k] ?? fc.constant(0)));
}

function typeErrorsOf(rules: GoBodyRules, base: fc.Arbitrary<TokenBody>): fc.Arbitrary<InvalidBody<TokenBody>> {
  const fields = Object.entries(rules.fields).filter(([, rule]) => rule.enterprise !== true && rule.kind !== "duration");
  return fc.tuple(base, fc.constantFrom(...fields)).chain(([body, [field, rule]]) =>
    wrongValue(rule).map((value) => {
      const goType = goTypeName(rule);
      const message = goType === undefined ? GO_TIME_NOT_A_STRING : goUnmarshalMessage(value, rules.struct, field, goType);
      const rest = Object.fromEntries(Object.entries(body).filter(([k]) => k.toLowerCase() !== field.toLowerCase()));
      return { body: { ...rest, [field]: value }, expected: { status: 400, message: `${rules.prefix}: ${message}` }, why: `${field} is ${JSON.stringify(value)}` };
    }),
  );
}

/**
 * Token bodies (`PUT /acl/token`) the service refuses, labelled with its 400 (`Token decoding
 * failed: ...`, as plain text): a field of the wrong JSON type (Go's `cannot unmarshal` wording),
 * a key that names no field (`json: unknown field "..."`), or an `ExpirationTTL` that is not a Go
 * duration (`time: invalid duration "..."`).
 * @example
 * fc.assert(fc.asyncProperty(invalidTokenBody(), async ({ body, expected }) => {
 *   const response = await put("/acl/token", body);
 *   expect(await readServiceError("accessControl", response)).toEqual(expected);
 * }));
 */
export function invalidTokenBody(options: TokenBodyOptions = {}): fc.Arbitrary<InvalidBody<TokenBody>> {
  const base = tokenBody(options);
  const known = new Set(Object.keys(TOKEN_BODY.fields).map((f) => f.toLowerCase()));
  const unknownKey = fc.stringMatching(/^[A-Z][a-zA-Z]{2,10}$/).filter((k) => !known.has(k.toLowerCase()));
  const badDuration = fc.stringMatching(/^[a-z0-9]{1,6}$/).filter((t) => parseGoDuration(t) === undefined);
  return fc.oneof(
    typeErrorsOf(TOKEN_BODY, base),
    fc.tuple(base, unknownKey).map(([body, key]) => ({
      body: { ...body, [key]: "x" },
      expected: { status: 400, message: `${TOKEN_BODY.prefix}: json: unknown field ${goQuote(key)}` },
      why: `unknown field ${key}`,
    })),
    fc.tuple(base, badDuration).map(([body, ttl]) => ({
      body: { ...body, ExpirationTTL: ttl },
      expected: { status: 400, message: `${TOKEN_BODY.prefix}: time: invalid duration ${JSON.stringify(ttl)}` },
      why: `ExpirationTTL ${JSON.stringify(ttl)} is not a Go duration`,
    })),
  );
}

/**
 * What the arbitraries need to know of an auth method: its name, type and (claims-based methods)
 * the claims it maps. `doubles.accessControl.authMethod(name)` returns exactly this (and more).
 */
export type AuthMethodShape = Pick<AuthMethodRecord, "name" | "type"> & Partial<Pick<AuthMethodRecord, "claimMappings" | "listClaimMappings">>;

const methodRecord = (method: AuthMethodShape): AuthMethodRecord => ({ claimMappings: {}, listClaimMappings: {}, ...method }) as AuthMethodRecord;

/** A binding-rule body as the service reads it (Go field names). */
export type BindingRuleBody = Record<string, unknown>;

const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/);

/** Selectors the method's schema types: `field == "x"`, `field != "x"`, `"x" in list`, joined by `and`. */
function selectorOf(method: AuthMethodShape): fc.Arbitrary<string | undefined> {
  const fields = Object.entries(selectorSchema(methodRecord(method)).fields);
  const strings = fields.filter(([, type]) => type === "string").map(([name]) => name);
  const lists = fields.filter(([, type]) => type === "list").map(([name]) => name);
  const terms: fc.Arbitrary<string>[] = [];
  if (strings.length > 0) terms.push(fc.tuple(fc.constantFrom(...strings), fc.constantFrom("==", "!="), word).map(([f, op, v]) => `${f}${op}${JSON.stringify(v)}`));
  if (lists.length > 0) terms.push(fc.tuple(fc.constantFrom(...lists), word).map(([f, v]) => `${JSON.stringify(v)} in ${f}`));
  if (terms.length === 0) return fc.constant(undefined);
  return fc.option(fc.array(fc.oneof(...terms), { minLength: 1, maxLength: 2 }).map((t) => t.join(" and ")), { nil: undefined });
}

/** BindNames valid for `bindType`: a plain name, or a template of the method's BindName variables. */
function bindNameOf(method: AuthMethodShape, bindType: BindType): fc.Arbitrary<string> {
  const variables = Object.keys(bindNameSchema(methodRecord(method)).fields);
  const plain = identityName.filter((name) => isValidBindName(bindType, name));
  if (variables.length === 0) return plain;
  const template = fc.tuple(fc.option(fc.stringMatching(/^[a-z]{1,5}-$/), { nil: "" }), fc.constantFrom(...variables)).map(([prefix, v]) => `${prefix}\${${v}}`);
  return fc.oneof(plain, template);
}

/**
 * Valid `PUT /acl/binding-rule` bodies for an existing auth method: `AuthMethod`, a bind type the
 * service knows, a BindName valid for it (a plain name, or a template such as
 * `web-${serviceaccount.name}` using only the method's variables), optionally a `Selector` typed
 * against the method's identity fields and a `Description`. The caller's token needs `acl:write`.
 * @param method - the auth method (`doubles.accessControl.authMethod("k8s")`, or `{ name, type }`).
 * @returns e.g. `{ AuthMethod: "k8s", BindType: "service", BindName: "${serviceaccount.name}", Selector: "serviceaccount.namespace==\"default\"" }`.
 * @example
 * fc.assert(fc.asyncProperty(bindingRuleBody(acl.authMethod("k8s")), async (body) => {
 *   expect((await put("/acl/binding-rule", body)).status).toBe(200);
 * }));
 */
export function bindingRuleBody(method: AuthMethodShape): fc.Arbitrary<BindingRuleBody> {
  return fc
    .constantFrom(...BIND_TYPES)
    .chain((BindType) =>
      fc.record(
        {
          Description: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
          Selector: selectorOf(method),
          BindName: bindNameOf(method, BindType),
        },
        { noNullPrototype: true },
      ).map((rest) => compact({ AuthMethod: method.name, BindType, ...rest })),
    );
}

/**
 * Valid `PUT /acl/binding-rule/:id` bodies for an existing rule: a new bind type, BindName,
 * selector and description, with the rule's `ID` (or none) and its `AuthMethod` (or none: the
 * service keeps it, which it refuses to change).
 * @param rule - the rule as read back (`ID`, `AuthMethod`).
 * @param method - its auth method.
 * @example fc.sample(bindingRuleUpdateBody({ ID: id, AuthMethod: "k8s" }, method), 1) // [{ ID: id, BindType: "node", BindName: "n1" }]
 */
export function bindingRuleUpdateBody(rule: { readonly ID: string; readonly AuthMethod: string }, method: AuthMethodShape): fc.Arbitrary<BindingRuleBody> {
  return fc.tuple(bindingRuleBody(method), fc.boolean(), fc.boolean()).map(([body, withId, withMethod]) => {
    const out: BindingRuleBody = { ...body };
    delete out.AuthMethod;
    return { ...(withId ? { ID: rule.ID } : {}), ...(withMethod ? { AuthMethod: rule.AuthMethod } : {}), ...out };
  });
}

/** Options of {@link invalidBindingRuleBody}. */
export interface InvalidBindingRuleOptions {
  /** Names of the auth methods that exist (a rule naming another is refused); default only `method`. */
  readonly authMethods?: readonly string[];
}

const ruleError = (message: string) => ({ status: 500, message });

/**
 * Binding-rule bodies (`PUT /acl/binding-rule`) the service refuses, labelled with its answer (plain
 * text): 400 `BindingRule decoding failed: ...` for a field of the wrong JSON type or an unknown
 * field; 500 for the rule checks, in the service's order: an auth method that does not exist
 * (`cannot find auth method with name "x"`, stored data: give the names that exist), a selector
 * naming a field the method does not have, no BindType, no BindName, an unknown BindType, a
 * BindName template using a variable the method does not have or left open, and an `ID` in a
 * create body.
 * @param method - an auth method that exists (the other fields of the bodies are valid for it).
 * @example
 * fc.assert(fc.asyncProperty(invalidBindingRuleBody(method), async ({ body, expected }) => {
 *   expect(await readServiceError("accessControl", await put("/acl/binding-rule", body))).toEqual(expected);
 * }));
 */
export function invalidBindingRuleBody(method: AuthMethodShape, options: InvalidBindingRuleOptions = {}): fc.Arbitrary<InvalidBody<BindingRuleBody>> {
  const base = bindingRuleBody(method);
  const existing = new Set([method.name, ...(options.authMethods ?? [])]);
  const known = new Set(Object.keys(BINDING_RULE_BODY.fields).map((f) => f.toLowerCase()));
  const roots = new Set(Object.keys(selectorSchema(methodRecord(method)).fields).map((f) => f.split(".")[0]));
  const prefix = fc.stringMatching(/^[a-z]{0,5}$/);
  const without = (field: string, message: string) =>
    base.map((body) => {
      const rest = { ...body };
      delete rest[field];
      return { body: rest, expected: ruleError(message), why: `no ${field}` };
    });
  return fc.oneof(
    typeErrorsOf(BINDING_RULE_BODY, base),
    unknownFieldOf(BINDING_RULE_BODY, base, known),
    fc.tuple(base, identityName.filter((n) => !existing.has(n))).map(([body, name]) => ({
      body: { ...body, AuthMethod: name },
      expected: ruleError(`cannot find auth method with name "${name}"`),
      why: `auth method ${name} does not exist`,
    })),
    fc.tuple(base, fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/).filter((w) => !roots.has(w))).map(([body, field]) => ({
      body: { ...body, Selector: `${field}=="x"` },
      expected: ruleError(`invalid Binding Rule: Selector is invalid: Selector ${goQuote(field)} is not valid`),
      why: `selector field ${field} is not the method's`,
    })),
    without("BindType", "Invalid Binding Rule: no BindType is set"),
    without("BindName", "Invalid Binding Rule: no BindName is set"),
    fc.tuple(base, word.filter((w) => !(BIND_TYPES as readonly string[]).includes(w))).map(([body, bindType]) => ({
      body: { ...body, BindType: bindType },
      expected: ruleError(`Invalid Binding Rule: unknown BindType "${bindType}"`),
      why: `bind type ${bindType}`,
    })),
    fc.tuple(base, prefix).map(([body, p]) => ({
      body: { ...body, BindName: `${p}\${nope}` },
      expected: ruleError(`Invalid Binding Rule: invalid BindName: 1:${p.length + 3}: unknown variable accessed: nope`),
      why: "BindName uses an unknown variable",
    })),
    fc.tuple(base, prefix).map(([body, p]) => ({
      body: { ...body, BindName: `${p}\${` },
      expected: ruleError(`Invalid Binding Rule: invalid BindName: parse error at 1:${p.length + 3}: expected a variable name but found end of template`),
      why: "BindName template left open",
    })),
    fc.tuple(base, fc.uuid()).map(([body, id]) => ({
      body: { ...body, ID: id },
      expected: { status: 400, message: "BindingRule ID in URL and payload do not match" },
      why: "an ID in a create body",
    })),
  );
}

/**
 * Binding-rule update bodies (`PUT /acl/binding-rule/:id`) the service refuses because of what is
 * stored: another `AuthMethod` than the rule's (`the AuthMethod field of an Binding Rule is
 * immutable`, 500), or an `ID` that is not the URL's (400).
 * @param rule - the stored rule (`ID`, `AuthMethod`).
 * @param method - its auth method.
 * @example fc.sample(invalidBindingRuleUpdateBody({ ID: id, AuthMethod: "k8s" }, method), 1)[0].expected.status // 500
 */
export function invalidBindingRuleUpdateBody(rule: { readonly ID: string; readonly AuthMethod: string }, method: AuthMethodShape): fc.Arbitrary<InvalidBody<BindingRuleBody>> {
  const base = bindingRuleUpdateBody(rule, method);
  return fc.oneof(
    fc.tuple(base, identityName.filter((n) => n !== rule.AuthMethod)).map(([body, other]) => ({
      body: { ...body, AuthMethod: other },
      expected: ruleError("the AuthMethod field of an Binding Rule is immutable"),
      why: `AuthMethod changed to ${other}`,
    })),
    fc.tuple(base, fc.uuid().filter((id) => id !== rule.ID)).map(([body, id]) => ({
      body: { ...body, ID: id },
      expected: { status: 400, message: "BindingRule ID in URL and payload do not match" },
      why: "the body's ID is not the URL's",
    })),
  );
}

/** Options of {@link invalidLoginBody}. */
export interface InvalidLoginOptions {
  /** Names of the auth methods that exist (default only `method`). */
  readonly authMethods?: readonly string[];
}

/**
 * `POST /acl/login` bodies the service refuses: 400 `Failed to decode request body: ...` (a field
 * of the wrong JSON type, an unknown field); and, from stored data, an auth method that does not
 * exist (403 `ACL not found: auth method "x" not found`) or a bearer token the method does not
 * accept (500, the method's own words).
 * @param method - an auth method that exists.
 * @param bearerToken - a bearer token it accepts (the other bodies are valid but for one thing).
 * @example
 * fc.assert(fc.asyncProperty(invalidLoginBody(acl.authMethod("k8s"), "jwt-web"), async ({ body, expected }) => {
 *   expect(await readServiceError("accessControl", await post("/acl/login", body))).toEqual(expected);
 * }));
 */
export function invalidLoginBody(method: AuthMethodShape, bearerToken: string, options: InvalidLoginOptions = {}): fc.Arbitrary<InvalidBody<TokenBody>> {
  const base = loginBody(method.name, bearerToken);
  const existing = new Set([method.name, ...(options.authMethods ?? [])]);
  const known = new Set(Object.keys(LOGIN_BODY.fields).map((f) => f.toLowerCase()));
  return fc.oneof(
    typeErrorsOf(LOGIN_BODY, base),
    unknownFieldOf(LOGIN_BODY, base, known),
    fc.tuple(base, identityName.filter((n) => !existing.has(n))).map(([body, name]) => ({
      body: { ...body, AuthMethod: name },
      expected: { status: 403, message: `ACL not found: auth method "${name}" not found` },
      why: `auth method ${name} does not exist`,
    })),
    fc.tuple(base, fc.stringMatching(/^[a-z0-9]{1,12}$/).filter((t) => t !== bearerToken)).map(([body, token]) => ({
      body: { ...body, BearerToken: token },
      expected: { status: 500, message: rejectedBearerTokenMessage(methodRecord(method)) },
      why: "a bearer token the method does not accept",
    })),
  );
}

/** Options of {@link invalidTokenLinkBody}. */
export interface TokenLinkOptions {
  /** Names of the policies that exist. */
  readonly policies?: readonly string[];
  /** Names of the roles that exist. */
  readonly roles?: readonly string[];
}

/**
 * Token bodies (`PUT /acl/token`) refused because of what is stored: a link to a policy or role
 * name that does not exist (`No such ACL policy with name "x"`, 500). Give the names that exist.
 * @example fc.sample(invalidTokenLinkBody({ policies: ["ops"] }), 1)[0].expected // { status: 500, message: 'No such ACL policy with name "a"' }
 */
export function invalidTokenLinkBody(options: TokenLinkOptions = {}): fc.Arbitrary<InvalidBody<TokenBody>> {
  const base = tokenBody({ expiring: false });
  const missing = (kind: "policy" | "role", names: readonly string[] | undefined) =>
    fc.tuple(base, identityName.filter((n) => !(names ?? []).includes(n))).map(([body, name]) => {
      const rest = { ...body };
      delete rest.Policies;
      delete rest.Roles;
      return { body: { ...rest, [kind === "policy" ? "Policies" : "Roles"]: [{ Name: name }] }, expected: ruleError(`No such ACL ${kind} with name "${name}"`), why: `${kind} ${name} does not exist` };
    });
  return fc.oneof(missing("policy", options.policies), missing("role", options.roles));
}

function unknownFieldOf<B extends Record<string, unknown>>(rules: GoBodyRules, base: fc.Arbitrary<B>, known: ReadonlySet<string>): fc.Arbitrary<InvalidBody<B>> {
  const unknownKey = fc.stringMatching(/^[A-Z][a-zA-Z]{2,10}$/).filter((k) => !known.has(k.toLowerCase()) && k.toLowerCase() !== "namespace");
  return fc.tuple(base, unknownKey).map(([body, key]) => ({
    body: { ...body, [key]: "x" },
    expected: { status: 400, message: `${rules.prefix}: json: unknown field ${goQuote(key)}` },
    why: `unknown field ${key}`,
  }));
}
