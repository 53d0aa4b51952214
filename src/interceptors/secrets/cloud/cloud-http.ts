/**
 * The cloud-account engine's HTTP face: its routes relative to the mount (`/config/root`,
 * `/roles/:name`, `/creds/:name`, `/static-creds/:name`, ...) as a data table. Each handler decodes
 * the request fields, runs the engine operation on the mount, and answers an envelope, 204, or a
 * 404 with an empty `errors` list for something missing.
 *
 * Every write needs the `update` capability: the real engine has no existence checks, so its
 * writes are always updates to the policy engine.
 *
 * Spec: secrets.md "Cloud-account engine" (endpoint table, read forms).
 */
import type { Capability } from "../../../simulator/secrets/engine.js";
import { cloudMissing } from "../../../simulator/secrets/cloud/cloud-errors.js";
import { issueCredentials } from "../../../simulator/secrets/cloud/credentials.js";
import { formatGoDuration } from "../../../simulator/kernel/go-duration.js";
import { readLeaseConfig, readRootConfig, rotateRoot, writeLeaseConfig, writeRootConfig } from "../../../simulator/secrets/cloud/root-config.js";
import { deleteRole, listRoles, readRole, writeRole, type RoleInput } from "../../../simulator/secrets/cloud/roles.js";
import type { CloudMountState, CloudRole } from "../../../simulator/secrets/cloud/state.js";
import { deleteStaticRole, readStaticCredentials, readStaticRole, writeStaticRole, type StaticRoleInput } from "../../../simulator/secrets/cloud/static-roles.js";
import { NO_CONTENT, dataResult, leasedResult, pathName, type EngineHttp, type EngineResult, type EngineRoute, type EngineRouteContext } from "../engine-routes.js";
import { CLOUD_ROLE_FIELDS, CLOUD_STATIC_ROLE_FIELDS, durationSecondsParam, intParam, readCloudFields, stringParam } from "./cloud-fields.js";

type Ctx = EngineRouteContext<CloudMountState>;

/** Role names: a word character, then word characters, `-`, `.`, `@`, ending in a word character. */
const NAME = /^\w(?:[\w.@-]*\w)?$/;

const UPDATE: () => readonly Capability[] = () => ["update"];

/**
 * The read form of a role: the spec's fields plus the real service's other stored fields.
 * @example roleReadForm(role).credential_types // ["iam_user"]
 */
export function roleReadForm(role: CloudRole): Record<string, unknown> {
  const form: Record<string, unknown> = {
    credential_type: role.credentialTypes.join(","),
    credential_types: [...role.credentialTypes],
    policy_arns: [...role.policyArns],
    role_arns: [...role.roleArns],
    policy_document: role.policyDocument,
    iam_groups: [...role.iamGroups],
    iam_tags: { ...role.iamTags },
    default_sts_ttl: role.defaultStsTtl,
    max_sts_ttl: role.maxStsTtl,
    user_path: role.userPath,
    permissions_boundary_arn: role.permissionsBoundaryArn,
  };
  if (role.invalidData !== "") form.invalid_data = role.invalidData;
  return form;
}

function credentialsHandler(path: "creds" | "sts"): (ctx: Ctx) => EngineResult {
  return (ctx) => {
    const roleName = pathName(ctx, NAME);
    const roleArn = stringParam(ctx.body, "role_arn");
    const roleSessionName = stringParam(ctx.body, "role_session_name");
    const ttlSeconds = durationSecondsParam(ctx.body, "ttl");
    const issued = ctx.update((c) =>
      issueCredentials(c, {
        path,
        roleName,
        ...(roleArn === undefined ? {} : { roleArn }),
        ...(roleSessionName === undefined ? {} : { roleSessionName }),
        ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
      }),
    );
    return leasedResult({ access_key: issued.accessKey, secret_key: issued.secretKey, security_token: issued.securityToken, arn: issued.arn }, issued.lease);
  };
}

function staticRoleForm(role: { name: string; username: string; rotationPeriod: number }): Record<string, unknown> {
  return { name: role.name, username: role.username, rotation_period: formatGoDuration(role.rotationPeriod * 1000) };
}

/**
 * Every cloud engine route, relative to the mount (spec: secrets.md "Cloud-account engine"
 * endpoint table): operation(s), path, required capabilities when not the default, handler.
 * @example CLOUD_ROUTES.map((r) => `${r.operations.join("|")} ${r.path}`) // ["read /config/root", ...]
 */
