/**
 * Names a client chooses that are also the names of `Object.prototype`'s members (`__proto__`,
 * `constructor`, `toString`, ...) are ordinary names to the real services: a role, a policy, a
 * mount, a namespace or a token may be called `constructor`. Every stored collection looks them up
 * as its own entries, never as inherited members: no request answers 500, nothing reaches
 * `Object.prototype`, and a resource created under such a name reads back like any other.
 *
 * The sweep sends every endpoint of every service (privileged token, plausible body) with every
 * path parameter set to each such name, and the token and namespace headers set to them, through
 * the transport-free handler; one HTTP round trip per transport checks the wire.
 */
import { afterEach, expect, it } from "vitest";
import { endpointsOf, template, type Endpoint } from "../fuzz/harness/generate.js";
import { Prng } from "../fuzz/harness/prng.js";
import { buildWorld, type World } from "../fuzz/harness/world.js";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { describeEachTransport } from "../support/transports.js";

const NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__", "isPrototypeOf", "prototype"] as const;
const AUTH = { runs: "authorization", accessControl: "x-acl-token", secrets: "x-secrets-token" } as const;
const NAMESPACE = { accessControl: "x-acl-namespace", secrets: "x-secrets-namespace" } as const;
const enc = new TextEncoder();
const prototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort().join(",");
const pristine = prototypeKeys();

