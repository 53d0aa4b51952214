/**
 * Arbitraries of secrets-service request bodies, generated from the field tables the SSH engine
 * reads them with (`SSH_ROLE_FIELDS`, `SSH_CREDS_FIELDS`, `SSH_SIGN_FIELDS`, `SSH_VERIFY_FIELDS`:
 * each field's kind) and the role rules of the engine: valid bodies written in every wire form a
 * field's kind accepts (a boolean as `true`, `"t"` or `1`; a duration as seconds or `"1h"`; a map
 * as an object, a list of objects or a JSON string), and invalid ones labelled with the 400.
 *
 * Cloud-account roles and static roles come from `CLOUD_ROLE_FIELDS` / `CLOUD_STATIC_ROLE_FIELDS`
 * (each field's kind, written in every form the kind's reader takes); managed keys from
 * `GENERIC_FIELDS` and `TYPE_FIELDS` (the `kmsa` and `kmsb` backends, which need no stored key).
 * Bodies refused because of stored data (a static role for a user the account does not have, a
 * managed key name another type holds) take what exists.
 *
 * Spec: secrets.md "SSH engine" (role parameters, credentials, signing, verify), "Cloud-account
 * engine" (role parameters, static roles), "Managed keys", "MFA login enforcement".
 */
import fc from "fast-check";
import { FIELD_KIND_REFUSALS, type SecretsFieldKind } from "../interceptors/secrets/request.js";
import { SSH_ROLE_FIELDS, SSH_SIGN_FIELDS, type SshFieldRule } from "../interceptors/secrets/ssh/ssh-fields.js";
import { LOGIN_ENFORCEMENT_LISTS } from "../interceptors/secrets/login-enforcement-routes.js";
import { CLOUD_ROLE_FIELDS, CLOUD_STATIC_ROLE_FIELDS, type CloudFieldKind } from "../interceptors/secrets/cloud/cloud-fields.js";
import { goMultiError, goQuote } from "../simulator/secrets/cloud/go-format.js";
import { MIN_ROTATION_PERIOD_SECONDS } from "../simulator/secrets/cloud/static-roles.js";
import { GENERIC_FIELDS, KMSC_ALGORITHMS, PKCS11_MECHANISMS, RSA_KEY_BITS, TYPE_FIELDS, parseMechanism, type FieldKind as ManagedKeyFieldKind } from "../simulator/secrets/managed-keys.js";
import { MANAGED_KEY_TYPES, MANAGED_KEY_USAGES, type ManagedKeyType } from "../simulator/secrets/managed-key-types.js";
import { EC_CURVES } from "../simulator/secrets/managed-key-crypto.js";
import type { InvalidBody } from "./errors.js";

/** A secrets-service request body (field names as on the wire, e.g. `key_type`). */
export type SecretsBody = Record<string, unknown>;

const TRUE_FORMS = [true, "true", "1", "t", "T", "TRUE", "True", 1] as const;
const FALSE_FORMS = [false, "false", "0", "f", "F", "FALSE", "False", 0] as const;

/**
 * One value of a field's kind, written in any wire form the kind's reader accepts.
 * @example fc.sample(wireForm("duration", 3_600_000), 3) // [3600, "3600s", "1h"]
 */
export function wireForm(kind: SecretsFieldKind, value: unknown): fc.Arbitrary<unknown> {
  switch (kind) {
    case "bool":
      return fc.constantFrom(...(value === true ? TRUE_FORMS : FALSE_FORMS));
    case "int":
      return fc.constantFrom(value, String(value), ` ${String(value)} `);
    case "duration": {
      const seconds = Math.floor(Number(value) / 1000);
      return fc.constantFrom(seconds, `${seconds}s`, String(seconds), ...(seconds % 3600 === 0 && seconds > 0 ? [`${seconds / 3600}h`] : []));
    }
    case "string-map":
      return fc.constantFrom(value, [value], JSON.stringify(value));
    case "string-list":
      return fc.constantFrom(value, (value as string[]).join(","));
    default:
      return fc.constant(value);
  }
}

const kindOf = (rules: readonly SshFieldRule[], field: string): SecretsFieldKind => rules.find((r) => r.field === field)?.kind ?? "string";

/** Writes a body of plain values through {@link wireForm}, one form per field. */
function encode(rules: readonly SshFieldRule[], plain: Record<string, unknown>): fc.Arbitrary<SecretsBody> {
  const entries = Object.entries(plain).filter(([, v]) => v !== undefined);
  return fc.tuple(...entries.map(([field, value]) => wireForm(kindOf(rules, field), value))).map((forms) => Object.fromEntries(entries.map(([field], i) => [field, forms[i]])));
}

const user = fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/);
const octet = fc.integer({ min: 0, max: 255 });
const cidr = fc.tuple(octet, octet, fc.constantFrom(8, 16, 24)).map(([a, b, bits]) => (bits === 8 ? `${a}.0.0.0/8` : bits === 16 ? `${a}.${b}.0.0/16` : `${a}.${b}.7.0/24`));

/** Options of {@link sshRoleBody}. */
export interface SshRoleBodyOptions {
  /** `otp` (one-time passwords) or `ca` (certificate signing); default either. */
  readonly keyType?: "otp" | "ca";
}

/**
 * Valid `POST <mount>/roles/:name` bodies of the SSH engine: OTP roles (a default user, a CIDR
 * list, a port, allowed users) and CA roles (user and/or host certificates, `ttl` not above
 * `max_ttl`, default extensions), each field written in a random wire form of its kind.
 * @returns e.g. `{ key_type: "otp", default_user: "ops", cidr_list: "10.0.0.0/8", port: "22" }`.
 * @example
 * fc.assert(fc.asyncProperty(sshRoleBody({ keyType: "otp" }), async (body) => {
 *   const response = await fetch(`${doubles.baseUrls().secrets.api}/ssh/roles/web`, { method: "POST", headers: { "x-vault-token": root }, body: JSON.stringify(body) });
 *   expect(response.status).toBe(204);
 * }));
 */
