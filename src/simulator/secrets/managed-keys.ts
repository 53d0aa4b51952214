/**
 * Managed keys: configuration of keys held in a simulated external backend (HSM via `pkcs11`, or
 * the cloud key services `kmsa`, `kmsb`, `kmsc`), with each type's parameters and required-field
 * rules, the masked read form, delete refused while a mount lists the key, and test-sign, which
 * signs and verifies random data with a key the backend holds (generated when allowed and absent).
 *
 * Spec: secrets.md "Managed keys (root namespace only)", "Managed key (read form)".
 */
import { clonePlain } from "../kernel/clone.js";
import type { OperationContext, ReadContext } from "../kernel/simulator.js";
import { badRequest, missing, secretsError } from "./errors.js";
import { EC_CURVES, HASH_ALGORITHMS, generateKey, signAndVerify, type KeySpec } from "./managed-key-crypto.js";
import {
  MANAGED_KEY_TYPES,
  MANAGED_KEY_USAGES,
  type BackendKey,
  type ManagedKeyParam,
  type ManagedKeyRecord,
  type ManagedKeyType,
} from "./managed-key-types.js";
import type { SecretsState } from "./state.js";

/** Field kinds of the write parameters (how the HTTP layer reads them). */
export type FieldKind = "string" | "int" | "bool" | "list";

/** Parameters every type takes. */
export const GENERIC_FIELDS: Readonly<Record<string, FieldKind>> = Object.freeze({
  type: "string",
  allow_generate_key: "bool",
  allow_replace_key: "bool",
  allow_store_key: "bool",
  any_mount: "bool",
  usages: "list",
});

/** Each type's own parameters. */
export const TYPE_FIELDS: Readonly<Record<ManagedKeyType, Readonly<Record<string, FieldKind>>>> = Object.freeze({
  pkcs11: {
    library: "string",
    key_label: "string",
    key_id: "string",
    mechanism: "string",
    pin: "string",
    slot: "string",
    token_label: "string",
    curve: "string",
    key_bits: "int",
    force_rw_session: "bool",
    max_parallel: "int",
  },
  kmsa: { access_key: "string", secret_key: "string", curve: "string", endpoint: "string", key_bits: "int", key_type: "string", kms_key: "string", region: "string" },
  kmsb: {
    tenant_id: "string",
    client_id: "string",
    client_secret: "string",
    environment: "string",
    vault_name: "string",
    key_name: "string",
    resource: "string",
    key_bits: "int",
    key_type: "string",
  },
  kmsc: { credentials: "string", crypto_key: "string", crypto_key_version: "string", key_ring: "string", project: "string", region: "string", algorithm: "string" },
});

/** Values of a write, already read by their {@link FieldKind}; absent fields were not sent. */
export type ManagedKeyValues = Readonly<Record<string, ManagedKeyParam | readonly string[]>>;

/**
 * The spec's `kmsc` algorithms: the key each one needs, whether it signs with PSS (`null` for
 * EC) and the hash it fixes (test-sign refuses another `use_pss` or `hash_algorithm`).
 * @example KMSC_ALGORITHMS.RSA_SIGN_PSS_4096_SHA512 // { spec: { algorithm: "rsa", bits: 4096 }, pss: true, hash: "sha2-512" }
 */
export const KMSC_ALGORITHMS: Readonly<Record<string, { readonly spec: KeySpec; readonly pss: boolean | null; readonly hash: string }>> = Object.freeze({
  EC_SIGN_P256_SHA256: { spec: { algorithm: "ec", curve: "P256" }, pss: null, hash: "sha2-256" },
  EC_SIGN_P384_SHA384: { spec: { algorithm: "ec", curve: "P384" }, pss: null, hash: "sha2-384" },
  RSA_SIGN_PSS_2048_SHA256: { spec: { algorithm: "rsa", bits: 2048 }, pss: true, hash: "sha2-256" },
  RSA_SIGN_PSS_3072_SHA256: { spec: { algorithm: "rsa", bits: 3072 }, pss: true, hash: "sha2-256" },
  RSA_SIGN_PSS_4096_SHA256: { spec: { algorithm: "rsa", bits: 4096 }, pss: true, hash: "sha2-256" },
  RSA_SIGN_PSS_4096_SHA512: { spec: { algorithm: "rsa", bits: 4096 }, pss: true, hash: "sha2-512" },
  RSA_SIGN_PKCS1_2048_SHA256: { spec: { algorithm: "rsa", bits: 2048 }, pss: false, hash: "sha2-256" },
  RSA_SIGN_PKCS1_3072_SHA256: { spec: { algorithm: "rsa", bits: 3072 }, pss: false, hash: "sha2-256" },
  RSA_SIGN_PKCS1_4096_SHA256: { spec: { algorithm: "rsa", bits: 4096 }, pss: false, hash: "sha2-256" },
  RSA_SIGN_PKCS1_4096_SHA512: { spec: { algorithm: "rsa", bits: 4096 }, pss: false, hash: "sha2-512" },
});