export const CLOUD_ROUTES: readonly EngineRoute<CloudMountState>[] = Object.freeze([
  {
    operations: ["read"],
    path: "/config/root",
    handler: (ctx) => {
      const config = ctx.read((c) => readRootConfig(c.mount));
      if (config === undefined) throw cloudMissing("read root configuration");
      return dataResult({ access_key: config.accessKey, region: config.region, iam_endpoint: config.iamEndpoint, sts_endpoint: config.stsEndpoint, max_retries: config.maxRetries });
    },
  },
  {
    operations: ["create-or-update"],
    path: "/config/root",
    capabilities: UPDATE,
    handler: (ctx) => {
      const input = {
        accessKey: stringParam(ctx.body, "access_key"),
        secretKey: stringParam(ctx.body, "secret_key"),
        region: stringParam(ctx.body, "region"),
        iamEndpoint: stringParam(ctx.body, "iam_endpoint"),
        stsEndpoint: stringParam(ctx.body, "sts_endpoint"),
        maxRetries: intParam(ctx.body, "max_retries"),
        usernameTemplate: stringParam(ctx.body, "username_template"),
      };
      ctx.update((c) => writeRootConfig(c, input));
      return NO_CONTENT;
    },
  },
  {
    operations: ["create-or-update"],
    path: "/config/rotate-root",
    capabilities: UPDATE,
    handler: (ctx) => {
      const { accessKey } = ctx.update((c) => rotateRoot(c));
      return dataResult({ access_key: accessKey });
    },
  },
  {
    operations: ["read"],
    path: "/config/lease",
    handler: (ctx) => {
      const lease = ctx.read((c) => readLeaseConfig(c.mount));
      if (lease === undefined) throw cloudMissing("read lease configuration");
      return dataResult({ lease: lease.lease, lease_max: lease.leaseMax });
    },
  },
  {
    operations: ["create-or-update"],
    path: "/config/lease",
    capabilities: UPDATE,
    handler: (ctx) => {
      const input = { lease: stringParam(ctx.body, "lease"), leaseMax: stringParam(ctx.body, "lease_max") };
      ctx.update((c) => writeLeaseConfig(c, input));
      return NO_CONTENT;
    },
  },
  {
    operations: ["list"],
    path: "/roles",
    handler: (ctx) => dataResult({ keys: ctx.read((c) => listRoles(c.mount)) }),
  },
  {
    operations: ["read"],
    path: "/roles/:name",
    handler: (ctx) => {
      const name = pathName(ctx, NAME);
      const role = ctx.read((c) => readRole(c.mount, name));
      if (role === undefined) throw cloudMissing("read role", name);
      return dataResult(roleReadForm(role));
    },
  },
  {
    operations: ["create-or-update"],
    path: "/roles/:name",
    capabilities: UPDATE,
    handler: (ctx) => {
      const name = pathName(ctx, NAME);
      const input = readCloudFields(ctx.body, CLOUD_ROLE_FIELDS) as RoleInput;
      const { warnings } = ctx.update((c) => writeRole(c, name, input));
      return warnings.length > 0 ? dataResult({}, warnings) : NO_CONTENT;
    },
  },
  {
    operations: ["delete"],
    path: "/roles/:name",
    handler: (ctx) => {
      const name = pathName(ctx, NAME);
      ctx.update((c) => deleteRole(c, name));
      return NO_CONTENT;
    },
  },
  { operations: ["read"], path: "/creds/:name", handler: credentialsHandler("creds") },
  { operations: ["create-or-update"], path: "/creds/:name", capabilities: UPDATE, handler: credentialsHandler("creds") },
  { operations: ["read"], path: "/sts/:name", handler: credentialsHandler("sts") },
  { operations: ["create-or-update"], path: "/sts/:name", capabilities: UPDATE, handler: credentialsHandler("sts") },
  {
    operations: ["read"],
    path: "/static-roles/:name",
    handler: (ctx) => {
      const name = pathName(ctx, NAME);
      const role = ctx.read((c) => readStaticRole(c.mount, name));
      if (role === undefined) throw cloudMissing("read static role", name);
      return dataResult(staticRoleForm(role));
    },
  },
  {
    operations: ["create-or-update"],
    path: "/static-roles/:name",
    capabilities: UPDATE,
    handler: (ctx) => {
      const name = pathName(ctx, NAME);
      const input = readCloudFields(ctx.body, CLOUD_STATIC_ROLE_FIELDS) as StaticRoleInput;
      const role = ctx.update((c) => writeStaticRole(c, name, input));
      return dataResult(staticRoleForm(role));
    },
  },
  {
    operations: ["delete"],
    path: "/static-roles/:name",
    handler: (ctx) => {
      const name = pathName(ctx, NAME);
      ctx.update((c) => deleteStaticRole(c, name));
      return NO_CONTENT;
    },
  },
  {
    operations: ["read"],
    path: "/static-creds/:name",
    handler: (ctx) => {
      const name = pathName(ctx, NAME);
      const credential = ctx.read((c) => readStaticCredentials(c.mount, name));
      if (credential === undefined) throw cloudMissing("read static credentials", name);
      return dataResult({ access_key: credential.accessKeyId, secret_key: credential.secretAccessKey });
    },
  },
] satisfies EngineRoute<CloudMountState>[]);

/**
 * The cloud engine's HTTP face, for the secrets core's engine registry.
 * @example SECRETS_ENGINE_HTTP.cloud === cloudHttp
 */
export const cloudHttp: EngineHttp<CloudMountState> = Object.freeze({ type: "cloud", routes: CLOUD_ROUTES });
