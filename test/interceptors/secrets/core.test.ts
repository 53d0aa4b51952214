import { describe, expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import type { SecretsScenario } from "../../../src/scenarios/secrets/secrets-scenario.js";
import { itemsPlugin, type ItemsState } from "./test-engine.js";

const ROOT = { "x-secrets-token": "root-token" };
const json = { "content-type": "application/json" };

describeEachTransport("secrets: core routing, envelope and errors", (t) => {
  const start = async (seed = 1) => {
    const started = await t.start([itemsPlugin()], { seed });
    const base = started.base("secrets");
    const controls = started.doubles.controlsOf<SecretsScenario>("secrets");
    const call = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
      fetch(`${base}${path}`, {
        method,
        headers: { ...ROOT, ...(options.body === undefined ? {} : json), ...options.headers },
        ...(options.body === undefined ? {} : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }),
      });
    return { ...started, base, controls, call };
  };

  it("wraps engine data in the envelope with a seeded request id, wrap_info null and warnings", async () => {
    const { call } = await start();
    expect((await call("POST", "/items/items/a", { body: { value: "x" } })).status).toBe(204);
    const read = await call("GET", "/items/items/a");
    expect(read.status).toBe(200);
    const body = await read.json();
    expect(body).toEqual({
      request_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      lease_id: "",
      renewable: false,
      lease_duration: 0,
      data: { value: "x" },
      wrap_info: null,
      warnings: null,
      auth: null,
    });
    const warned = await (await call("POST", "/items/both/x", { body: {} })).json();
    expect(warned.warnings).toEqual(["be careful"]);
  });

  it("gives byte-identical answers for the same seed and the same calls", async () => {
    const run = async () => {
      const { call, doubles } = await start(42);
      await call("POST", "/items/items/a", { body: { value: "x" } });
      const lease = await (await call("POST", "/items/lease/b", { body: { ttl: "10m" } })).text();
      const read = await (await call("GET", "/items/items/a")).text();
      await doubles.close();
      return lease + read;
    };
    expect(await run()).toBe(await run());
  });

  it("lists with LIST, GET ?list=true and the other Go booleans, and answers an empty list with 404", async () => {
    const { call } = await start();
    expect(await (await call("LIST", "/items/items")).json()).toEqual({ errors: [] });
    expect((await call("LIST", "/items/items")).status).toBe(404);
    await call("POST", "/items/items/b", { body: { value: "1" } });
    await call("POST", "/items/items/a", { body: { value: "2" } });
    for (const request of [
      () => call("LIST", "/items/items"),
      ...["true", "True", "TRUE", "t", "T", "1"].map((v) => () => call("GET", `/items/items?list=${v}`)),
    ]) {
      const response = await request();
      expect(response.status).toBe(200);
      expect((await response.json()).data).toEqual({ keys: ["a", "b"] });
    }
    for (const v of ["false", "0", "f", "F", "FALSE", "False"]) {
      // list=false is a read of the path itself, which has no read operation
      expect((await call("GET", `/items/items?list=${v}`)).status).toBe(405);
    }
    const bad = await call("GET", "/items/items?list=yes");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ errors: [] });
  });

  it("answers 403 permission denied for a missing, unknown or expired token", async () => {
    const { call, controls, doubles } = await start();
    for (const headers of [{ "x-secrets-token": "" }, { "x-secrets-token": "nope" }]) {
      const response = await call("GET", "/items/items/a", { headers });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ errors: ["permission denied"] });
    }
    const { token } = controls.createToken({ policies: ["reader"], ttl: "1h" });
    controls.createPolicy("reader", { "items/items/*": ["read"] });
    await call("POST", "/items/items/a", { body: { value: "v" } });
    expect((await call("GET", "/items/items/a", { headers: { "x-secrets-token": token } })).status).toBe(200);
    doubles.advance("1h");
    expect((await call("GET", "/items/items/a", { headers: { "x-secrets-token": token } })).status).toBe(403);
  });

  it("also takes the token as an Authorization bearer token", async () => {
    const { call } = await start();
    await call("POST", "/items/items/a", { body: { value: "x" } });
    expect((await call("GET", "/items/items/a", { headers: { "x-secrets-token": "", authorization: "Bearer root-token" } })).status).toBe(200);
    expect((await call("GET", "/items/items/a", { headers: { "x-secrets-token": "", authorization: "Bearer nope" } })).status).toBe(403);
  });

  it("checks policy capabilities per operation, with create vs update decided by existence", async () => {
    const { call, controls } = await start();
    controls.createPolicy("creator", 'path "items/items/*" { capabilities = ["create"] }\npath "items/items/" { capabilities = ["list"] }');
    controls.createPolicy("updater", { "items/items/*": ["update", "read"] });
    const creator = { "x-secrets-token": controls.createToken({ policies: ["creator"] }).token };
    const updater = { "x-secrets-token": controls.createToken({ policies: ["updater"] }).token };
    expect((await call("POST", "/items/items/a", { body: { value: "1" }, headers: updater })).status).toBe(403);
    expect((await call("POST", "/items/items/a", { body: { value: "1" }, headers: creator })).status).toBe(204);
    expect((await call("POST", "/items/items/a", { body: { value: "2" }, headers: creator })).status).toBe(403);
    expect((await call("POST", "/items/items/a", { body: { value: "2" }, headers: updater })).status).toBe(204);
    expect((await call("GET", "/items/items/a", { headers: creator })).status).toBe(403);
    expect((await call("LIST", "/items/items", { headers: creator })).status).toBe(200);
    expect((await call("LIST", "/items/items", { headers: updater })).status).toBe(403);
    expect((await call("DELETE", "/items/items/a", { headers: updater })).status).toBe(403);
    // a route that needs both create and update (like SSH sign)
    expect((await call("POST", "/items/both/x", { body: {}, headers: creator })).status).toBe(403);
    controls.createPolicy("both", { "items/both/*": ["create", "update"] });
    const both = { "x-secrets-token": controls.createToken({ policies: ["both"] }).token };
    expect((await call("POST", "/items/both/x", { body: {}, headers: both })).status).toBe(200);
  });

  it("lets deny win and + match one segment", async () => {
    const { call, controls } = await start();
    await call("POST", "/items/items/secret", { body: { value: "s" } });
    await call("POST", "/items/items/open", { body: { value: "o" } });
    controls.createPolicy("wide", { "items/+/*": ["read"] });
    controls.createPolicy("narrow", { "items/items/secret": ["deny"] });
    const headers = { "x-secrets-token": controls.createToken({ policies: ["wide", "narrow"] }).token };
    expect((await call("GET", "/items/items/open", { headers })).status).toBe(200);
    expect((await call("GET", "/items/items/secret", { headers })).status).toBe(403);
  });

  it("grants a list through a rule on the path without its trailing slash, as the real service does", async () => {
    // Regression: `path "items/items" { capabilities = ["list"] }` and `path "items/+"` used to be
    // checked against "items/items/" only, so LIST answered 403 where the real service answers 200.
    const { call, controls } = await start();
    await call("POST", "/items/items/a", { body: { value: "1" } });
    const tokenFor = (rules: Readonly<Record<string, readonly string[]>>, name: string) => {
      controls.createPolicy(name, rules);
      return { "x-secrets-token": controls.createToken({ policies: [name] }).token };
    };
    for (const [name, rules] of [
      ["exact", { "items/items": ["list"] }],
      ["exact-slash", { "items/items/": ["list"] }],
      ["segment", { "items/+": ["list"] }],
      ["glob", { "items/item*": ["list"] }],
    ] as const) {
      const headers = tokenFor(rules, name);
      expect((await call("LIST", "/items/items", { headers })).status, name).toBe(200);
      expect((await call("GET", "/items/items?list=true", { headers })).status, name).toBe(200);
    }
    // the fallback is for lists only: a read of items/items/a is not granted by "items/items"
    expect((await call("GET", "/items/items/a", { headers: tokenFor({ "items/items": ["list", "read"] }, "no-read") })).status).toBe(403);
    // an exact rule with the slash still decides before the one without it
    expect((await call("LIST", "/items/items", { headers: tokenFor({ "items/items/": ["deny"], "items/items": ["list"] }, "slash-deny") })).status).toBe(403);
  });

  it("serves unauthenticated engine routes without a token, passing the caller when one is given", async () => {
    const { call } = await start();
    const anonymous = await call("GET", "/items/public", { headers: { "x-secrets-token": "" } });
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get("content-type")).toContain("text/plain");
    expect(await anonymous.text()).toBe("caller=none");
    expect(await (await call("GET", "/items/public")).text()).toBe("caller=root");
  });

  it("answers unknown mounts, unknown paths and unsupported operations like the real service", async () => {
    const { call } = await start();
    const noMount = await call("GET", "/nowhere/x");
    expect(noMount.status).toBe(404);
    expect(await noMount.json()).toEqual({ errors: ['no handler for route "nowhere/x". route entry not found.'] });
    const noPath = await call("GET", "/items/bogus");
    expect(noPath.status).toBe(404);
    expect(await noPath.json()).toEqual({ errors: ["1 error occurred:\n\t* unsupported path\n\n"] });
    const noOperation = await call("DELETE", "/items/public");
    expect(noOperation.status).toBe(405);
    expect(await noOperation.json()).toEqual({ errors: ["1 error occurred:\n\t* unsupported operation\n\n"] });
    const patch = await call("PATCH", "/items/items/a", { body: {} });
    expect(patch.status).toBe(405);
    // without a token, the path's existence is not revealed
    expect((await call("GET", "/nowhere/x", { headers: { "x-secrets-token": "" } })).status).toBe(403);
    expect((await call("GET", "/items/bogus", { headers: { "x-secrets-token": "" } })).status).toBe(403);
  });

  it("refuses malformed JSON with 400 and keeps nothing of a failed write", async () => {
    const { call, doubles } = await start();
    const before = doubles.sim.snapshot().services.secrets;
    for (const body of ['{"value":', "[1,2]", '"text"', "null"]) {
      const response = await call("POST", "/items/items/a", { body });
      expect(response.status).toBe(400);
      expect((await response.json()).errors[0]).toMatch(/^failed to parse JSON input: /);
    }
    for (const [body, message] of [
      ['{"value":', "failed to parse JSON input: unexpected EOF"],
      ['{"value": x}', "failed to parse JSON input: invalid character 'x' looking for beginning of value"],
    ] as const) {
      const response = await call("POST", "/items/items/a", { body });
      expect((await response.json()).errors).toEqual([message]); // Go's encoding/json wording
    }
    const invalid = await call("POST", "/items/items/a", { body: { nothing: 1 } });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ errors: ["missing value"] });
    expect(doubles.sim.snapshot().services.secrets).toEqual(before);
  });

  it("parses the body before the token, and refuses an unknown namespace header", async () => {
    const { call } = await start();
    const malformed = await call("POST", "/items/items/a", { body: "{", headers: { "x-secrets-token": "" } });
    expect(malformed.status).toBe(400);
    const ghost = await call("GET", "/items/items/a", { headers: { "x-secrets-namespace": "ghost" } });
    expect(ghost.status).toBe(404);
    expect(await ghost.json()).toEqual({ errors: ['no handler for route "items/items/a". route entry not found.'] });
  });

  it("lets root-namespace tokens act in child namespaces with prefixed policy paths, not the reverse", async () => {
    const { call, controls } = await start();
    controls.createNamespace("ns1");
    controls.mount("ns1/items", "items");
    controls.createPolicy("ns1-reader", { "ns1/items/items/*": ["read", "create"] });
    const rootNs = { "x-secrets-token": controls.createToken({ policies: ["ns1-reader"] }).token };
    expect((await call("POST", "/ns1/items/items/a", { body: { value: "v" }, headers: rootNs })).status).toBe(204);
    expect((await call("GET", "/items/items/a", { headers: { ...rootNs, "x-secrets-namespace": "ns1" } })).status).toBe(200);
    controls.createPolicy("local", { "items/items/*": ["read"] });
    const child = { "x-secrets-token": controls.createToken({ policies: ["local"], namespace: "ns1" }).token };
    expect((await call("GET", "/ns1/items/items/a", { headers: child })).status).toBe(200);
    expect((await call("GET", "/items/items/a", { headers: child })).status).toBe(403);
  });

  it("reads query parameters as the data of GET requests, and only the body for writes", async () => {
    const { call } = await start();
    expect((await (await call("GET", "/items/echo?a=1&b=x&b=y")).json()).data).toEqual({ a: "1", b: ["x", "y"] });
    expect((await (await call("GET", "/items/echo?list=true&c=1")).json()).data).toEqual({ keys: ["c"] });
    expect((await (await call("POST", "/items/echo?a=1", { body: { z: true } })).json()).data).toEqual({ z: true });
    expect((await (await call("POST", "/items/echo?a=1")).json()).data).toEqual({});
  });
});