/**
 * `pkcs11` mechanisms this fake supports for key generation (the real list is not shown in the
 * spec): RSA PKCS#1 `0x0001`, RSA OAEP `0x0009`, RSA PSS `0x000D`, ECDSA `0x1041`. Others are
 * accepted and usable with a key the HSM already holds.
 * @example PKCS11_MECHANISMS[0x1041] // "ec" (mechanism "0x1041")
 */
export const PKCS11_MECHANISMS: Readonly<Record<number, "rsa" | "ec">> = Object.freeze({ 0x0001: "rsa", 0x0009: "rsa", 0x000d: "rsa", 0x1041: "ec" });

/**
 * RSA sizes (`key_bits`) the backends take and generate.
 * @example RSA_KEY_BITS.includes(3072) // true
 */
export const RSA_KEY_BITS: readonly number[] = Object.freeze([2048, 3072, 4096]);

const OP_WRITE = "write managed key";

function isType(value: string): value is ManagedKeyType {
  return (MANAGED_KEY_TYPES as readonly string[]).includes(value);
}

/** The type from a path segment, or 400. */
export function managedKeyType(value: string, operation: string): ManagedKeyType {
  if (!isType(value)) throw badRequest(operation, `unsupported managed key type "${value}"`);
  return value;
}

function str(params: Record<string, ManagedKeyParam>, field: string): string {
  const value = params[field];
  return value === undefined ? "" : String(value);
}

function num(params: Record<string, ManagedKeyParam>, field: string): number {
  const value = params[field];
  return typeof value === "number" ? value : 0;
}

function bool(params: Record<string, ManagedKeyParam>, field: string): boolean {
  return params[field] === true;
}

function requireField(params: Record<string, ManagedKeyParam>, field: string, when = ""): void {
  if (str(params, field) === "") throw badRequest(OP_WRITE, `${field} is required${when}`);
}

function checkKeyBits(params: Record<string, ManagedKeyParam>): void {
  const bits = num(params, "key_bits");
  if (bits !== 0 && !RSA_KEY_BITS.includes(bits)) throw badRequest(OP_WRITE, `invalid key_bits ${bits}: must be 2048, 3072 or 4096`);
}

function checkCurve(params: Record<string, ManagedKeyParam>): void {
  const curve = str(params, "curve");
  if (curve !== "" && EC_CURVES[curve] === undefined) throw badRequest(OP_WRITE, `invalid curve "${curve}": must be P256, P384 or P521`);
}

/** Parses a `pkcs11` mechanism (`0x` hexadecimal). */
export function parseMechanism(text: string): number | undefined {
  return /^0[xX][0-9a-fA-F]+$/.test(text) ? Number.parseInt(text.slice(2), 16) : undefined;
}

