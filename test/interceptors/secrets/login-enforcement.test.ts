import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import type { SecretsScenario } from "../../../src/scenarios/secrets/secrets-scenario.js";
import { itemsPlugin } from "./test-engine.js";

const PATH = "/identity/mfa/login-enforcement";

describeEachTransport("secrets: MFA login enforcement", (t) => {
  const start = async () => {
    const started = await t.start([itemsPlugin()]);
    const base = started.base("secrets");
    const controls = started.doubles.controlsOf<SecretsScenario>("secrets");
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${base}${path}`, {
        method,
        headers: { "x-secrets-token": "root-token", "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const totp = controls.addMfaMethod("totp", { name: "totp" });
    const duo = controls.addMfaMethod("duo");
    const accessor = controls.addAuthMount("userpass");
    const group = controls.addIdentityGroup("admins");
    const entity = controls.addIdentityEntity("alice");
    const errorOf = async (response: Response) => ({ status: response.status, errors: ((await response.json()) as { errors: string[] }).errors });
    return { ...started, controls, call, totp, duo, accessor, group, entity, errorOf };
  };

  it("creates, reads (every list present), updates, lists and deletes an enforcement", async () => {
    const { call, totp, duo, accessor } = await start();
    expect((await call("POST", `${PATH}/e1`, { mfa_method_ids: [totp], auth_method_accessors: [accessor] })).status).toBe(204);
    const read = await (await call("GET", `${PATH}/e1`)).json();
    expect(read.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "e1",
      namespace_id: "root",
      mfa_method_ids: [totp],
      auth_method_accessors: [accessor],
      auth_method_types: [],
      identity_group_ids: [],
      identity_entity_ids: [],
    });
    expect((await call("PUT", `${PATH}/e1`, { mfa_method_ids: `${totp},${duo}`, auth_method_types: ["userpass"] })).status).toBe(204);
    const updated = (await (await call("GET", `${PATH}/e1`)).json()).data;
    expect(updated).toMatchObject({ id: read.data.id, mfa_method_ids: [totp, duo], auth_method_accessors: [accessor], auth_method_types: ["userpass"] });
    await call("POST", `${PATH}/a0`, { mfa_method_ids: [duo], auth_method_types: ["userpass"] });
    for (const response of [await call("LIST", PATH), await call("GET", `${PATH}?list=true`)]) {
      const data = (await response.json()).data;
      expect(data.keys).toEqual(["a0", "e1"]);
      expect(data.key_info.e1).toEqual(updated);
    }
    expect((await call("DELETE", `${PATH}/e1`)).status).toBe(204);
    expect((await call("DELETE", `${PATH}/e1`)).status).toBe(204);
    const gone = await call("GET", `${PATH}/e1`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ errors: [] });
    await call("DELETE", `${PATH}/a0`);
    expect((await call("LIST", PATH)).status).toBe(404);
  });

  it("validates like the real service", async () => {
    const { call, totp, accessor, group, entity, errorOf, controls } = await start();
    const cases: [Record<string, unknown>, string][] = [
      [{ auth_method_accessors: [accessor] }, "missing method ids"],
      [{ mfa_method_ids: ["00000000-0000-4000-8000-000000000000"], auth_method_accessors: [accessor] }, "one of the provided method ids doesn't exist"],
      [{ mfa_method_ids: [totp] }, "One of auth_method_accessors, auth_method_types, identity_group_ids, identity_entity_ids must be specified"],
      [{ mfa_method_ids: [totp], auth_method_accessors: ["auth_nope_1"] }, "one of the auth method accessors provided is invalid"],
      [{ mfa_method_ids: [totp], auth_method_types: ["ldap"] }, "one of the auth method types provided is invalid"],
      [{ mfa_method_ids: [totp], identity_group_ids: ["nope"] }, "one of the provided group ids doesn't exist"],
      [{ mfa_method_ids: [totp], identity_entity_ids: ["nope"] }, "one of the provided entity ids doesn't exist"],
      [{ mfa_method_ids: 7, identity_entity_ids: [entity] }, 'error converting input 7 for field "mfa_method_ids": cannot parse as []string'],
    ];
    for (const [body, message] of cases) expect(await errorOf(await call("POST", `${PATH}/bad`, body)), JSON.stringify(body)).toEqual({ status: 400, errors: [message] });
    expect((await call("LIST", PATH)).status).toBe(404);
    // an update must name the method ids again and one of the four lists
    await call("POST", `${PATH}/ok`, { mfa_method_ids: [totp], identity_group_ids: [group], identity_entity_ids: [entity] });
    expect(await errorOf(await call("POST", `${PATH}/ok`, { identity_group_ids: [group] }))).toEqual({ status: 400, errors: ["missing method ids"] });
    expect(await errorOf(await call("POST", `${PATH}/ok`, { mfa_method_ids: [totp] }))).toMatchObject({ status: 400 });
    expect((await (await call("GET", `${PATH}/ok`)).json()).data).toMatchObject({ identity_group_ids: [group], identity_entity_ids: [entity] });
    // an empty list still counts as given
    expect((await call("POST", `${PATH}/empty`, { mfa_method_ids: [totp], identity_group_ids: [] })).status).toBe(204);
    expect(controls).toBeDefined();
  });

  it("lists enforcements of the current and parent namespaces and checks method namespaces", async () => {
    const { call, controls, totp, errorOf } = await start();
    controls.createNamespace("ns1/ns2");
    const childAccessor = controls.addAuthMount("userpass", { namespace: "ns1" });
    const childMethod = controls.addMfaMethod("totp", { namespace: "ns1" });
    await call("POST", `${PATH}/root-e`, { mfa_method_ids: [totp], auth_method_accessors: [childAccessor] });
    const ns1 = { "x-secrets-namespace": "ns1" };
    expect((await call("POST", `${PATH}/ns1-e`, { mfa_method_ids: [totp, childMethod], auth_method_types: ["userpass"] }, ns1)).status).toBe(204);
    expect((await (await call("LIST", PATH, undefined, ns1)).json()).data.keys).toEqual(["ns1-e", "root-e"]);
    expect((await (await call("LIST", `/ns1/ns2${PATH}`)).json()).data.keys).toEqual(["ns1-e", "root-e"]);
    expect((await (await call("LIST", PATH)).json()).data.keys).toEqual(["root-e"]);
    const read = (await (await call("GET", `/ns1${PATH}/ns1-e`)).json()).data;
    expect(read.namespace_id).toMatch(/^[0-9A-Za-z]{5}$/);
    expect((await call("GET", `${PATH}/ns1-e`)).status).toBe(404);
    expect(await errorOf(await call("POST", `${PATH}/x`, { mfa_method_ids: [childMethod], auth_method_types: ["userpass"] }))).toEqual({
      status: 400,
      errors: ["one of the provided method ids is in an incompatible namespace and can't be used"],
    });
    // accessors of a child namespace count, of a parent do not
    const rootAccessor = controls.addAuthMount("oidc");
    expect(await errorOf(await call("POST", `${PATH}/y`, { mfa_method_ids: [totp], auth_method_accessors: [rootAccessor] }, ns1))).toEqual({
      status: 400,
      errors: ["one of the auth method accessors provided is invalid"],
    });
  });

  it("decodes a percent-encoded name once, as the real HTTP server does", async () => {
    // Regression: path parameters were decoded twice, so "e%2541" became "eA" instead of "e%41".
    const { call, totp, accessor } = await start();
    expect((await call("POST", `${PATH}/e%2541`, { mfa_method_ids: [totp], auth_method_accessors: [accessor] })).status).toBe(204);
    expect((await (await call("LIST", PATH)).json()).data.keys).toEqual(["e%41"]);
    expect((await (await call("GET", `${PATH}/e%2541`)).json()).data.name).toBe("e%41");
    expect((await call("GET", `${PATH}/eA`)).status).toBe(404);
    expect((await call("POST", `${PATH}/with%20space`, { mfa_method_ids: [totp], auth_method_types: ["userpass"] })).status).toBe(204);
    expect((await (await call("GET", `${PATH}/with%20space`)).json()).data.name).toBe("with space");
  });

  it("checks policy capabilities on the enforcement paths", async () => {
    const { call, controls, totp, accessor } = await start();
    controls.createPolicy("mfa-admin", { "identity/mfa/login-enforcement/*": ["create", "read"], "identity/mfa/login-enforcement/": ["list"] });
    const admin = { "x-secrets-token": controls.createToken({ policies: ["mfa-admin"] }).token };
    expect((await call("POST", `${PATH}/e`, { mfa_method_ids: [totp], auth_method_accessors: [accessor] }, admin)).status).toBe(204);
    expect((await call("POST", `${PATH}/e`, { mfa_method_ids: [totp], auth_method_accessors: [accessor] }, admin)).status).toBe(403);
    expect((await call("GET", `${PATH}/e`, undefined, admin)).status).toBe(200);
    expect((await call("LIST", PATH, undefined, admin)).status).toBe(200);
    expect((await call("DELETE", `${PATH}/e`, undefined, admin)).status).toBe(403);
  });
});