export function sshRoleBody(options: SshRoleBodyOptions = {}): fc.Arbitrary<SecretsBody> {
  const otp = fc
    .record({
      key_type: fc.constantFrom("otp", "OTP"),
      default_user: user,
      cidr_list: fc.array(cidr, { minLength: 1, maxLength: 2 }).map((list) => list.join(",")),
      port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
      allowed_users: fc.option(fc.array(user, { minLength: 1, maxLength: 2 }).map((u) => u.join(",")), { nil: undefined }),
    })
    .chain((plain) => encode(SSH_ROLE_FIELDS, plain));
  const ca = fc
    .record({
      key_type: fc.constant("ca"),
      allow_user_certificates: fc.boolean(),
      allow_host_certificates: fc.boolean(),
      default_user: fc.option(user, { nil: undefined }),
      allowed_users: fc.option(fc.constantFrom("*", "ops", "ops,deploy"), { nil: undefined }),
      ttl: fc.option(fc.integer({ min: 1, max: 48 }).map((h) => h * 3_600_000), { nil: undefined }),
      max_ttl: fc.option(fc.integer({ min: 1, max: 48 }).map((h) => h * 3_600_000), { nil: undefined }),
      default_extensions: fc.option(fc.constantFrom({ "permit-pty": "" }, { "permit-pty": "", "permit-port-forwarding": "" }), { nil: undefined }),
    })
    .map((plain) => {
      const ttl = plain.ttl !== undefined && plain.max_ttl !== undefined && plain.ttl > plain.max_ttl ? plain.max_ttl : plain.ttl;
      return { ...plain, ttl, allow_user_certificates: plain.allow_user_certificates || !plain.allow_host_certificates };
    })
    .chain((plain) => encode(SSH_ROLE_FIELDS, plain));
  if (options.keyType === "otp") return otp;
  if (options.keyType === "ca") return ca;
  return fc.oneof(otp, ca);
}

/** JSON values a kind's reader refuses with {@link FIELD_KIND_REFUSALS} (never `null`: absent). */
const WRONG_VALUE: Readonly<Record<SecretsFieldKind, fc.Arbitrary<unknown>>> = {
  string: fc.constantFrom([], {}, ["a"], { a: 1 }),
  int: fc.oneof(fc.boolean(), fc.constantFrom("x", "1.5", "", [], {})).filter((v) => v !== ""),
  bool: fc.constantFrom("yes", "no", 2, -1, [], {}),
  "string-list": fc.constantFrom(5, true, {}),
  duration: fc.constantFrom(true, false, [], {}),
  "string-map": fc.constantFrom(5, true, "not json", [1]),
  "key-lengths": fc.constantFrom(5, true, "not json"),
};

function wrongKind(base: fc.Arbitrary<SecretsBody>, rules: readonly Pick<SshFieldRule, "field" | "kind">[]): fc.Arbitrary<InvalidBody<SecretsBody>> {
  return fc.tuple(base, fc.constantFrom(...rules)).chain(([body, rule]) =>
    WRONG_VALUE[rule.kind].map((value) => ({
      body: { ...body, [rule.field]: value },
      expected: { status: 400, message: `error converting input ${JSON.stringify(value)} for field "${rule.field}": ${FIELD_KIND_REFUSALS[rule.kind]}` },
      why: `${rule.field} is ${JSON.stringify(value)}, not a ${rule.kind}`,
    })),
  );
}

/**
 * SSH role bodies the engine refuses, labelled with its 400 (`{"errors": ["..."]}`): a field of
 * `SSH_ROLE_FIELDS` given a value its kind cannot read (`error converting input ... for field
 * "...": ...`), or a role body missing what its key type requires (`missing default user`,
 * `missing cidr_list`, `missing key type`).
 * @example
 * fc.assert(fc.asyncProperty(invalidSshRoleBody(), async ({ body, expected }) => {
 *   const response = await post("/ssh/roles/web", body);
 *   expect(await readServiceError("secrets", response)).toEqual(expected);
 * }));
 */
export function invalidSshRoleBody(): fc.Arbitrary<InvalidBody<SecretsBody>> {
  const base = sshRoleBody();
  const missing = (field: string, message: string) =>
    sshRoleBody({ keyType: "otp" }).map((body) => {
      const rest = { ...body };
      delete rest[field];
      return { body: rest, expected: { status: 400, message }, why: `an OTP role without ${field}` };
    });
  return fc.oneof(wrongKind(base, SSH_ROLE_FIELDS), missing("default_user", "missing default user"), missing("cidr_list", "missing cidr_list"), missing("key_type", "missing key type"));
}

/**
 * Valid `POST <mount>/creds/:name` bodies for an OTP role: the `ip` (inside the role's CIDR list)
 * and optionally the `username`.
 * @param ip - an address the role allows, e.g. `10.0.0.5`.
 * @param username - a user the role allows (default: the role's default user).
 * @example fc.sample(sshCredsBody("10.0.0.5"), 1) // [{ ip: "10.0.0.5" }]
 */
export function sshCredsBody(ip: string, username?: string): fc.Arbitrary<SecretsBody> {
  return fc.boolean().map((named) => (named && username !== undefined ? { ip, username } : { ip }));
}

/**
 * `POST <mount>/verify` bodies: `{"otp": "..."}`.
 * @example fc.sample(otpVerifyBody(fc.constant("2f1e...")), 1) // [{ otp: "2f1e..." }]
 */
export function otpVerifyBody(otp: fc.Arbitrary<string>): fc.Arbitrary<SecretsBody> {
  return otp.map((value) => ({ otp: value }));
}

/**
 * Valid `POST <mount>/sign/:name` bodies for a CA role allowing user certificates: the public key,
 * optionally a `ttl` (1 to 12 hours, any wire form), `valid_principals` and `extensions`.
 * @param publicKey - an OpenSSH public key line (`ssh-ed25519 AAAA...`).
 * @param principals - principals the role allows (default `["ops"]`).
 * @example fc.sample(sshSignBody(publicKey), 1) // [{ public_key: "ssh-ed25519 AAAA...", ttl: "3600s" }]
 */