function validate(state: SecretsState, type: ManagedKeyType, record: ManagedKeyRecord): void {
  const p = record.params;
  const generate = record.allowGenerateKey;
  for (const usage of record.usages) {
    if (!MANAGED_KEY_USAGES.includes(usage)) throw badRequest(OP_WRITE, `invalid usage "${usage}": must be one of ${MANAGED_KEY_USAGES.join(", ")}`);
  }
  switch (type) {
    case "pkcs11": {
      requireField(p, "library");
      if (!state.backends.pkcs11Libraries.includes(str(p, "library"))) {
        throw badRequest(OP_WRITE, `no library stanza "${str(p, "library")}" in the server configuration`);
      }
      if (str(p, "key_label") === "" && str(p, "key_id") === "") throw badRequest(OP_WRITE, "one of key_label or key_id is required");
      requireField(p, "mechanism");
      const mechanism = parseMechanism(str(p, "mechanism"));
      if (mechanism === undefined) throw badRequest(OP_WRITE, `invalid mechanism "${str(p, "mechanism")}": must be hexadecimal with a 0x prefix`);
      requireField(p, "pin");
      if (str(p, "slot") === "" && str(p, "token_label") === "") throw badRequest(OP_WRITE, "one of slot or token_label is required");
      if (str(p, "slot") !== "" && !/^\d+$/.test(str(p, "slot"))) throw badRequest(OP_WRITE, `invalid slot "${str(p, "slot")}": must be a decimal number`);
      checkCurve(p);
      checkKeyBits(p);
      if (num(p, "max_parallel") < 0) throw badRequest(OP_WRITE, "max_parallel must be positive");
      if (generate) {
        const kind = PKCS11_MECHANISMS[mechanism];
        if (kind === "ec" && str(p, "curve") === "") throw badRequest(OP_WRITE, "curve is required when allow_generate_key is true");
        if (kind !== "ec" && num(p, "key_bits") === 0) throw badRequest(OP_WRITE, "key_bits is required when allow_generate_key is true");
      }
      if (str(p, "key_id") !== "" && state.backends.keys[backendRef(record)] === undefined) {
        throw badRequest(OP_WRITE, `no key with id "${str(p, "key_id")}" exists in the HSM`);
      }
      return;
    }
    case "kmsa": {
      const env = state.backends.environment;
      if (str(p, "access_key") === "" && env.kmsaAccessKey === undefined) throw badRequest(OP_WRITE, "access_key is required");
      if (str(p, "secret_key") === "" && env.kmsaSecretKey === undefined) throw badRequest(OP_WRITE, "secret_key is required");
      requireField(p, "key_type");
      const keyType = str(p, "key_type").toUpperCase();
      if (keyType !== "RSA" && keyType !== "ECDSA") throw badRequest(OP_WRITE, `invalid key_type "${str(p, "key_type")}": must be RSA or ECDSA`);
      requireField(p, "kms_key");
      checkCurve(p);
      checkKeyBits(p);
      if (keyType === "RSA" && num(p, "key_bits") === 0) throw badRequest(OP_WRITE, "key_bits is required when key_type is RSA");
      if (keyType === "ECDSA" && generate && str(p, "curve") === "") throw badRequest(OP_WRITE, "curve is required when allow_generate_key is true and key_type is ECDSA");
      if (generate && !str(p, "kms_key").startsWith("alias/")) throw badRequest(OP_WRITE, "kms_key must be an alias (alias/...) when allow_generate_key is true");
      return;
    }
    case "kmsb": {
      requireField(p, "tenant_id");
      if (!state.backends.environment.kmsbManagedIdentity) {
        requireField(p, "client_id", " unless a managed identity is used");
        requireField(p, "client_secret", " unless a managed identity is used");
      }
      requireField(p, "vault_name");
      requireField(p, "key_name");
      requireField(p, "key_type");
      if (str(p, "key_type") !== "RSA-HSM") throw badRequest(OP_WRITE, `invalid key_type "${str(p, "key_type")}": only RSA-HSM is supported`);
      checkKeyBits(p);
      if (generate && num(p, "key_bits") === 0) throw badRequest(OP_WRITE, "key_bits is required when allow_generate_key is true and key_type is RSA-HSM");
      return;
    }
    case "kmsc": {
      if (str(p, "credentials") === "" && state.backends.environment.kmscCredentials === undefined) throw badRequest(OP_WRITE, "credentials is required");
      requireField(p, "crypto_key");
      requireField(p, "key_ring");
      requireField(p, "project");
      requireField(p, "region");
      requireField(p, "algorithm");
      if (KMSC_ALGORITHMS[str(p, "algorithm")] === undefined) {
        throw badRequest(OP_WRITE, `invalid algorithm "${str(p, "algorithm")}": must be one of ${Object.keys(KMSC_ALGORITHMS).join(", ")}`);
      }
      if (!/^\d+$/.test(str(p, "crypto_key_version"))) throw badRequest(OP_WRITE, `invalid crypto_key_version "${str(p, "crypto_key_version")}"`);
      if (!state.backends.keyRings.includes(keyRingRef(p))) throw badRequest(OP_WRITE, `key ring "${str(p, "key_ring")}" does not exist in project "${str(p, "project")}" region "${str(p, "region")}"`);
      return;
    }
  }
}