describeEachTransport("secrets: leases", (t) => {
  const start = async () => {
    const started = await t.start([itemsPlugin()]);
    const base = started.base("secrets");
    const controls = started.doubles.controlsOf<SecretsScenario>("secrets");
    const call = (method: string, path: string, body?: unknown, token = "root-token") =>
      fetch(`${base}${path}`, { method, headers: { "x-secrets-token": token, ...json }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const mount = () => controls.readMount<ItemsState, ItemsState>("items", (c) => structuredClone(c.mount));
    return { ...started, controls, call, mount };
  };

  it("issues leases with ids under the mount and ends them on the simulator clock", async () => {
    const { call, doubles, mount } = await start();
    const body = await (await call("POST", "/items/lease/a", { ttl: "10m" })).json();
    expect(body.lease_id).toMatch(/^items\/lease\/a\/[0-9A-Za-z]{24}$/);
    expect(body.lease_duration).toBe(600);
    expect(mount().items.a).toBeDefined();
    doubles.advance(599_999);
    expect(mount().items.a).toBeDefined();
    const lookup = await (await call("PUT", "/sys/leases/lookup", { lease_id: body.lease_id })).json();
    expect(lookup.data).toEqual({
      id: body.lease_id,
      issue_time: "2024-01-01T00:00:00Z",
      expire_time: "2024-01-01T00:10:00Z",
      last_renewal: null,
      renewable: false,
      ttl: 0,
    });
    doubles.advance(1);
    expect(mount().items.a).toBeUndefined();
    expect(mount().ended).toEqual([body.lease_id]);
    const gone = await call("PUT", "/sys/leases/lookup", { lease_id: body.lease_id });
    expect(gone.status).toBe(400);
    expect(await gone.json()).toEqual({ errors: ["invalid lease"] });
  });

  it("renews renewable leases and refuses others", async () => {
    const { call, doubles, mount } = await start();
    const fixed = await (await call("POST", "/items/lease/f", { ttl: "10m" })).json();
    const refused = await call("PUT", "/sys/leases/renew", { lease_id: fixed.lease_id });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ errors: ["lease is not renewable"] });
    const renewable = await (await call("POST", "/items/lease/r", { ttl: "10m", renewable: true })).json();
    doubles.advance("5m");
    const renewed = await call("PUT", "/sys/leases/renew", { lease_id: renewable.lease_id, increment: "1h" });
    expect(renewed.status).toBe(200);
    expect(await renewed.json()).toMatchObject({ lease_id: renewable.lease_id, renewable: true, lease_duration: 3600, data: null });
    doubles.advance("30m");
    expect(mount().items.r).toBeDefined();
    const byPath = await call("PUT", `/sys/leases/renew/${renewable.lease_id}`, { increment: 60 });
    expect(await byPath.json()).toMatchObject({ lease_duration: 60 });
    doubles.advance("61s");
    expect(mount().items.r).toBeUndefined();
    const unknown = await call("PUT", "/sys/leases/renew", { lease_id: "items/lease/x/nope" });
    expect(await unknown.json()).toEqual({ errors: ["lease not found"] });
  });

  it("revokes leases through the body or the path, idempotently", async () => {
    const { call, mount } = await start();
    const a = await (await call("POST", "/items/lease/a", {})).json();
    const b = await (await call("POST", "/items/lease/b", {})).json();
    expect((await call("PUT", "/sys/leases/revoke", { lease_id: a.lease_id })).status).toBe(204);
    expect((await call("PUT", `/sys/leases/revoke/${b.lease_id}`, {})).status).toBe(204);
    expect((await call("PUT", "/sys/leases/revoke", { lease_id: a.lease_id })).status).toBe(204);
    expect(mount().items).toEqual({});
    const missing = await call("PUT", "/sys/leases/revoke", {});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ errors: ["lease_id must be specified"] });
  });

  it("needs update on the lease endpoints (the default policy grants lookup and renew)", async () => {
    const { call, controls } = await start();
    const a = await (await call("POST", "/items/lease/a", {})).json();
    const plain = controls.createToken().token;
    expect((await call("PUT", "/sys/leases/lookup", { lease_id: a.lease_id }, plain)).status).toBe(200);
    expect((await call("PUT", "/sys/leases/revoke", { lease_id: a.lease_id }, plain)).status).toBe(403);
    const bare = controls.createToken({ noDefaultPolicy: true }).token;
    expect((await call("PUT", "/sys/leases/lookup", { lease_id: a.lease_id }, bare)).status).toBe(403);
  });

  it("runs engine moves at their time and drops them when the mount goes away", async () => {
    const { call, doubles, mount, controls } = await start();
    await call("POST", "/items/tick", { after: "1m", by: 2 });
    await call("POST", "/items/tick", { after: "2m", by: 3 });
    doubles.advance("1m");
    expect(mount().ticks).toBe(2);
    controls.unmount("items");
    controls.mount("items", "items");
    doubles.advance("5m");
    expect(mount().ticks).toBe(0);
  });

  it("revokes a mount's leases when it is unmounted", async () => {
    const { call, controls } = await start();
    await call("POST", "/items/lease/a", {});
    expect(controls.leases("items")).toHaveLength(1);
    controls.unmount("items");
    expect(controls.leases()).toEqual([]);
  });
});