export function sshSignBody(publicKey: string, principals: readonly string[] = ["ops"]): fc.Arbitrary<SecretsBody> {
  return fc
    .record(
      {
        public_key: fc.constant(publicKey),
        ttl: fc.option(fc.integer({ min: 1, max: 12 }).map((h) => h * 3_600_000), { nil: undefined }),
        valid_principals: fc.option(fc.subarray([...principals], { minLength: 1 }).map((p) => p.join(",")), { nil: undefined }),
        extensions: fc.option(fc.constant({ "permit-pty": "" }), { nil: undefined }),
      },
      { requiredKeys: ["public_key"] },
    )
    .chain((plain) => encode(SSH_SIGN_FIELDS, plain));
}

/**
 * Signing bodies the engine refuses at the field level, labelled with the 400: a field of
 * `SSH_SIGN_FIELDS` given a value its kind cannot read.
 * @example fc.sample(invalidSshSignBody(publicKey), 1)[0].expected.status // 400
 */
export function invalidSshSignBody(publicKey: string): fc.Arbitrary<InvalidBody<SecretsBody>> {
  return wrongKind(sshSignBody(publicKey), SSH_SIGN_FIELDS);
}

/**
 * `POST /sys/leases/renew` bodies: the lease and optionally an `increment` in seconds.
 * @example fc.sample(leaseRenewBody("ssh/creds/web/abc"), 1) // [{ lease_id: "ssh/creds/web/abc", increment: 600 }]
 */
export function leaseRenewBody(leaseId: string): fc.Arbitrary<SecretsBody> {
  return fc.option(fc.integer({ min: 1, max: 7200 }), { nil: undefined }).map((increment) => (increment === undefined ? { lease_id: leaseId } : { lease_id: leaseId, increment }));
}

// ---- cloud-account engine ---------------------------------------------------------------------

/** One value of a cloud field kind, in any form the kind's reader accepts. */
function cloudWireForm(kind: CloudFieldKind, value: unknown): fc.Arbitrary<unknown> {
  switch (kind) {
    case "duration": {
      const seconds = Number(value);
      return fc.constantFrom(seconds, String(seconds), `${seconds}s`, ...(seconds % 3600 === 0 && seconds > 0 ? [`${seconds / 3600}h`] : []), ...(seconds % 86_400 === 0 && seconds > 0 ? [`${seconds / 86_400}d`] : []));
    }
    case "comma-list":
      return fc.constantFrom(value, (value as string[]).join(","), (value as string[]).join(", "));
    case "key-value":
      return fc.constantFrom(value, Object.entries(value as Record<string, string>).map(([k, v]) => `${k}=${v}`));
    case "int":
      return fc.constantFrom(value, String(value));
    default:
      return fc.constant(value);
  }
}

function encodeCloud(rules: readonly { field: string; kind: CloudFieldKind }[], plain: Record<string, unknown>): fc.Arbitrary<SecretsBody> {
  const entries = Object.entries(plain).filter(([, v]) => v !== undefined);
  const kind = (field: string): CloudFieldKind => rules.find((r) => r.field === field)?.kind ?? "string";
  return fc.tuple(...entries.map(([field, value]) => cloudWireForm(kind(field), value))).map((forms) => Object.fromEntries(entries.map(([field], i) => [field, forms[i]])));
}

const accountId = fc.stringMatching(/^[0-9]{12}$/);
const iamName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_+=,.@-]{0,11}$/);
const policyArn = fc.oneof(fc.constantFrom("arn:aws:iam::aws:policy/ReadOnlyAccess", "arn:aws:iam::aws:policy/PowerUserAccess"), fc.tuple(accountId, iamName).map(([a, n]) => `arn:aws:iam::${a}:policy/${n}`));
const roleArn = fc.tuple(accountId, iamName).map(([a, n]) => `arn:aws:iam::${a}:role/${n}`);
const policyDocument = fc.constantFrom('{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}', '{ "Version": "2012-10-17", "Statement": [] }');
const arns = <T>(item: fc.Arbitrary<T>) => fc.array(item, { minLength: 1, maxLength: 2 });
const hours = (max: number) => fc.integer({ min: 1, max }).map((h) => h * 3600);

/** Options of {@link cloudRoleBody}. */
export interface CloudRoleBodyOptions {
  /** `iam_user`, `assumed_role` or `federation_token`; default any. */
  readonly credentialType?: "iam_user" | "assumed_role" | "federation_token";
}

/**
 * Valid `POST <mount>/roles/:name` bodies of the cloud-account engine, for a name not used yet
 * (an update merges with what is stored): `iam_user` roles (policy ARNs and/or a policy document,
 * groups, tags, a user path, a permissions boundary), `assumed_role` roles (role ARNs, STS TTLs
 * with the default not above the max) and `federation_token` roles, each field in a random form
 * its kind accepts (a list as an array or a comma-separated string, tags as an object or
 * `key=value` strings, TTLs as seconds, `"3600s"` or `"1h"`).
 * @example
 * fc.assert(fc.asyncProperty(cloudRoleBody(), fc.uuid(), async (body, id) => {
 *   expect((await post(`/cloud/roles/r-${id}`, body)).status).toBe(204);
 * }));
 */
export function cloudRoleBody(options: CloudRoleBodyOptions = {}): fc.Arbitrary<SecretsBody> {
  const policies = fc
    .record({ policy_arns: fc.option(arns(policyArn), { nil: undefined }), policy_document: fc.option(policyDocument, { nil: undefined }) })
    .map((p) => (p.policy_arns === undefined && p.policy_document === undefined ? { ...p, policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] } : p));
  const sts = fc.record({ default_sts_ttl: fc.option(hours(6), { nil: undefined }), max_sts_ttl: fc.option(hours(12), { nil: undefined }) }).map((t) =>
    t.default_sts_ttl !== undefined && t.max_sts_ttl !== undefined && t.default_sts_ttl > t.max_sts_ttl ? { ...t, default_sts_ttl: t.max_sts_ttl } : t,
  );
  const iamUser = fc
    .tuple(
      policies,
      fc.record({
        iam_groups: fc.option(arns(iamName), { nil: undefined }),
        iam_tags: fc.option(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^[a-z0-9]{1,6}$/), { minKeys: 1, maxKeys: 2, noNullPrototype: true }), { nil: undefined }),
        user_path: fc.option(fc.constantFrom("/", "/team/", "/a/b/"), { nil: undefined }),
        permissions_boundary_arn: fc.option(policyArn, { nil: undefined }),
      }),
    )
    .map(([p, rest]) => ({ credential_type: "iam_user", ...p, ...rest }));
  const assumedRole = fc.tuple(arns(roleArn), sts, fc.option(policies, { nil: undefined })).map(([role_arns, t, p]) => ({ credential_type: "assumed_role", role_arns, ...t, ...(p ?? {}) }));
  const federation = fc.tuple(policies, sts).map(([p, t]) => ({ credential_type: "federation_token", ...p, ...t }));
  const byType = { iam_user: iamUser, assumed_role: assumedRole, federation_token: federation } as const;
  const plain = options.credentialType !== undefined ? byType[options.credentialType] : fc.oneof(iamUser, assumedRole, federation);
  return plain.chain((body) => encodeCloud(CLOUD_ROLE_FIELDS, body as Record<string, unknown>));
}