function keyRingRef(p: Record<string, ManagedKeyParam>): string {
  return `${str(p, "project")}/${str(p, "region")}/${str(p, "key_ring")}`;
}

/** Where the backend keeps this key (how fixtures and generated keys are found). */
export function backendRef(record: Pick<ManagedKeyRecord, "type" | "params">): string {
  const p = record.params;
  switch (record.type) {
    case "pkcs11": {
      const token = str(p, "slot") !== "" ? `slot=${str(p, "slot")}` : `token=${str(p, "token_label")}`;
      const key = str(p, "key_id") !== "" ? `id=${str(p, "key_id")}` : `label=${str(p, "key_label")}`;
      return `pkcs11:${str(p, "library")}:${token}:${key}`;
    }
    case "kmsa":
      return `kmsa:${str(p, "region")}:${str(p, "kms_key")}`;
    case "kmsb":
      return `kmsb:${str(p, "vault_name")}:${str(p, "key_name")}`;
    case "kmsc":
      return `kmsc:${keyRingRef(p)}:${str(p, "crypto_key")}:${str(p, "crypto_key_version")}`;
  }
}

const DEFAULTS: Readonly<Record<ManagedKeyType, Readonly<Record<string, ManagedKeyParam>>>> = Object.freeze({
  pkcs11: { force_rw_session: false, max_parallel: 1, key_bits: 0, curve: "" },
  kmsa: { endpoint: "", curve: "", key_bits: 0 },
  kmsb: { environment: "AZUREPUBLICCLOUD", resource: "vault.azure.net", key_bits: 0 },
  kmsc: { crypto_key_version: "1" },
});

/**
 * Creates or updates the managed key `name` of `type`: fields sent replace stored ones, others
 * stay. Names are lowercase and unique across types.
 * @throws {DomainError} 400 for an unknown or other-type name, a missing required field, a bad value.
 */
export function writeManagedKey(ctx: OperationContext<SecretsState>, type: ManagedKeyType, name: string, values: ManagedKeyValues): ManagedKeyRecord {
  if (name === "" || name !== name.toLowerCase()) throw badRequest(OP_WRITE, `managed key name "${name}" must be lowercase`);
  const bodyType = values.type;
  if (bodyType !== undefined && bodyType !== "" && bodyType !== type) {
    throw badRequest(OP_WRITE, `type "${String(bodyType)}" does not match the path's type "${type}"`);
  }
  const existing = ctx.state.managedKeys[name];
  if (existing !== undefined && existing.type !== type) throw badRequest(OP_WRITE, `a managed key named "${name}" already exists with type "${existing.type}"`);
  const record: ManagedKeyRecord = existing
    ? clonePlain(existing)
    : { name, type, uuid: ctx.ids.uuid(), allowGenerateKey: false, allowReplaceKey: false, allowStoreKey: false, anyMount: false, usages: ["sign", "verify"], params: { ...DEFAULTS[type] } };
  const flag = (field: string): boolean | undefined => (typeof values[field] === "boolean" ? (values[field] as boolean) : undefined);
  record.allowGenerateKey = flag("allow_generate_key") ?? record.allowGenerateKey;
  record.allowReplaceKey = flag("allow_replace_key") ?? record.allowReplaceKey;
  record.allowStoreKey = flag("allow_store_key") ?? record.allowStoreKey;
  record.anyMount = flag("any_mount") ?? record.anyMount;
  const usages = values.usages;
  if (Array.isArray(usages)) record.usages = usages.length === 0 ? ["sign", "verify"] : [...new Set(usages as string[])];
  for (const field of Object.keys(TYPE_FIELDS[type])) {
    const value = values[field];
    if (value === undefined || Array.isArray(value)) continue;
    record.params[field] = value as ManagedKeyParam;
  }
  // kmsa: a region left out (or empty) comes from the server environment, then `us-east-1` (spec).
  if (type === "kmsa" && str(record.params, "region") === "") record.params.region = ctx.state.backends.environment.kmsaRegion ?? "us-east-1";
  validate(ctx.state, type, record);
  ctx.state.managedKeys[name] = record;
  return record;
}

/** A managed key of `type`, or 404 (empty `errors`). */
export function findManagedKey(state: SecretsState, type: ManagedKeyType, name: string, operation: string): ManagedKeyRecord {
  const record = state.managedKeys[name];
  if (record === undefined || record.type !== type) throw missing(operation, name);
  return record;
}

