/**
 * Arbitraries of access-control request bodies, generated from the decoding tables the service
 * reads them with (`TOKEN_BODY`, `LOGIN_BODY`: each field's Go kind) and the simulator's rules
 * (identity names, the expiration TTL bounds of the default settings): valid token create, update
 * and clone bodies, login bodies, and invalid token bodies labelled with the 400 the service answers.
 *
 * Spec: access-control.md "Token endpoints", "Login"; FIDELITY.md (400 wording).
 */
import fc from "fast-check";
import { TOKEN_BODY, goTypeName, type GoBodyRules, type GoFieldRule } from "../interceptors/access-control/bodies.js";
import { GO_TIME_NOT_A_STRING, goUnmarshalMessage, parseGoDuration } from "../interceptors/access-control/go-json.js";
import { isValidIdentityName } from "../simulator/access-control/names.js";
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
