/**
 * The secrets sections of scenario documents that complete issue 11: cloud roles and static roles
 * (and the simulated account and root), managed keys with their backends and the server
 * environment, MFA methods and login enforcements naming their fixtures by name. Proven through
 * HTTP on every transport, refused with the culprit's pointer, and made by curl through the dev
 * server's `/_sim/secrets/` routes.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../../src/interceptors/server.js";
import { ScenarioDocumentError } from "../../../src/scenarios/document/errors.js";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { cloudScenario } from "../../../src/scenarios/secrets/cloud/cloud-scenario.js";
import { describeEachTransport } from "../../support/transports.js";

const SECRETS_WORLD = `
secrets:
  cloud:
    - accountId: "210987654321"
      iamUsers: [{ userName: app-user }]
      root: { region: eu-west-1 }
      roles:
        ci: { credentialType: iam_user, policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] }
        deployer: { credentialType: assumed_role, roleArns: ["arn:aws:iam::210987654321:role/Deployer"], defaultStsTtl: 15m }
      staticRoles:
        app: { username: app-user, rotationPeriod: 24h }
  serverEnvironment: { kmsaAccessKey: AKIAENVIRONMENT, kmsaSecretKey: environment-secret }
  managedKeys:
    - name: aws-key
      type: kmsa
      usages: [sign, verify]
      parameters: { key_type: RSA, key_bits: 2048, kms_key: alias/signing }
  mfaMethods: [{ type: totp, name: corp-totp }]
  authMounts: [{ type: userpass }, { type: oidc, path: sso }]
  identityGroups: [{ name: admins }]
  loginEnforcements:
    - { name: everyone, mfaMethods: [corp-totp], authMounts: [sso], authMethodTypes: [userpass], identityGroups: [admins] }
timeline:
  - expect: { path: secrets.cloud.cloud.roles.deployer.defaultStsTtl, equals: 900 }
  - expect: { path: secrets.cloud.cloud.staticRoles.app.rotatesAt, equals: 1704153600000 }
  - expect: { path: secrets.managedKeys.aws-key.kms_key, equals: alias/signing }
  - expect: { path: secrets.loginEnforcements.everyone.auth_method_types, equals: [userpass] }
`;

describeEachTransport("scenario documents: cloud roles, managed keys, MFA login enforcements", (t) => {
  it("makes every fixture as the API then reads it, with names resolved to the seeded ids", async () => {
    const doubles = createDoubles({ seed: 4, scenario: SECRETS_WORLD });
    const { base } = await t.startWith(doubles);
    const api = base("secrets");
    const root = { "x-secrets-token": doubles.secrets.rootToken };
    const read = async (path: string) => {
      const response = await fetch(`${api}${path}`, { headers: root });
      return { status: response.status, data: ((await response.json()) as { data: Record<string, unknown> }).data };
    };
    expect(doubles.scenario!.play().ok).toBe(true);
    const names = doubles.scenario!.names.secrets;

    expect(await read("/cloud/roles/ci")).toMatchObject({ status: 200, data: { credential_type: "iam_user", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] } });
    expect(await read("/cloud/roles/deployer")).toMatchObject({ status: 200, data: { credential_type: "assumed_role", default_sts_ttl: 900 } });
    const staticCreds = await read("/cloud/static-creds/app");
    expect(staticCreds.status).toBe(200);
    expect(staticCreds.data.access_key).toBe(cloudScenario(doubles.secrets).staticRole("app")?.accessKeyId);
    const creds = await read("/cloud/creds/ci");
    expect(creds).toMatchObject({ status: 200, data: { access_key: expect.stringMatching(/^AKIA/) } });

    expect(await read("/sys/managed-keys/kmsa/aws-key")).toMatchObject({ status: 200, data: { UUID: names.managedKeys["aws-key"], kms_key: "alias/signing", key_bits: 2048 } });

    const enforcement = await read("/identity/mfa/login-enforcement/everyone");
    expect(enforcement).toMatchObject({
      status: 200,
      data: {
        id: names.loginEnforcements.everyone,
        mfa_method_ids: [names.mfaMethods["corp-totp"]],
        auth_method_accessors: [names.authMounts.sso],
        auth_method_types: ["userpass"],
        identity_group_ids: [names.identityGroups.admins],
      },
    });
    expect(names.authMounts.sso).toMatch(/^auth_oidc_[0-9a-f]{8}$/);
  });
});

describe("scenario documents: secrets sections refused with their pointer", () => {
  const refused = (document: object): ScenarioDocumentError => {
    const doubles = createDoubles();
    try {
      doubles.load(document);
    } catch (error) {
      return error as ScenarioDocumentError;
    }
    throw new Error("not refused");
  };

  it("names the culprit and what was expected, and keeps nothing", () => {
    expect(refused({ secrets: { cloud: [{ roles: { bad: { credentialType: "assumed_role" } } }] } }).problems).toEqual([
      { path: "/secrets/cloud/0/roles/bad", expected: expect.stringContaining("must specify role_arns with assumed_role credential_type") },
    ]);
    expect(refused({ secrets: { cloud: [{ root: {}, staticRoles: { app: { username: "nobody", rotationPeriod: "1h" } } }] } }).problems[0]).toMatchObject({
      path: "/secrets/cloud/0/staticRoles/app",
      expected: expect.stringContaining("NoSuchEntity"),
    });
    expect(refused({ secrets: { managedKeys: [{ name: "k", type: "kmsa", parameters: { kms_kee: "alias/x" } }] } }).problems[0]).toMatchObject({
      path: "/secrets/managedKeys/0",
      expected: expect.stringContaining('no parameter "kms_kee"'),
    });
    expect(refused({ secrets: { managedKeys: [{ name: "k", type: "kmsx" }] } }).problems[0]?.path).toBe("/secrets/managedKeys/0/type");
    expect(refused({ secrets: { mfaMethods: [{ type: "totp", name: "a" }], loginEnforcements: [{ name: "e", mfaMethods: ["b"], authMethodTypes: ["userpass"] }] } }).problems).toEqual([
      { path: "/secrets/loginEnforcements/0/mfaMethods/0", expected: 'no MFA method named "b" (define it under secrets.mfaMethods)' },
    ]);
    expect(
      refused({ secrets: { mfaMethods: [{ type: "totp", name: "a" }], authMounts: [{ type: "userpass" }], loginEnforcements: [{ name: "e", mfaMethods: ["a"], authMethodTypes: ["ldap"] }] } }).problems[0],
    ).toMatchObject({ path: "/secrets/loginEnforcements/0", expected: expect.stringContaining("one of the auth method types provided is invalid") });
    const doubles = createDoubles();
    expect(() => doubles.load({ secrets: { mfaMethods: [{ type: "totp", name: "a" }], loginEnforcements: [{ name: "e", mfaMethods: ["a"] }] } })).toThrow(/must be specified/);
    expect(doubles.secrets.loginEnforcement("e")).toBeUndefined();
  });
});

describe("/_sim/secrets/ routes for cloud roles, managed keys and login enforcements (dev server)", () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it("makes them with curl-style calls, naming earlier calls' fixtures by name, and lists their body shapes", async () => {
    const doubles = createDoubles({ seed: 6 });
    const server = await doubles.listen();
    servers.push(server);
    const sim = async (path: string, body: unknown) => {
      const response = await fetch(`${server.url}/_sim${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const cloud = await sim("/secrets/cloud", {
      root: {},
      iamUsers: [{ userName: "app-user" }],
      roles: { ci: { credentialType: "iam_user", policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] } },
      staticRoles: { app: { username: "app-user", rotationPeriod: "1h" } },
    });
    expect(cloud).toMatchObject({ status: 201, body: { mount: "cloud", roles: { ci: { credentialTypes: ["iam_user"] } }, staticRoles: { app: { username: "app-user", rotationPeriod: 3600 } } } });
    expect((await sim("/secrets/server-environment", { kmsaAccessKey: "AKIAENV", kmsaSecretKey: "s" })).status).toBe(200);
    const key = await sim("/secrets/managed-keys", { name: "aws-key", type: "kmsa", parameters: { key_type: "RSA", key_bits: 2048, kms_key: "alias/signing" } });
    expect(key).toMatchObject({ status: 201, body: { kms_key: "alias/signing", UUID: expect.any(String) } });
    const method = await sim("/secrets/mfa-methods", { type: "totp", name: "corp-totp" });
    expect(method).toMatchObject({ status: 201, body: { id: expect.any(String) } });
    expect(await sim("/secrets/auth-mounts", { type: "userpass" })).toMatchObject({ status: 201, body: { accessor: expect.stringMatching(/^auth_userpass_/) } });
    const enforcement = await sim("/secrets/login-enforcements", { name: "everyone", mfaMethods: ["corp-totp"], authMounts: ["userpass"] });
    expect(enforcement).toMatchObject({ status: 201, body: { name: "everyone", mfa_method_ids: [method.body.id] } });
    const bad = await sim("/secrets/login-enforcements", { name: "x", mfaMethods: ["nope"], authMounts: ["userpass"] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("/mfaMethods/0: no MFA method named");

    const through = await fetch(`${server.url}/v1/identity/mfa/login-enforcement/everyone`, { headers: { "x-secrets-token": doubles.secrets.rootToken } });
    expect(((await through.json()) as { data: { mfa_method_ids: string[] } }).data.mfa_method_ids).toEqual([method.body.id]);

    const listing = (await (await fetch(`${server.url}/_sim/`)).json()) as { routes: { route: string; body?: string }[] };
    const shape = (route: string) => listing.routes.find((r) => r.route === route)?.body;
    expect(shape("POST /_sim/secrets/managed-keys")).toContain('"parameters"?');
    expect(shape("POST /_sim/secrets/login-enforcements")).toContain('"mfaMethods": [string]');
    expect(shape("POST /_sim/secrets/cloud")).toContain('"staticRoles"?');
  });
});
