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
import { deleteRole, listRoles, readRole, writeRole, type SshRoleInput } from "../../../simulator/secrets/ssh/ssh-roles.js";
import { signPublicKey, type MissingCaPolicy, type SignInput } from "../../../simulator/secrets/ssh/ssh-signing.js";
import type { SshMountState } from "../../../simulator/secrets/ssh/ssh-state.js";
import { deleteZeroAddressRoles, readZeroAddressRoles, writeZeroAddressRoles } from "../../../simulator/secrets/ssh/zero-address.js";
import { NO_CONTENT, dataResult, leasedResult, pathName, type EngineHttp, type EngineRoute, type EngineRouteContext } from "../engine-routes.js";
import { boolField, intField, stringField, stringListField } from "../request.js";
import { readFields, SSH_CREDS_FIELDS, SSH_ROLE_FIELDS, SSH_SIGN_FIELDS, SSH_VERIFY_FIELDS } from "./ssh-fields.js";

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
      const input = readFields(ctx.body, SSH_ROLE_FIELDS) as SshRoleInput;
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
      const input = readFields(ctx.body, SSH_CREDS_FIELDS) as { username?: string; ip?: string };
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
      const { otp } = readFields(ctx.body, SSH_VERIFY_FIELDS) as { otp?: string };
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
      const input = readFields(ctx.body, SSH_SIGN_FIELDS) as SignInput;
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