afterEach(() => {
  expect(prototypeKeys()).toBe(pristine);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

function privileged(world: World, service: keyof typeof AUTH): string {
  const token = world.ids.tokens[service].privileged[0] ?? "";
  return service === "runs" ? `Bearer ${token}` : token;
}

async function send(world: World, e: Endpoint, path: string, headers: Record<string, string>, json: unknown) {
  const bases = world.doubles.baseUrls() as unknown as Record<string, Record<string, string>>;
  const body = json === undefined ? new Uint8Array() : enc.encode(JSON.stringify(json));
  const response = await world.doubles.handler.handle({ method: e.method, url: new URL(`${bases[e.service]?.[e.base] ?? ""}${path}`), headers, body });
  const text = typeof response.body === "string" ? response.body : response.body === undefined ? "" : new TextDecoder().decode(response.body as Uint8Array);
  return { status: response.status, text };
}

function fill(pattern: string, name: string): string {
  return pattern
    .split("/")
    .map((segment) => (segment.startsWith(":") || segment.startsWith("*") ? encodeURIComponent(name) : segment))
    .join("/");
}

it("answers every endpoint with a prototype member's name in each path parameter, never with a 500", async () => {
  const world = await buildWorld(1);
  world.doubles.secrets.createNamespace("undefined");
  const failures: string[] = [];
  for (const e of endpointsOf(world.doubles)) {
    if (!e.pattern.includes(":") && !e.pattern.includes("*")) continue;
    for (const name of NAMES) {
      const path = fill(e.pattern, name);
      const writes = !["GET", "HEAD", "LIST", "DELETE"].includes(e.method);
      const json = writes ? template(e, world.ids, new Prng(1, 0)) : undefined;
      const headers: Record<string, string> = { [AUTH[e.service]]: privileged(world, e.service) };
      if (writes) headers["content-type"] = e.service === "runs" ? "application/vnd.api+json" : "application/json";
      const { status, text } = await send(world, e, path, headers, json);
      if (status >= 500 && /internal error/.test(text)) failures.push(`${e.method} ${path} -> ${status} ${text.slice(0, 160)}`);
    }
  }
  expect(failures).toEqual([]);
}, 120_000);

it("treats a token or namespace header carrying a prototype member's name as an unknown one (403 or 404, never 500)", async () => {
  const world = await buildWorld(1);
  world.doubles.secrets.createNamespace("undefined");
  const failures: string[] = [];
  const probes: [Endpoint, string][] = [
    [{ service: "secrets", base: "api", method: "GET", pattern: "/sys/mounts" }, "/sys/mounts"],
    [{ service: "secrets", base: "api", method: "GET", pattern: "/auth/token/lookup-self" }, "/auth/token/lookup-self"],
    [{ service: "accessControl", base: "api", method: "GET", pattern: "/acl/tokens" }, "/acl/tokens"],
    [{ service: "accessControl", base: "api", method: "GET", pattern: "/acl/token/self" }, "/acl/token/self"],
    [{ service: "runs", base: "api", method: "GET", pattern: "/organizations/demo-org/workspaces" }, "/organizations/demo-org/workspaces"],
  ];
  for (const [e, path] of probes) {
    for (const name of NAMES) {
      const token = e.service === "runs" ? `Bearer ${name}` : name;
      const namespaces = e.service === "runs" ? [undefined] : [undefined, "undefined", "undefined/", name];
      for (const namespace of namespaces) {
        const headers: Record<string, string> = { [AUTH[e.service]]: token };
        if (namespace !== undefined && e.service !== "runs") headers[NAMESPACE[e.service]] = namespace;
        const { status, text } = await send(world, e, path, headers, undefined);
        if (![400, 401, 403, 404].includes(status) || /internal error/.test(text)) failures.push(`${e.service} ${path} token=${name} ns=${String(namespace)} -> ${status} ${text.slice(0, 160)}`);
      }
      const authorised: Record<string, string> = { [AUTH[e.service]]: privileged(world, e.service) };
      if (e.service !== "runs") authorised[NAMESPACE[e.service]] = name;
      const { status, text } = await send(world, e, path, authorised, undefined);
      if (status >= 500 && /internal error/.test(text)) failures.push(`${e.service} ${path} namespace=${name} -> ${status} ${text.slice(0, 160)}`);
    }
  }
  expect(failures).toEqual([]);
}, 60_000);

describeEachTransport("resources named like prototype members", (t) => {
  it("stores, reads back and lists an SSH role, a policy granting it and a mount named constructor and __proto__", async () => {
    const { base, doubles } = await t.startWith(createDoubles({ seed: 1 }));
    const token = doubles.secrets.rootToken;
    const headers = { "x-secrets-token": token, "content-type": "application/json" };
    const api = base("secrets");
    expect((await fetch(`${api}/sys/mounts/names`, { method: "POST", headers, body: JSON.stringify({ type: "ssh" }) })).status).toBe(204);
    for (const name of ["constructor", "__proto__"]) {
      const put = await fetch(`${api}/names/roles/${name}`, { method: "POST", headers, body: JSON.stringify({ key_type: "otp", default_user: "ubuntu", cidr_list: "10.0.0.0/8" }) });
      expect(put.status).toBe(204);
      const read = await fetch(`${api}/names/roles/${name}`, { headers });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { data: { default_user: string } }).data.default_user).toBe("ubuntu");
      doubles.secrets.createPolicy(name, 'path "names/*" { capabilities = ["read", "list"] }');
      const holder = doubles.secrets.createToken({ policies: [name] }).token;
      expect((await fetch(`${api}/names/roles/${name}`, { headers: { "x-secrets-token": holder } })).status).toBe(200);
      expect((await fetch(`${api}/sys/mounts/${name}`, { method: "POST", headers, body: JSON.stringify({ type: "ssh" }) })).status).toBe(204);
    }
    const list = await fetch(`${api}/names/roles?list=true`, { headers });
    expect(((await list.json()) as { data: { keys: string[] } }).data.keys).toEqual(expect.arrayContaining(["constructor", "__proto__"]));
    const mounts = ((await (await fetch(`${api}/sys/mounts`, { headers })).json()) as { data: Record<string, unknown> }).data;
    expect(Object.keys(mounts)).toEqual(expect.arrayContaining(["constructor/", "__proto__/"]));
    expect((await fetch(`${api}/names/roles/toString`, { headers })).status).toBe(404);
  });
});
