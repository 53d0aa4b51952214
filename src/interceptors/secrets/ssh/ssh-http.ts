/**
 * The SSH engine's HTTP face: its routes relative to the mount (`/roles/:name`, `/creds/:name`,
 * `/sign/:name`, ...) as a data table. Each handler decodes the request fields, runs the engine
 * operation on the mount and answers an envelope, 204, or (for `public_key`) `text/plain`.
 *
 * Spec: secrets.md "SSH engine" (endpoint table), "Authentication" (unauthenticated `verify` and
 * `public_key`; `create` and `update` both needed to sign).
 */
import type { Capability } from "../../../simulator/secrets/engine.js";
import { resolveNamespace } from "../../../simulator/secrets/namespaces.js";
import type { SecretsState } from "../../../simulator/secrets/state.js";
import { SECRETS } from "../../../simulator/secrets/errors.js";
import { configureCa, deleteCa, readCaPublicKey, servedPublicKey } from "../../../simulator/secrets/ssh/certificate-authority.js";
import { createCredentials, lookupRoles, verifyOtp } from "../../../simulator/secrets/ssh/ssh-credentials.js";
import { deleteKey, writeKey } from "../../../simulator/secrets/ssh/ssh-keys.js";
import { deleteRole, listRoles, readRole, writeRole } from "../../../simulator/secrets/ssh/ssh-roles.js";
import { signPublicKey, type MissingCaPolicy } from "../../../simulator/secrets/ssh/ssh-signing.js";
import type { SshMountState } from "../../../simulator/secrets/ssh/ssh-state.js";
import { deleteZeroAddressRoles, readZeroAddressRoles, writeZeroAddressRoles } from "../../../simulator/secrets/ssh/zero-address.js";
import { NO_CONTENT, dataResult, leasedResult, pathName, type EngineHttp, type EngineRoute, type EngineRouteContext } from "../engine-routes.js";
import { boolField, intField, stringField, stringListField } from "../request.js";
import { durationField, keyLengthsField, stringMapField } from "./ssh-fields.js";

type Ctx = EngineRouteContext<SshMountState>;

/** Role and sign names: a word character, then word characters, `-`, `.`, `@`, ending in a word character. */
const NAME_WITH_AT = /^\w(?:[\w.@-]*\w)?$/;
/** Credential and key names: as above without `@`. */
const NAME = /^\w(?:[\w.-]*\w)?$/;

/**
 * The capabilities signing needs: `create` and `update` when the CA key exists; without one, a
 * caller holding `create` may sign (a CA key is created with default parameters), and one holding
 * only `update` gets the "no existing key" error from the handler.
 */
function signCapabilities(ctx: Ctx): readonly Capability[] {
  const configured = ctx.read((c) => c.mount.ca !== null);
  if (configured) return ["create", "update"];
  return holdsCreate(ctx) ? ["create"] : ["update"];
}

function holdsCreate(ctx: Ctx): boolean {
  const caller = ctx.caller;
  if (caller === undefined) return false;
  if (caller.isRoot) return true;
  const mountInNamespace = ctx.sim.read<SecretsState, string>(SECRETS, (c) => resolveNamespace(c.state, undefined, ctx.mountPath)?.path ?? ctx.mountPath);
  return caller.capabilities(`${mountInNamespace}/sign/${ctx.params.name ?? ""}`).has("create");
}

/**
 * Every SSH engine route, relative to the mount.
 * @example SSH_ROUTES.map((r) => r.path) // ["/keys/:name", ..., "/sign/:name"]
 */
