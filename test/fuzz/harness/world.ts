/**
 * The fuzz's fixture world: every service with a few of each resource, tokens of every class
 * (privileged, under-privileged, expired, foreign), built from one seed. `ids` are the real ids
 * the generator fills path parameters with (next to ids that do not exist).
 */
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { buildDevScenario } from "../../../src/scenarios/access-control/dev-scenario.js";
import { buildSecretsDevScenario } from "../../../src/scenarios/secrets/dev-scenario.js";
import { runsDefaultScenario } from "../../../src/scenarios/runs/default-scenario.js";
import type { SimulatorSnapshot } from "../../../src/simulator/kernel/simulator.js";

/** Service keys as in `createDoubles()`. */
export type ServiceKey = "runs" | "accessControl" | "secrets";

/** The token classes of issue 8: absent, bogus, expired, foreign, under-privileged, privileged. */
export type TokenClass = "none" | "bogus" | "expired" | "foreign" | "under" | "privileged";

/** What the generator knows of the world. */
export interface WorldIds {
  /** Tokens per service and class (`none` has none). */
  readonly tokens: Readonly<Record<ServiceKey, Readonly<Record<Exclude<TokenClass, "none" | "foreign">, readonly string[]>>>>;
  /** Path-parameter values that exist, keyed by the literal path segment before the parameter. */
  readonly pools: Readonly<Record<string, readonly string[]>>;
}

/** A built world. */
export interface World {
  readonly doubles: Doubles;
  readonly ids: WorldIds;
  /** The state right after building (each episode starts here). */
  readonly initial: SimulatorSnapshot;
}

const enc = new TextEncoder();

/**
 * Builds the world on fresh doubles (manual clock, seed `seed`).
 * @example const world = await buildWorld(1); world.doubles.intercept();
 */
export async function buildWorld(seed = 1): Promise<World> {
  const doubles = createDoubles({ seed });
  const bases = doubles.baseUrls();

  // run orchestration: demo org and workspace, an admin user and a site admin, a read-only user,
  // a second organization, a run and an uploaded configuration.
  const runs = runsDefaultScenario(doubles.runs, bases.runs);
  const other = doubles.runs.addOrganization("other-org");
  const otherWs = doubles.runs.addWorkspace(other, { name: "other-workspace" });
  const reader = doubles.runs.addUser({ username: "reader", permissions: { [runs.workspaceId]: "read" } });
  const readerToken = doubles.runs.issueUserToken(reader.id);
  const admin = doubles.runs.addUser({ username: "owner", organizationAccess: { "demo-org": "admin", "other-org": "admin" } });
  const ownerToken = doubles.runs.issueUserToken(admin.id);
  const upload = doubles.runs.uploadConfiguration(runs.workspaceId, { as: admin.id, autoQueueRuns: false });
  const runId = doubles.runs.queueRun(runs.workspaceId, { as: admin.id, message: "fuzz" });
  const run = doubles.runs.run(runId) as unknown as { planId?: string; applyId?: string; plan?: { id: string }; apply?: { id: string } };
  const engineVersions = doubles.runs.engineVersions().map((v) => v.id);

  // access control: the dev scenario, a read-only token, a token without policies, an expired one.
  const acl = doubles.accessControl;
  buildDevScenario(acl, bases.accessControl.api);
  const aclRead = acl.createToken({ description: "reader", policies: ["acl-read"] });
  const aclNone = acl.createToken({ description: "nothing" });
  const aclExpiring = acl.createToken({ description: "expiring", expirationTtl: "1m" });
  const bindingRules = acl.bindingRules().map((r) => (r as unknown as { id?: string; ID?: string }).id ?? "");

  // secrets: ssh (Ed25519 CA: RSA generation is slow) and cloud engines, a default-policy token,
  // a reader token, an expiring one; an OTP and cloud credentials issued (leases, OTPs in state).
  buildSecretsDevScenario(doubles.secrets, bases.secrets.api, { sshCaKeyType: "ssh-ed25519" });
  doubles.secrets.createPolicy("ssh-reader", 'path "ssh/roles/*" { capabilities = ["read", "list"] }');
  const secretsUnder = doubles.secrets.createToken({ policies: [] }).token;
  const secretsReader = doubles.secrets.createToken({ policies: ["ssh-reader"] }).token;
  const secretsExpiring = doubles.secrets.createToken({ policies: ["ssh-reader"], ttl: "1m" }).token;
  const root = doubles.secrets.rootToken;
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await doubles.handler.handle({
      method,
      url: new URL(`${bases.secrets.api}${path}`),
      headers: { "x-secrets-token": root, "content-type": "application/json" },
      body: enc.encode(body === undefined ? "" : JSON.stringify(body)),
    });
    if (response.status >= 300) throw new Error(`fuzz world: ${method} ${path} answered ${response.status} ${String(response.body)}`);
    return JSON.parse(String(response.body ?? "{}")) as Record<string, unknown>;
  };
  const otp = await call("POST", "/ssh/creds/otp-role", { ip: "10.0.0.5", username: "ubuntu" });
  const creds = await call("POST", "/cloud/creds/deploy", {});
  const leases = [otp.lease_id, creds.lease_id].filter((x): x is string => typeof x === "string" && x !== "");

  doubles.advance("2m"); // the expiring tokens expire

  const ids: WorldIds = {
    tokens: {
      runs: { privileged: [runs.adminToken, ownerToken, runs.userToken], under: [readerToken], bogus: ["bogus.atlasv1.0000000000000000000000000000"], expired: ["expired.atlasv1.1111111111111111111111111111"] },
      accessControl: {
        privileged: [acl.bootstrapToken.secretId],
        under: [aclRead.secretId, aclNone.secretId],
        bogus: ["6d1e2c40-0000-4000-8000-000000000000"],
        expired: [aclExpiring.secretId],
      },
      secrets: { privileged: [root], under: [secretsUnder, secretsReader], bogus: ["s.bogusbogusbogusbogusbogu"], expired: [secretsExpiring] },
    },
    pools: {
      workspaces: [runs.workspaceId, otherWs.id],
      organizations: ["demo-org", "other-org"],
      runs: [runId],
      "configuration-versions": [upload.configurationVersionId],
      "ingress-attributes": [upload.configurationVersionId],
      plans: [run.planId ?? run.plan?.id ?? "plan-x"],
      applies: [run.applyId ?? run.apply?.id ?? "apply-x"],
      "cost-estimates": [],
      users: [reader.id, admin.id],
      "engine-versions": engineVersions,
      token: [acl.bootstrapToken.accessorId, aclRead.accessorId, aclNone.accessorId],
      "binding-rule": bindingRules,
      mounts: ["ssh", "cloud", "kv", "ssh2"],
      roles: ["otp-role", "ca-role", "deploy", "assume", "federate"],
      creds: ["otp-role", "deploy", "assume", "federate"],
      sign: ["ca-role", "otp-role"],
      sts: ["assume", "federate"],
      "static-roles": ["static-1"],
      "static-creds": ["static-1"],
      keys: ["admin-key"],
      "managed-keys": ["pkcs11", "awskms", "azurekeyvault", "gcpckms"],
      "login-enforcement": ["enforce-1"],
      renew: leases,
      revoke: leases,
    },
  };
  return { doubles, ids, initial: doubles.snapshot() };
}
