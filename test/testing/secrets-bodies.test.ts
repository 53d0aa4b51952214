/**
 * The testing kit's secrets body arbitraries for the cloud-account engine (roles, static roles)
 * and managed keys against the fake, through every transport: valid bodies are accepted, invalid
 * ones (including those refused because of stored data) get exactly the labelled status and
 * errors and store nothing.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../src/index.js";
import { CloudScenario } from "../../src/scenarios/secrets/cloud/cloud-scenario.js";
import { readServiceError } from "../../src/testing/errors.js";
import {
  cloudRoleBody,
  cloudStaticRoleBody,
  invalidCloudRoleBody,
  invalidCloudStaticRoleBody,
  invalidLoginEnforcementBody,
  invalidManagedKeyBody,
  loginEnforcementBody,
  managedKeyBody,
} from "../../src/testing/secrets-bodies.js";
import { describeEachTransport } from "../support/transports.js";

const NUM_RUNS = 10;

function world(doubles: Doubles, api: string) {
  const root = doubles.secrets.rootToken;
  let next = 0;
  const fresh = (prefix: string) => `${prefix}${++next}`;
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${api}${path}`, { method, headers: { "x-vault-token": root }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { fresh, send };
}

describeEachTransport("testing kit: secrets body arbitraries (cloud, managed keys)", (t) => {
  it("cloud role bodies in every wire form are accepted; invalid ones get their labelled 400 and write no role", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 51 }));
    new CloudScenario(doubles.secrets).configureRoot();
    const w = world(doubles, base("secrets"));
    await fc.assert(
      fc.asyncProperty(cloudRoleBody(), async (body) => {
        const response = await w.send("POST", `/cloud/roles/${w.fresh("role")}`, body);
        expect(response.status, await response.clone().text()).toBe(204);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
    await fc.assert(
      fc.asyncProperty(invalidCloudRoleBody(), async ({ body, expected }) => {
        const name = w.fresh("bad");
        expect(await readServiceError("secrets", await w.send("POST", `/cloud/roles/${name}`, body))).toEqual(expected);
        expect((await w.send("GET", `/cloud/roles/${name}`)).status).toBe(404);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });

  it("static role bodies for an existing user are accepted; invalid ones (a user the account does not have included) get their labelled answer", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 52 }));
    const cloud = new CloudScenario(doubles.secrets);
    cloud.configureRoot();
    for (const user of ["app", "ci"]) cloud.createIamUser(user);
    const w = world(doubles, base("secrets"));
    await fc.assert(
      fc.asyncProperty(cloudStaticRoleBody({ users: ["app", "ci"] }), async (body) => {
        const response = await w.send("POST", `/cloud/static-roles/${w.fresh("static")}`, body);
        expect(response.status, await response.clone().text()).toBe(200);
      }),
      { numRuns: NUM_RUNS },
    );
    // The boundary: the engine refuses a period below the minimum, not the minimum itself.
    expect((await w.send("POST", `/cloud/static-roles/${w.fresh("edge")}`, { username: "app", rotation_period: 60 })).status).toBe(200);
    expect((await w.send("POST", `/cloud/static-roles/${w.fresh("edge")}`, { username: "app", rotation_period: 59 })).status).toBe(500);
    await fc.assert(
      fc.asyncProperty(invalidCloudStaticRoleBody({ users: ["app", "ci"] }), async ({ body, expected }) => {
        const name = w.fresh("bad");
        expect(await readServiceError("secrets", await w.send("POST", `/cloud/static-roles/${name}`, body))).toEqual(expected);
        expect((await w.send("GET", `/cloud/static-roles/${name}`)).status).toBe(404);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });

  it("managed key bodies (kmsa, kmsb) are accepted; invalid ones (a name another type holds included) get their labelled 400 and change nothing", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 53 }));
    const w = world(doubles, base("secrets"));
    const existing: Record<string, string> = {};
    await fc.assert(
      fc.asyncProperty(managedKeyBody(), async (body) => {
        const name = w.fresh("key");
        const response = await w.send("POST", `/sys/managed-keys/${String(body.type)}/${name}`, body);
        expect(response.status, await response.clone().text()).toBe(204);
        existing[name] = String(body.type);
      }),
      { numRuns: NUM_RUNS },
    );
    const list = async () =>
      Promise.all(["kmsa", "kmsb"].map(async (type) => ((await (await w.send("LIST", `/sys/managed-keys/${type}`)).json()) as { data?: { keys?: string[] } }).data?.keys ?? []));
    await fc.assert(
      fc.asyncProperty(invalidManagedKeyBody({ existing }), async ({ body, expected, name, pathType }) => {
        const before = JSON.stringify(await list());
        const target = name ?? w.fresh("bad");
        expect(await readServiceError("secrets", await w.send("POST", `/sys/managed-keys/${pathType ?? String(body.type)}/${target}`, body))).toEqual(expected);
        expect(JSON.stringify(await list())).toBe(before);
      }),
      { numRuns: NUM_RUNS * 3 },
    );
  });

  it("managed key bodies of every backend (pkcs11 naming a library stanza, kmsc a key ring) are accepted; invalid ones get their labelled 400 and change nothing", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 57 }));
    doubles.secrets.addPkcs11Library("softhsm");
    const keyRings = [
      { project: "acme", region: "europe-west1", keyRing: "signing" },
      { project: "acme-ci", region: "us-east1", keyRing: "ci" },
    ];
    for (const ring of keyRings) doubles.secrets.addKeyRing(ring.project, ring.region, ring.keyRing);
    const options = { pkcs11Libraries: ["hsm", "softhsm"], keyRings };
    const w = world(doubles, base("secrets"));
    const existing: Record<string, string> = {};
    const drawn = new Set<string>();
    await fc.assert(
      fc.asyncProperty(managedKeyBody(options), async (body) => {
        const name = w.fresh("key");
        const response = await w.send("POST", `/sys/managed-keys/${String(body.type)}/${name}`, body);
        expect(response.status, `${JSON.stringify(body)}: ${await response.clone().text()}`).toBe(204);
        existing[name] = String(body.type);
        drawn.add(String(body.type));
      }),
      { numRuns: NUM_RUNS * 4 },
    );
    expect([...drawn].sort()).toEqual(["kmsa", "kmsb", "kmsc", "pkcs11"]);
    for (const type of ["pkcs11", "kmsc"] as const) {
      await fc.assert(
        fc.asyncProperty(managedKeyBody({ ...options, type }), async (body) => {
          const response = await w.send("POST", `/sys/managed-keys/${type}/${w.fresh(type)}`, body);
          expect(response.status, `${JSON.stringify(body)}: ${await response.clone().text()}`).toBe(204);
        }),
        { numRuns: NUM_RUNS },
      );
    }
    const list = async () =>
      Promise.all(["pkcs11", "kmsa", "kmsb", "kmsc"].map(async (type) => ((await (await w.send("LIST", `/sys/managed-keys/${type}`)).json()) as { data?: { keys?: string[] } }).data?.keys ?? []));
    for (const type of ["pkcs11", "kmsc", undefined] as const) {
      await fc.assert(
        fc.asyncProperty(invalidManagedKeyBody({ ...options, ...(type === undefined ? {} : { type }), existing }), async ({ body, expected, name, pathType, why }) => {
          const before = JSON.stringify(await list());
          const target = name ?? w.fresh("bad");
          expect(await readServiceError("secrets", await w.send("POST", `/sys/managed-keys/${pathType ?? String(body.type)}/${target}`, body)), why).toEqual(expected);
          expect(JSON.stringify(await list())).toBe(before);
        }),
        { numRuns: NUM_RUNS * 4 },
      );
    }
  });

  it("managed key arbitraries refuse to draw a backend whose stored prerequisite is not given", () => {
    expect(() => managedKeyBody({ type: "kmsc" })).toThrow(/keyRings/);
    expect(() => managedKeyBody({ type: "pkcs11", pkcs11Libraries: [] })).toThrow(/pkcs11Libraries/);
    expect(fc.sample(managedKeyBody({ type: "pkcs11" }), 20).every((body) => body.library === "hsm")).toBe(true);
  });

  it("MFA login enforcement bodies naming what exists are accepted; invalid ones (ids, accessors, types that do not exist) get their labelled 400 and write nothing", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 54 }));
    const secrets = doubles.secrets;
    const targets = {
      mfaMethodIds: [secrets.addMfaMethod("totp"), secrets.addMfaMethod("duo")],
      authMethodAccessors: [secrets.addAuthMount("userpass")],
      authMethodTypes: ["userpass"],
      identityGroupIds: [secrets.addIdentityGroup("admins")],
      identityEntityIds: [secrets.addIdentityEntity("alice")],
    };
    const w = world(doubles, base("secrets"));
    await fc.assert(
      fc.asyncProperty(loginEnforcementBody(targets), async (body) => {
        const response = await w.send("POST", `/identity/mfa/login-enforcement/${w.fresh("enf")}`, body);
        expect(response.status, await response.clone().text()).toBe(204);
      }),
      { numRuns: NUM_RUNS },
    );
    await fc.assert(
      fc.asyncProperty(invalidLoginEnforcementBody(targets), async ({ body, expected }) => {
        const name = w.fresh("bad");
        expect(await readServiceError("secrets", await w.send("POST", `/identity/mfa/login-enforcement/${name}`, body))).toEqual(expected);
        expect((await w.send("GET", `/identity/mfa/login-enforcement/${name}`)).status).toBe(404);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });
});