/** The read form (wire names): `pin` reads `redacted`; `secret_key` and `client_secret` are never returned. */
export function managedKeyView(record: ManagedKeyRecord): Record<string, unknown> {
  const p = record.params;
  const common = {
    UUID: record.uuid,
    allow_generate_key: record.allowGenerateKey,
    allow_replace_key: record.allowReplaceKey,
    allow_store_key: record.allowStoreKey,
    any_mount: record.anyMount,
    name: record.name,
    type: record.type,
  };
  switch (record.type) {
    case "pkcs11":
      return {
        ...common,
        curve: str(p, "curve"),
        force_rw_session: bool(p, "force_rw_session"),
        key_bits: num(p, "key_bits"),
        ...(str(p, "key_id") !== "" ? { key_id: str(p, "key_id") } : {}),
        key_label: str(p, "key_label"),
        library: str(p, "library"),
        mechanism: parseMechanism(str(p, "mechanism")) ?? 0,
        pin: "redacted",
        slot: str(p, "slot") === "" ? 0 : Number(str(p, "slot")),
        token_label: str(p, "token_label"),
      };
    case "kmsa":
      return {
        ...common,
        access_key: str(p, "access_key"),
        curve: str(p, "curve"),
        endpoint: str(p, "endpoint"),
        key_bits: num(p, "key_bits"),
        key_type: str(p, "key_type"),
        kms_key: str(p, "kms_key"),
        region: str(p, "region"),
      };
    case "kmsb":
      return {
        ...common,
        client_id: str(p, "client_id"),
        environment: str(p, "environment"),
        key_bits: num(p, "key_bits"),
        key_name: str(p, "key_name"),
        key_type: str(p, "key_type"),
        resource: str(p, "resource"),
        tenant_id: str(p, "tenant_id"),
        vault_name: str(p, "vault_name"),
      };
    case "kmsc":
      return {
        ...common,
        algorithm: str(p, "algorithm"),
        credentials: str(p, "credentials"),
        crypto_key: str(p, "crypto_key"),
        crypto_key_version: str(p, "crypto_key_version"),
        key_ring: str(p, "key_ring"),
        project: str(p, "project"),
        region: str(p, "region"),
      };
  }
}

/** Names of the managed keys of `type`, sorted. */
export function listManagedKeys(ctx: ReadContext<SecretsState>, type: ManagedKeyType): string[] {
  return Object.values(ctx.state.managedKeys)
    .filter((k) => k.type === type)
    .map((k) => k.name)
    .sort();
}

/**
 * Deletes a managed key unless a mount lists it in `allowed_managed_keys` (refused with 400 naming
 * the mounts). Deleting a missing key succeeds. The backend keeps its key material.
 */
export function deleteManagedKey(ctx: OperationContext<SecretsState>, type: ManagedKeyType, name: string): void {
  const record = ctx.state.managedKeys[name];
  if (record === undefined || record.type !== type) return;
  const users = Object.values(ctx.state.mounts)
    .filter((m) => m.allowedManagedKeys.includes(name))
    .map((m) => `${m.path}/`)
    .sort();
  if (users.length > 0) {
    throw badRequest("delete managed key", `managed key "${name}" is in use by mount(s) ${users.join(", ")}: remove it from their allowed_managed_keys first`);
  }
  delete ctx.state.managedKeys[name];
}

/** What a key of this configuration is, for generation. */
function keySpecOf(record: ManagedKeyRecord): KeySpec | undefined {
  const p = record.params;
  switch (record.type) {
    case "pkcs11": {
      const kind = PKCS11_MECHANISMS[parseMechanism(str(p, "mechanism")) ?? -1];
      if (kind === "ec") return { algorithm: "ec", curve: str(p, "curve") };
      if (kind === "rsa") return { algorithm: "rsa", bits: num(p, "key_bits") };
      return undefined;
    }
    case "kmsa":
      return str(p, "key_type").toUpperCase() === "ECDSA" ? { algorithm: "ec", curve: str(p, "curve") || "P256" } : { algorithm: "rsa", bits: num(p, "key_bits") };
    case "kmsb":
      return { algorithm: "rsa", bits: num(p, "key_bits") };
    case "kmsc":
      return KMSC_ALGORITHMS[str(p, "algorithm")]?.spec;
  }
}