describe("secrets: engines mounted elsewhere", () => {
  it("routes to the longest matching mount, also below another mount's name", async () => {
    const { DoublesCore } = await import("../../../src/scenarios/doubles-core.js");
    const doubles = new DoublesCore([itemsPlugin()]);
    const controls = doubles.controlsOf<SecretsScenario>("secrets");
    controls.mount("team-a/items", "items");
    expect(() => controls.mount("items/nested", "items")).toThrow(/path is already in use at items\//);
    expect(() => controls.mount("sys", "items")).toThrow(/cannot mount under sys\//);
    expect(() => controls.mount("x", "nope")).toThrow(/plugin not found/);
    const handle = (method: string, path: string, body?: unknown) =>
      doubles.handler.handle({
        method,
        url: new URL(`https://secrets.test/v1${path}`),
        headers: { "x-secrets-token": "root-token", "content-type": "application/json" },
        body: new TextEncoder().encode(body === undefined ? "" : JSON.stringify(body)),
      });
    expect((await handle("POST", "/team-a/items/items/k", { value: "team" })).status).toBe(204);
    expect((await handle("GET", "/items/items/k")).status).toBe(404);
    const read = await handle("GET", "/team-a/items/items/k");
    expect(JSON.parse(String(read.body)).data).toEqual({ value: "team" });
  });
});