const roleDataError = (...errors: string[]) => ({ status: 400, message: `error(s) validating supplied role data: ${goQuote(goMultiError(errors))}` });
const fieldError = (field: string, value: unknown, why: string) => ({ status: 400, message: `Field validation failed: error converting input ${String(value)} for field ${JSON.stringify(field)}: ${why}` });

/**
 * Cloud role bodies (`POST <mount>/roles/:name`, a name not used yet) the engine refuses, labelled
 * with its 400 (`{"errors": [...]}`): no `credential_type`, an unknown one, an `iam_user` or
 * `federation_token` role without a policy, an `assumed_role` role without role ARNs, STS TTLs on
 * an `iam_user` role, a default STS TTL above the max, a policy document that is not JSON, a TTL
 * that is not a duration, and a tag that is not `key=value`.
 * @example
 * fc.assert(fc.asyncProperty(invalidCloudRoleBody(), async ({ body, expected }) => {
 *   expect(await readServiceError("secrets", await post("/cloud/roles/new", body))).toEqual(expected);
 * }));
 */
export function invalidCloudRoleBody(): fc.Arbitrary<InvalidBody<SecretsBody>> {
  const policy = { policy_arns: "arn:aws:iam::aws:policy/ReadOnlyAccess" };
  const invalid = (body: SecretsBody, expected: { status: number; message: string }, why: string): InvalidBody<SecretsBody> => ({ body, expected, why });
  return fc.oneof(
    arns(policyArn).map((a) => invalid({ policy_arns: a }, roleDataError("did not supply credential_type"), "no credential_type")),
    fc.stringMatching(/^[a-z_]{1,12}$/).filter((t) => !["iam_user", "assumed_role", "federation_token"].includes(t)).map((t) => invalid({ credential_type: t }, roleDataError(`unrecognized credential type: ${t}`), `credential_type ${t}`)),
    fc.constantFrom("iam_user", "federation_token").map((t) => invalid({ credential_type: t }, roleDataError(`must specify at least one of policy_arns or policy_document with ${t} credential_type`), `a ${t} role without a policy`)),
    fc.constant(invalid({ credential_type: "assumed_role" }, roleDataError("must specify role_arns with assumed_role credential_type"), "an assumed_role role without role_arns")),
    fc.tuple(fc.constantFrom("default_sts_ttl", "max_sts_ttl"), hours(4)).map(([field, ttl]) =>
      invalid({ credential_type: "iam_user", ...policy, [field]: ttl }, roleDataError(`${field} parameter only valid for assumed_role and federation_token credential types`), `${field} on an iam_user role`),
    ),
    fc.tuple(roleArn, fc.integer({ min: 2, max: 12 })).map(([arn, h]) =>
      invalid({ credential_type: "assumed_role", role_arns: arn, default_sts_ttl: `${h}h`, max_sts_ttl: `${h - 1}h` }, roleDataError('"default_sts_ttl" value must be less than or equal to "max_sts_ttl" value'), "default_sts_ttl above max_sts_ttl"),
    ),
    fc.constantFrom("{", "not json", '{"Version":').map((doc) => invalid({ credential_type: "iam_user", policy_document: doc }, { status: 400, message: `cannot parse policy document: ${goQuote(doc)}` }, "a policy document that is not JSON")),
    fc.tuple(fc.constantFrom("default_sts_ttl", "max_sts_ttl"), fc.boolean()).map(([field, value]) =>
      invalid({ credential_type: "assumed_role", role_arns: "arn:aws:iam::123456789012:role/r", [field]: value }, fieldError(field, value, "could not parse duration from input"), `${field} is ${String(value)}`),
    ),
    fc.stringMatching(/^[a-z]{1,8}$/).map((tag) => invalid({ credential_type: "iam_user", ...policy, iam_tags: [tag] }, fieldError("iam_tags", `[${tag}]`, `invalid key pair ${goQuote(tag)}`), `tag ${tag} is not key=value`)),
  );
}

/** Options of {@link cloudStaticRoleBody} and {@link invalidCloudStaticRoleBody}. */
export interface CloudStaticRoleOptions {
  /** IAM users that exist in the account (a static role manages one); at least one. */
  readonly users: readonly string[];
}

/**
 * Valid `POST <mount>/static-roles/:name` bodies: an existing IAM `username` and a
 * `rotation_period` above the minimum (seconds, `"3600s"`, `"1h"` or `"1d"`).
 * @example fc.sample(cloudStaticRoleBody({ users: ["app"] }), 1) // [{ username: "app", rotation_period: "1h" }]
 */
export function cloudStaticRoleBody(options: CloudStaticRoleOptions): fc.Arbitrary<SecretsBody> {
  return fc
    .record({ username: fc.constantFrom(...options.users), rotation_period: fc.integer({ min: 1, max: 48 }).map((h) => h * 3600) })
    .chain((plain) => encodeCloud(CLOUD_STATIC_ROLE_FIELDS, plain));
}

/**
 * Static role bodies (for a name not used yet) the engine refuses: no `username` or no
 * `rotation_period` (400), a rotation period below the minimum of 60 seconds (500: the engine
 * refuses less than the minimum, so exactly 60 is accepted), and, from stored
 * data, a user the account does not have (500 `unable to validate username ...`): pass the users
 * that exist.
 * @example fc.sample(invalidCloudStaticRoleBody({ users: ["app"] }), 1)[0].expected // { status: 400, message: 'missing "username" parameter' }
 */