/** Hashes each cloud key service signs with (RSA keys; EC keys are tied to their curve's hash). */
const CLOUD_RSA_HASHES = ["sha2-256", "sha2-384", "sha2-512"];
const CURVE_HASH: Readonly<Record<string, string>> = Object.freeze({ P256: "sha2-256", P384: "sha2-384", P521: "sha2-512" });

/** Test-sign options (wire names already read). */
export interface TestSignInput {
  readonly usePss: boolean;
  readonly hashAlgorithm: string;
}

/**
 * Test-sign: signs random data (from the seeded id source) with the backend's key and verifies it.
 * Generates the key first when the backend holds none and generation is allowed.
 * @returns the backend key used.
 * @throws {DomainError} 400 for a bad `hash_algorithm`, a combination the backend cannot sign, a
 * missing key that may not be generated, a missing key ring or a key without sign/verify usage;
 * 404 for an unknown managed key.
 */
export function testSign(ctx: OperationContext<SecretsState>, type: ManagedKeyType, name: string, input: TestSignInput): BackendKey {
  const operation = "test-sign managed key";
  if (HASH_ALGORITHMS[input.hashAlgorithm] === undefined) {
    throw badRequest(operation, `unsupported hash_algorithm "${input.hashAlgorithm}": must be one of ${Object.keys(HASH_ALGORITHMS).join(", ")}`);
  }
  const record = findManagedKey(ctx.state, type, name, operation);
  if (!record.usages.includes("sign") || !record.usages.includes("verify")) {
    throw badRequest(operation, `managed key "${name}" does not allow the sign and verify usages`);
  }
  if (record.type === "kmsc" && !ctx.state.backends.keyRings.includes(keyRingRef(record.params))) {
    throw badRequest(operation, `key ring "${str(record.params, "key_ring")}" does not exist`);
  }
  const ref = backendRef(record);
  let key = ctx.state.backends.keys[ref];
  if (key === undefined) {
    if (!record.allowGenerateKey) throw badRequest(operation, `no key found in the ${record.type} backend for managed key "${name}" and allow_generate_key is false`);
    const spec = keySpecOf(record);
    if (spec === undefined) throw badRequest(operation, `cannot generate a key for mechanism ${str(record.params, "mechanism")}: unsupported mechanism`);
    if (spec.algorithm === "rsa" && !RSA_KEY_BITS.includes(spec.bits)) throw badRequest(operation, "key_bits is required to generate an RSA key");
    key = { ref, material: generateKey(ctx.ids.bytes(32), spec), createdAt: ctx.now, origin: "generated" };
    ctx.state.backends.keys[ref] = key;
  }
  checkSignable(record, key, input, operation);
  const data = ctx.ids.bytes(32);
  if (!signAndVerify(key.material, data, input)) {
    throw secretsError("internal", operation, `signature verification failed for managed key "${name}"`);
  }
  return key;
}

function checkSignable(record: ManagedKeyRecord, key: BackendKey, input: TestSignInput, operation: string): void {
  const material = key.material;
  const refuse = (why: string): never => {
    throw badRequest(operation, `the ${record.type} backend cannot sign with ${why}`);
  };
  if (record.type === "kmsc") {
    const algorithm = KMSC_ALGORITHMS[str(record.params, "algorithm")];
    if (algorithm !== undefined) {
      if (input.hashAlgorithm !== algorithm.hash) refuse(`hash_algorithm ${input.hashAlgorithm}: algorithm ${str(record.params, "algorithm")} uses ${algorithm.hash}`);
      if (algorithm.pss !== null && algorithm.pss !== input.usePss) refuse(`use_pss=${String(input.usePss)}: algorithm ${str(record.params, "algorithm")} ${algorithm.pss ? "uses" : "does not use"} PSS`);
    }
    return;
  }
  if (record.type === "kmsa" || record.type === "kmsb") {
    if (material.algorithm === "rsa" && !CLOUD_RSA_HASHES.includes(input.hashAlgorithm)) refuse(`hash_algorithm ${input.hashAlgorithm} (use sha2-256, sha2-384 or sha2-512)`);
    if (material.algorithm === "ec" && CURVE_HASH[material.curve ?? ""] !== input.hashAlgorithm) {
      refuse(`hash_algorithm ${input.hashAlgorithm} on a ${material.curve ?? ""} key (use ${CURVE_HASH[material.curve ?? ""] ?? "sha2-256"})`);
    }
  }
}
