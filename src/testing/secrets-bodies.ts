/**
 * Arbitraries of secrets-service request bodies, generated from the field tables the SSH engine
 * reads them with (`SSH_ROLE_FIELDS`, `SSH_CREDS_FIELDS`, `SSH_SIGN_FIELDS`, `SSH_VERIFY_FIELDS`:
 * each field's kind) and the role rules of the engine: valid bodies written in every wire form a
 * field's kind accepts (a boolean as `true`, `"t"` or `1`; a duration as seconds or `"1h"`; a map
 * as an object, a list of objects or a JSON string), and invalid ones labelled with the 400.
 *
 * Spec: secrets.md "SSH engine" (role parameters, credentials, signing, verify).
 */
import fc from "fast-check";
import { FIELD_KIND_REFUSALS, type SecretsFieldKind } from "../interceptors/secrets/request.js";
import { SSH_ROLE_FIELDS, SSH_SIGN_FIELDS, type SshFieldRule } from "../interceptors/secrets/ssh/ssh-fields.js";
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

function wrongKind(base: fc.Arbitrary<SecretsBody>, rules: readonly SshFieldRule[]): fc.Arbitrary<InvalidBody<SecretsBody>> {
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