export function invalidCloudStaticRoleBody(options: CloudStaticRoleOptions): fc.Arbitrary<InvalidBody<SecretsBody>> {
  const base = cloudStaticRoleBody(options);
  const without = (field: string) =>
    base.map((body) => {
      const rest = { ...body };
      delete rest[field];
      return { body: rest, expected: { status: 400, message: `missing ${JSON.stringify(field)} parameter` }, why: `no ${field}` };
    });
  return fc.oneof(
    without("username"),
    without("rotation_period"),
    fc.tuple(base, fc.integer({ min: 1, max: MIN_ROTATION_PERIOD_SECONDS - 1 })).map(([body, seconds]) => ({
      body: { ...body, rotation_period: seconds },
      expected: { status: 500, message: `role rotation period out of range: must be greater than ${MIN_ROTATION_PERIOD_SECONDS.toFixed(2)} seconds` },
      why: `rotation_period ${seconds}s`,
    })),
    fc.tuple(base, iamName.filter((n) => !options.users.includes(n))).map(([body, user]) => ({
      body: { ...body, username: user },
      expected: { status: 500, message: `unable to validate username ${goQuote(user)}: NoSuchEntity: The user with name ${user} cannot be found.` },
      why: `user ${user} does not exist`,
    })),
  );
}

// ---- managed keys -----------------------------------------------------------------------------

const MANAGED_KIND: Readonly<Record<ManagedKeyFieldKind, SecretsFieldKind>> = { string: "string", int: "int", bool: "bool", list: "string-list" };

/** A `kmsc` key ring that exists (`doubles.secrets.addKeyRing(project, region, keyRing)`). */
export interface KmscKeyRing {
  readonly project: string;
  readonly region: string;
  readonly keyRing: string;
}

/** Options of {@link managedKeyBody}. */
export interface ManagedKeyBodyOptions {
  /**
   * The backend type. Default: `kmsa` or `kmsb` (which need nothing stored first), plus `pkcs11`
   * when `pkcs11Libraries` is given and `kmsc` when `keyRings` is given.
   */
  readonly type?: ManagedKeyType;
  /**
   * `pkcs11` library stanzas in the server configuration (`doubles.secrets.addPkcs11Library`); a
   * `pkcs11` body names one. Default for `type: "pkcs11"`: `["hsm"]`, the stanza the fake starts with.
   */
  readonly pkcs11Libraries?: readonly string[];
  /** `kmsc` key rings that exist (a `kmsc` body names one; the spec: it "must exist beforehand"). Required for `type: "kmsc"`. */
  readonly keyRings?: readonly KmscKeyRing[];
}

/** The backend types a body may be drawn for, given what exists. */
function managedKeyTypes(options: ManagedKeyBodyOptions): { readonly types: readonly ManagedKeyType[]; readonly libraries: readonly string[]; readonly keyRings: readonly KmscKeyRing[] } {
  const keyRings = options.keyRings ?? [];
  const libraries = options.pkcs11Libraries ?? (options.type === "pkcs11" ? ["hsm"] : []);
  if (options.type === "kmsc" && keyRings.length === 0) throw new TypeError("managedKeyBody: a kmsc body needs a key ring that exists: pass keyRings (doubles.secrets.addKeyRing)");
  if (options.type === "pkcs11" && libraries.length === 0) throw new TypeError("managedKeyBody: a pkcs11 body needs a library stanza: pass pkcs11Libraries");
  if (options.type !== undefined) return { types: [options.type], libraries, keyRings };
  const types: ManagedKeyType[] = ["kmsa", "kmsb"];
  if (libraries.length > 0) types.push("pkcs11");
  if (keyRings.length > 0) types.push("kmsc");
  return { types, libraries, keyRings };
}

/** `pkcs11` mechanisms (as sent: `0x` hexadecimal) with the key kind each generates. */
const PKCS11_MECHANISM_TEXTS: readonly (readonly [string, "rsa" | "ec"])[] = Object.entries(PKCS11_MECHANISMS).map(([code, kind]) => [`0x${Number(code).toString(16).padStart(4, "0")}`, kind] as const);

/**
 * Valid `POST /sys/managed-keys/:type/:name` bodies (root namespace, a lowercase name): each
 * backend's required parameters, `key_bits` one of the RSA sizes, optionally the generic flags and
 * `usages`, booleans and lists in any form their readers take. `kmsa` and `kmsb` need nothing
 * stored; `pkcs11` names a library stanza of `pkcs11Libraries` (a key by label, a slot or token
 * label, a mechanism with the curve or key size it generates); `kmsc` names a key ring of
 * `keyRings` and one of the spec's algorithms. Send each to the path of its `type` field.
 * Spec: secrets, managed keys.
 * @throws {TypeError} for `type: "kmsc"` without `keyRings`, or `type: "pkcs11"` with an empty `pkcs11Libraries`.
 * @example fc.sample(managedKeyBody({ type: "kmsa" }), 1) // [{ type: "kmsa", access_key: "AKIA...", secret_key: "...", key_type: "RSA", kms_key: "alias/app", key_bits: 2048 }]
 * @example fc.sample(managedKeyBody({ type: "kmsc", keyRings: [{ project: "p", region: "europe-west1", keyRing: "ring" }] }), 1)
 */