export const SSH_ROUTES: readonly EngineRoute<SshMountState>[] = Object.freeze([
  {
    operations: ["create-or-update"],
    path: "/keys/:name",
    handler: (ctx) => {
      const key = pathName(ctx, NAME);
      const value = stringField(ctx.body, "key");
      ctx.update((c) => writeKey(c, key, value));
      return NO_CONTENT;
    },
  },
  {
    operations: ["delete"],
    path: "/keys/:name",
    handler: (ctx) => {
      const key = pathName(ctx, NAME);
      ctx.update((c) => deleteKey(c, key));
      return NO_CONTENT;
    },
  },
  {
    operations: ["list"],
    path: "/roles",
    handler: (ctx) => dataResult(ctx.read((c) => listRoles(c.mount))),
  },
  {
    operations: ["read"],
    path: "/roles/:name",
    handler: (ctx) => {
      const role = pathName(ctx, NAME_WITH_AT);
      return dataResult(ctx.read((c) => readRole(c.mount, role)));
    },
  },
  {
    operations: ["create-or-update"],
    path: "/roles/:name",
    handler: (ctx) => {
      const role = pathName(ctx, NAME_WITH_AT);
      const b = ctx.body;
      const input = {
        keyType: stringField(b, "key_type"),
        key: stringField(b, "key"),
        adminUser: stringField(b, "admin_user"),
        defaultUser: stringField(b, "default_user"),
        cidrList: stringField(b, "cidr_list"),
        excludeCidrList: stringField(b, "exclude_cidr_list"),
        port: intField(b, "port"),
        keyBits: intField(b, "key_bits"),
        installScript: stringField(b, "install_script"),
        allowedUsers: stringField(b, "allowed_users"),
        allowedUsersTemplate: boolField(b, "allowed_users_template"),
        allowedDomains: stringField(b, "allowed_domains"),
        keyOptionSpecs: stringField(b, "key_option_specs"),
        ttlMs: durationField(b, "ttl"),
        maxTtlMs: durationField(b, "max_ttl"),
        allowedCriticalOptions: stringField(b, "allowed_critical_options"),
        allowedExtensions: stringField(b, "allowed_extensions"),
        defaultCriticalOptions: stringMapField(b, "default_critical_options"),
        defaultExtensions: stringMapField(b, "default_extensions"),
        allowUserCertificates: boolField(b, "allow_user_certificates"),
        allowHostCertificates: boolField(b, "allow_host_certificates"),
        allowBareDomains: boolField(b, "allow_bare_domains"),
        allowSubdomains: boolField(b, "allow_subdomains"),
        allowUserKeyIds: boolField(b, "allow_user_key_ids"),
        keyIdFormat: stringField(b, "key_id_format"),
        allowedUserKeyLengths: keyLengthsField(b, "allowed_user_key_lengths"),
        algorithmSigner: stringField(b, "algorithm_signer"),
        notBeforeDurationMs: durationField(b, "not_before_duration"),
      };
      ctx.update((c) => writeRole(c, role, input));
      return NO_CONTENT;
    },
  },
  {
    operations: ["delete"],
    path: "/roles/:name",
    handler: (ctx) => {
      const role = pathName(ctx, NAME_WITH_AT);
      ctx.update((c) => deleteRole(c, role));
      return NO_CONTENT;
    },
  },
  {
    operations: ["read"],
    path: "/config/zeroaddress",
    handler: (ctx) => dataResult({ roles: ctx.read((c) => readZeroAddressRoles(c.mount)) }),
  },
  {
    operations: ["create-or-update"],
    path: "/config/zeroaddress",
    handler: (ctx) => {
      const roles = stringListField(ctx.body, "roles") ?? [];
      ctx.update((c) => writeZeroAddressRoles(c, roles));
      return NO_CONTENT;
    },
  },
  {
    operations: ["delete"],
    path: "/config/zeroaddress",
    handler: (ctx) => {
      ctx.update((c) => deleteZeroAddressRoles(c));
      return NO_CONTENT;
    },
  },
  {
    operations: ["create-or-update"],
    path: "/creds/:name",
    handler: (ctx) => {
      const role = pathName(ctx, NAME);
      const input = { username: stringField(ctx.body, "username"), ip: stringField(ctx.body, "ip") };
      const credentials = ctx.update((c) => createCredentials(c, role, input));
      if (credentials.keyType === "dynamic") return dataResult(credentials.data);
      return leasedResult(credentials.data, credentials.lease);
    },
  },
  {
    operations: ["create-or-update"],
    path: "/lookup",
    handler: (ctx) => {
      const ip = stringField(ctx.body, "ip");
      return dataResult({ roles: ctx.read((c) => lookupRoles(c.mount, ip)) });
    },
  },
  {
    operations: ["create-or-update"],
    path: "/verify",
    unauthenticated: true,
    handler: (ctx) => {
      const otp = stringField(ctx.body, "otp");
      return dataResult({ ...ctx.update((c) => verifyOtp(c, otp)) });
    },
  },
  {
    operations: ["create-or-update"],
    path: "/config/ca",
    handler: (ctx) => {
      const b = ctx.body;
      const input = {
        privateKey: stringField(b, "private_key"),
        publicKey: stringField(b, "public_key"),
        generateSigningKey: boolField(b, "generate_signing_key"),
        keyType: stringField(b, "key_type"),
        keyBits: intField(b, "key_bits"),
      };
      const result = ctx.update((c) => configureCa(c, input));
      return result.generated ? dataResult({ public_key: result.publicKey }) : NO_CONTENT;
    },
  },
  {
    operations: ["read"],
    path: "/config/ca",
    handler: (ctx) => dataResult({ public_key: ctx.read((c) => readCaPublicKey(c.mount)) }),
  },
  {
    operations: ["delete"],
    path: "/config/ca",
    handler: (ctx) => {
      ctx.update((c) => deleteCa(c));
      return NO_CONTENT;
    },
  },
  {
    operations: ["read"],
    path: "/public_key",
    unauthenticated: true,
    handler: (ctx) => ({
      kind: "raw",
      response: { status: 200, headers: { "content-type": "text/plain" }, body: ctx.read((c) => servedPublicKey(c.mount)) },
    }),
  },
  {
    operations: ["create-or-update"],
    path: "/sign/:name",
    capabilities: signCapabilities,
    exists: (ctx) => ctx.read((c) => c.mount.ca !== null),
    handler: (ctx) => {
      const role = pathName(ctx, NAME_WITH_AT);
      const b = ctx.body;
      const input = {
        publicKey: stringField(b, "public_key"),
        ttlMs: durationField(b, "ttl"),
        validPrincipals: stringField(b, "valid_principals"),
        certType: stringField(b, "cert_type"),
        keyId: stringField(b, "key_id"),
        criticalOptions: stringMapField(b, "critical_options"),
        extensions: stringMapField(b, "extensions"),
      };
      const missingCa: MissingCaPolicy = holdsCreate(ctx) ? "create-default" : "refuse";
      return dataResult({ ...ctx.update((c) => signPublicKey(c, role, input, missingCa)) });
    },
  },
]);

/**
 * The `ssh` engine type's HTTP face, registered in `src/interceptors/secrets/engines.ts`.
 * @example SECRETS_ENGINE_HTTP.ssh === sshHttp
 */
export const sshHttp: EngineHttp<SshMountState> = Object.freeze({ type: "ssh", routes: SSH_ROUTES });