export function managedKeyBody(options: ManagedKeyBodyOptions = {}): fc.Arbitrary<SecretsBody> {
  const { types, libraries, keyRings } = managedKeyTypes(options);
  const generic = fc.record(
    {
      allow_generate_key: fc.boolean(),
      allow_replace_key: fc.boolean(),
      any_mount: fc.boolean(),
      usages: fc.subarray(["sign", "verify", "encrypt", "decrypt"], { minLength: 1 }),
    },
    { requiredKeys: [] },
  );
  const bits = fc.constantFrom(...RSA_KEY_BITS);
  const keyName = fc.stringMatching(/^[a-z0-9-]{1,10}$/);
  const byType: Record<ManagedKeyType, () => fc.Arbitrary<SecretsBody>> = {
    kmsa: () =>
      fc.tuple(generic, keyName, bits, fc.constantFrom("us-east-1", "eu-west-1")).map(([g, key, keyBits, region]) => ({
        type: "kmsa",
        ...g,
        access_key: "AKIAEXAMPLE",
        secret_key: "secret",
        key_type: "RSA",
        kms_key: `alias/${key}`,
        key_bits: keyBits,
        region,
      })),
    kmsb: () =>
      fc.tuple(generic, keyName, bits).map(([g, key, keyBits]) => ({
        type: "kmsb",
        ...g,
        tenant_id: "tenant",
        client_id: "client",
        client_secret: "secret",
        vault_name: "vault",
        key_name: key,
        key_type: "RSA-HSM",
        key_bits: keyBits,
      })),
    pkcs11: () =>
      fc
        .tuple(
          generic,
          fc.constantFrom(...libraries),
          keyName,
          fc.constantFrom(...PKCS11_MECHANISM_TEXTS),
          fc.oneof(fc.nat({ max: 15 }).map((slot) => ({ slot: String(slot) })), keyName.map((label) => ({ token_label: label }))),
          bits,
          fc.constantFrom(...Object.keys(EC_CURVES)),
          fc.record({ force_rw_session: fc.boolean(), max_parallel: fc.nat({ max: 64 }) }, { requiredKeys: [] }),
        )
        .map(([g, library, label, [mechanism, kind], token, keyBits, curve, extra]) => ({
          type: "pkcs11",
          ...g,
          library,
          key_label: label,
          mechanism,
          pin: "1234",
          ...token,
          ...(kind === "ec" ? { curve } : { key_bits: keyBits }),
          ...extra,
        })),
    kmsc: () =>
      fc.tuple(generic, fc.constantFrom(...keyRings), keyName, fc.constantFrom(...Object.keys(KMSC_ALGORITHMS)), fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined })).map(([g, ring, key, algorithm, version]) => ({
        type: "kmsc",
        ...g,
        credentials: "{\"type\":\"service_account\"}",
        project: ring.project,
        region: ring.region,
        key_ring: ring.keyRing,
        crypto_key: key,
        algorithm,
        ...(version === undefined ? {} : { crypto_key_version: String(version) }),
      })),
  };
  const drawn = types.map((type) => byType[type]());
  const plain = drawn.length === 1 ? (drawn[0] as fc.Arbitrary<SecretsBody>) : fc.oneof(...drawn);
  return plain.chain((body) => encode(managedKeyRules(body), body));
}

/** The wire rules of a managed key body's fields (generic and its type's), from the tables the route reads. */
function managedKeyRules(body: SecretsBody): { field: string; input: string; kind: SecretsFieldKind }[] {
  const fields = { ...GENERIC_FIELDS, ...TYPE_FIELDS[body.type as ManagedKeyType] };
  return Object.entries(fields).map(([field, kind]) => ({ field, input: field, kind: MANAGED_KIND[kind] }));
}

/** Options of {@link invalidManagedKeyBody}. */
export interface InvalidManagedKeyOptions extends ManagedKeyBodyOptions {
  /** Managed keys that exist, by name, with their type: a body naming one of another type is refused. */
  readonly existing?: Readonly<Record<string, string>>;
}

/** An invalid managed key body, and where to send it when not `/sys/managed-keys/<body.type>/<a new name>`. */
export interface InvalidManagedKey extends InvalidBody<SecretsBody> {
  /** The key name to write (an existing key's), when the refusal depends on it. */
  readonly name?: string;
  /** The path's type, when it is not the body's `type`. */
  readonly pathType?: string;
}

/** Required parameters whose absence each backend refuses with `<field> is required` (kmsb: `... unless a managed identity is used` for the client credentials). */
const REQUIRED_MANAGED_KEY_FIELDS: Readonly<Record<ManagedKeyType, readonly string[]>> = {
  kmsa: ["access_key", "secret_key", "key_type", "kms_key"],
  kmsb: ["tenant_id", "client_id", "client_secret", "vault_name", "key_name", "key_type"],
  pkcs11: ["library", "mechanism", "pin"],
  kmsc: ["credentials", "crypto_key", "key_ring", "project", "region", "algorithm"],
};

/**
 * Managed key bodies the service refuses (`POST /sys/managed-keys/:type/:name`; send each to
 * `/sys/managed-keys/<pathType ?? body.type>/<name ?? a new name>`), labelled with its
 * 400: a field of the wrong kind, a required parameter missing, `key_bits` not an RSA size, a
 * `key_type` the backend does not take, an unknown usage, a `type` field that is not the path's,
 * a kmsa key generated under a name that is not an alias; for `pkcs11`, a library stanza, key id
 * (no key the HSM holds), mechanism, slot or curve the server does not have or read, no key label
 * or id, no slot or token label, a negative `max_parallel`, a generated key without its size or
 * curve; for `kmsc`, a key ring that does not exist, an algorithm not in the spec's list, a
 * `crypto_key_version` that is not a number; and (stored data) a name another type holds, in
 * `name`. The types drawn are those of {@link managedKeyBody} with the same options.
 * Spec: secrets, managed keys.
 * @throws {TypeError} as {@link managedKeyBody}.
 * @example fc.sample(invalidManagedKeyBody({ type: "kmsa" }), 1)[0].expected // { status: 400, message: "kms_key is required" }
 */
export function invalidManagedKeyBody(options: InvalidManagedKeyOptions = {}): fc.Arbitrary<InvalidManagedKey> {
  const { types, libraries, keyRings } = managedKeyTypes(options);
  const base = managedKeyBody(options);
  const of = (...wanted: ManagedKeyType[]): fc.Arbitrary<SecretsBody> | undefined => {
    const kept = wanted.filter((type) => types.includes(type));
    if (kept.length === 0) return undefined;
    const arbitraries = kept.map((type) => managedKeyBody({ ...options, type, pkcs11Libraries: libraries, keyRings }));
    return arbitraries.length === 1 ? arbitraries[0] : fc.oneof(...arbitraries);
  };
  const typeOf = (body: SecretsBody): ManagedKeyType => body.type as ManagedKeyType;
  const bad = (message: string) => ({ status: 400, message });
  const without = (body: SecretsBody, ...fields: string[]): SecretsBody => {
    const rest = { ...body };
    for (const field of fields) delete rest[field];
    return rest;
  };
  const generators: (fc.Arbitrary<InvalidManagedKey> | undefined)[] = [
    base.chain((body) => wrongKind(fc.constant(body), managedKeyRules(body)).map((invalid) => ({ ...invalid, pathType: typeOf(body) }))),
    base.chain((body) =>
      fc.constantFrom(...REQUIRED_MANAGED_KEY_FIELDS[typeOf(body)]).map((field) => {
        const when = typeOf(body) === "kmsb" && (field === "client_id" || field === "client_secret") ? " unless a managed identity is used" : "";
        return { body: without(body, field), expected: bad(`${field} is required${when}`), why: `no ${field}` };
      }),
    ),
    of("kmsa", "kmsb", "pkcs11")?.chain((body) =>
      fc
        .integer({ min: 1, max: 8192 })
        .filter((b) => !RSA_KEY_BITS.includes(b))
        .map((keyBits) => ({ body: { ...body, key_bits: keyBits }, expected: bad(`invalid key_bits ${keyBits}: must be 2048, 3072 or 4096`), why: `key_bits ${keyBits}` })),
    ),
    of("kmsa", "kmsb")?.chain((body) =>
      fc.constantFrom("AES", "HMAC", "rsa-hsm").map((keyType) => ({
        body: { ...body, key_type: keyType },
        expected: bad(typeOf(body) === "kmsa" ? `invalid key_type "${keyType}": must be RSA or ECDSA` : `invalid key_type "${keyType}": only RSA-HSM is supported`),
        why: `key_type ${keyType}`,
      })),
    ),
    fc.tuple(base, fc.stringMatching(/^[a-z]{2,8}$/).filter((u) => !MANAGED_KEY_USAGES.includes(u))).map(([body, usage]) => ({
      body: { ...body, usages: [usage] },
      expected: bad(`invalid usage "${usage}": must be one of ${MANAGED_KEY_USAGES.join(", ")}`),
      why: `usage ${usage}`,
    })),
    fc.tuple(base, fc.constantFrom(...MANAGED_KEY_TYPES)).filter(([body, other]) => other !== typeOf(body)).map(([body, other]) => ({
      body: { ...body, type: other },
      pathType: typeOf(body),
      expected: bad(`type "${other}" does not match the path's type "${typeOf(body)}"`),
      why: "the type field is not the path's",
    })),
    of("kmsa")?.map((body) => ({ body: { ...body, allow_generate_key: true, kms_key: "app-key" }, expected: bad("kms_key must be an alias (alias/...) when allow_generate_key is true"), why: "a generated kmsa key not under an alias" })),
    of("pkcs11")?.chain((body) =>
      fc.oneof(
        fc.stringMatching(/^[a-z]{3,8}$/).filter((library) => !libraries.includes(library)).map((library) => ({ body: { ...body, library }, expected: bad(`no library stanza "${library}" in the server configuration`), why: `library ${library} is not configured` })),
        fc.constant({ body: without(body, "key_label"), expected: bad("one of key_label or key_id is required"), why: "neither key_label nor key_id" }),
        fc.constant({ body: without(body, "slot", "token_label"), expected: bad("one of slot or token_label is required"), why: "neither slot nor token_label" }),
        fc.constantFrom("1041", "0x", "0xzz", "4161").map((mechanism) => ({ body: { ...body, mechanism }, expected: bad(`invalid mechanism "${mechanism}": must be hexadecimal with a 0x prefix`), why: `mechanism ${mechanism}` })),
        fc.constantFrom("-1", "one", "0x1").map((slot) => ({ body: without({ ...body, slot }, "token_label"), expected: bad(`invalid slot "${slot}": must be a decimal number`), why: `slot ${slot}` })),
        fc.constantFrom("P224", "secp256r1", "p256").map((curve) => ({ body: { ...body, curve }, expected: bad(`invalid curve "${curve}": must be P256, P384 or P521`), why: `curve ${curve}` })),
        fc.integer({ min: -64, max: -1 }).map((maxParallel) => ({ body: { ...body, max_parallel: maxParallel }, expected: bad("max_parallel must be positive"), why: `max_parallel ${maxParallel}` })),
        fc.constant(
          PKCS11_MECHANISMS[parseMechanism(String(body.mechanism)) ?? 0] === "ec"
            ? { body: { ...without(body, "curve"), allow_generate_key: true }, expected: bad("curve is required when allow_generate_key is true"), why: "a generated EC key without a curve" }
            : { body: { ...without(body, "key_bits"), allow_generate_key: true }, expected: bad("key_bits is required when allow_generate_key is true"), why: "a generated RSA key without key_bits" },
        ),
        fc.stringMatching(/^[a-f0-9]{4,8}$/).map((keyId) => ({ body: { ...body, key_id: keyId }, expected: bad(`no key with id "${keyId}" exists in the HSM`), why: `the HSM holds no key ${keyId}` })),
      ),
    ),
    of("kmsc")?.chain((body) =>
      fc.oneof(
        fc.stringMatching(/^[a-z]{3,8}$/).map((ring) => `missing-${ring}`).map((ring) => ({
          body: { ...body, key_ring: ring },
          expected: bad(`key ring "${ring}" does not exist in project "${String(body.project)}" region "${String(body.region)}"`),
          why: `key ring ${ring} does not exist`,
        })),
        fc.constantFrom("RSA_SIGN_PSS_1024_SHA256", "EC_SIGN_P521_SHA512", "rsa_sign_pss_2048_sha256", "GOOGLE_SYMMETRIC_ENCRYPTION").map((algorithm) => ({
          body: { ...body, algorithm },
          expected: bad(`invalid algorithm "${algorithm}": must be one of ${Object.keys(KMSC_ALGORITHMS).join(", ")}`),
          why: `algorithm ${algorithm}`,
        })),
        fc.constantFrom("", "v1", "1.0", "-1").map((version) => ({ body: { ...body, crypto_key_version: version }, expected: bad(`invalid crypto_key_version "${version}"`), why: `crypto_key_version ${JSON.stringify(version)}` })),
      ),
    ),
  ];
  // A name another type holds: the body is of a type drawn here other than the stored key's.
  const existing = Object.entries(options.existing ?? {}).filter(([, type]) => types.some((drawn) => drawn !== type));
  if (existing.length > 0) {
    generators.push(
      fc.constantFrom(...existing).chain(([name, type]) =>
        fc.constantFrom(...types.filter((drawn) => drawn !== type)).chain((other) =>
          managedKeyBody({ ...options, type: other, pkcs11Libraries: libraries, keyRings }).map((body): InvalidManagedKey => ({
            body,
            name,
            expected: bad(`a managed key named "${name}" already exists with type "${type}"`),
            why: `${name} is a ${type} key`,
          })),
        ),
      ),
    );
  }
  return fc.oneof(...generators.filter((g): g is fc.Arbitrary<InvalidManagedKey> => g !== undefined));
}

// ---- MFA login enforcements ---------------------------------------------------------------------

/** What exists that a login enforcement can name (ids and accessors as the fixtures returned them). */
export interface LoginEnforcementTargets {
  /** MFA method ids (`doubles.secrets.addMfaMethod`); at least one. */
  readonly mfaMethodIds: readonly string[];
  /** Auth mount accessors (`doubles.secrets.addAuthMount`). */
  readonly authMethodAccessors?: readonly string[];
  /** Auth mount types mounted (`userpass`, ...). */
  readonly authMethodTypes?: readonly string[];
  /** Identity group ids (`doubles.secrets.addIdentityGroup`). */
  readonly identityGroupIds?: readonly string[];
  /** Identity entity ids (`doubles.secrets.addIdentityEntity`). */
  readonly identityEntityIds?: readonly string[];
}

type ListField = (typeof LOGIN_ENFORCEMENT_LISTS)[number];

const targetsOf = (targets: LoginEnforcementTargets): Readonly<Record<ListField, readonly string[]>> => ({
  mfa_method_ids: targets.mfaMethodIds,
  auth_method_accessors: targets.authMethodAccessors ?? [],
  auth_method_types: targets.authMethodTypes ?? [],
  identity_group_ids: targets.identityGroupIds ?? [],
  identity_entity_ids: targets.identityEntityIds ?? [],
});

/**
 * Valid `POST /identity/mfa/login-enforcement/:name` bodies for what exists: some of the MFA
 * methods, and some of at least one of the other lists (accessors, auth types, groups, entities),
 * each list as a JSON array or a comma-separated string.
 * @param targets - what exists (stored data): the bodies only name these.
 * @example fc.sample(loginEnforcementBody({ mfaMethodIds: [totp], authMethodAccessors: [accessor] }), 1) // [{ mfa_method_ids: [totp], auth_method_accessors: "auth_userpass_1a2b3c4d" }]
 */
export function loginEnforcementBody(targets: LoginEnforcementTargets): fc.Arbitrary<SecretsBody> {
  const all = targetsOf(targets);
  const others = LOGIN_ENFORCEMENT_LISTS.filter((f) => f !== "mfa_method_ids" && all[f].length > 0);
  if (all.mfa_method_ids.length === 0 || others.length === 0) throw new TypeError("testing: loginEnforcementBody needs an MFA method id and one of accessors, auth types, groups or entities");
  const listOf = (field: ListField) => fc.subarray([...all[field]], { minLength: 1 }).chain((items) => wireForm("string-list", items));
  return fc
    .tuple(listOf("mfa_method_ids"), fc.subarray(others, { minLength: 1 }))
    .chain(([methods, fields]) => fc.tuple(...fields.map(listOf)).map((lists) => ({ mfa_method_ids: methods, ...Object.fromEntries(fields.map((f, i) => [f, lists[i]])) })));
}

/**
 * Login enforcement bodies the service refuses, labelled with its 400: no `mfa_method_ids`, none
 * of the other four lists, and (stored data) an id, accessor or auth type that does not exist in
 * each list (`one of the provided method ids doesn't exist`, `one of the auth method accessors
 * provided is invalid`, ...).
 * @param targets - what exists.
 * @example fc.sample(invalidLoginEnforcementBody(targets), 1)[0].expected // { status: 400, message: "missing method ids" }
 */
export function invalidLoginEnforcementBody(targets: LoginEnforcementTargets): fc.Arbitrary<InvalidBody<SecretsBody>> {
  const base = loginEnforcementBody(targets);
  const all = targetsOf(targets);
  const missingMessage: Readonly<Record<ListField, string>> = {
    mfa_method_ids: "one of the provided method ids doesn't exist",
    auth_method_accessors: "one of the auth method accessors provided is invalid",
    auth_method_types: "one of the auth method types provided is invalid",
    identity_group_ids: "one of the provided group ids doesn't exist",
    identity_entity_ids: "one of the provided entity ids doesn't exist",
  };
  const bad = (message: string) => ({ status: 400, message });
  const unknown = fc.stringMatching(/^[a-z0-9]{4,12}$/);
  return fc.oneof(
    base.map((body) => {
      const rest = { ...body };
      delete rest.mfa_method_ids;
      return { body: rest, expected: bad("missing method ids"), why: "no mfa_method_ids" };
    }),
    base.map((body) => ({ body: { mfa_method_ids: body.mfa_method_ids }, expected: bad("One of auth_method_accessors, auth_method_types, identity_group_ids, identity_entity_ids must be specified"), why: "only mfa_method_ids" })),
    fc.tuple(base, fc.constantFrom(...LOGIN_ENFORCEMENT_LISTS), unknown).filter(([, field, name]) => !all[field].includes(name)).map(([body, field, name]) => {
      // Earlier lists stay valid; the refused one comes first among those the body names.
      const kept = Object.fromEntries(Object.entries(body).filter(([f]) => LOGIN_ENFORCEMENT_LISTS.indexOf(f as ListField) < LOGIN_ENFORCEMENT_LISTS.indexOf(field)));
      return { body: { ...kept, [field]: [...all[field].slice(0, 1), name] }, expected: bad(missingMessage[field]), why: `${field} names ${name}, which does not exist` };
    }),
  );
}
