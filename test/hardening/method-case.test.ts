/**
 * Methods are case-sensitive, as in Go's net/http (issue 8, defect 5): a lower-case `delete` or
 * `list` is an unknown method and gets the answer the service gives any unknown method, on every
 * transport, and changes nothing. Who can send one: raw sockets, curl `-X delete`, Go and Python
 * clients, and `fetch` for any method but the six the Fetch standard upper-cases (DELETE, GET,
 * HEAD, OPTIONS, POST, PUT): `fetch(url, { method: "list" })` and `"patch"` go out lower-case.
 * node:http's client upper-cases every method itself, so it cannot send one.
 */
import { expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { describeEachTransport } from "../support/transports.js";
import { rawExchange } from "../interceptors/wire.js";

const ROLE = { key_type: "ca", allow_user_certificates: true, default_user: "ubuntu" };
/** What the secrets service answers to a method it does not know. */
const SECRETS_UNKNOWN_METHOD = [405, '{"errors":[]}'];

describeEachTransport("lower-case methods", (t) => {
  const start = async () => {
    const started = await t.startWith(createDoubles({ seed: 1 }));
    const token = started.doubles.secrets.rootToken;
    const secrets = started.base("secrets");
    const headers = { "x-secrets-token": token, "content-type": "application/json" };
    expect((await fetch(`${secrets}/ssh/roles/web`, { method: "POST", headers, body: JSON.stringify(ROLE) })).status).toBe(204);
    const roleExists = async () => (await fetch(`${secrets}/ssh/roles/web`, { headers })).status === 200;
    return { ...started, token, secrets, headers, roleExists };
  };

  it("fetch `list` is no LIST: the secrets service's unknown-method answer", async () => {
    const { secrets, headers } = await start();
    expect((await fetch(`${secrets}/ssh/roles`, { method: "LIST", headers })).status).toBe(200);
    const lower = await fetch(`${secrets}/ssh/roles`, { method: "list", headers });
    expect([lower.status, await lower.text()]).toEqual(SECRETS_UNKNOWN_METHOD);
  });

  it("fetch `patch` is no PATCH: access control's 405, run orchestration's 404, nothing changed", async () => {
    const { base, doubles } = await start();
    const acl = `${base("accessControl")}/acl/token/00000000-0000-0000-0000-000000000002`;
    const aclHeaders = { "x-acl-token": doubles.accessControl.bootstrapToken.secretId, "content-type": "application/json" };
    const aclLower = await fetch(acl, { method: "patch", headers: aclHeaders, body: "{}" });
    expect([aclLower.status, await aclLower.text()]).toEqual([405, "method patch not allowed"]);
    const admin = doubles.runs.issueSiteAdminToken({ username: "site-admin" });
    const version = doubles.runs.engineVersions()[0];
    const runsUrl = `${base("runs")}/admin/engine-versions/${version?.id}`;
    const body = JSON.stringify({ data: { type: "engine-versions", attributes: { enabled: false } } });
    const runsHeaders = { authorization: `Bearer ${admin}`, "content-type": "application/vnd.api+json" };
    const runsLower = await fetch(runsUrl, { method: "patch", headers: runsHeaders, body });
    expect([runsLower.status, await runsLower.json()]).toEqual([404, { errors: [{ status: "404", title: "not found" }] }]);
    expect(doubles.runs.engineVersions()[0]).toEqual(version);
  });

  it("fetch upper-cases `delete` itself (Fetch standard), so it deletes", async () => {
    const { secrets, headers, roleExists } = await start();
    expect((await fetch(`${secrets}/ssh/roles/web`, { method: "delete", headers })).status).toBe(204);
    expect(await roleExists()).toBe(false);
  });

  it("`delete` and `list` on the wire (the server) are unknown methods and delete nothing", async () => {
    if (t.name !== "server") return; // only a raw socket sends a lower-case DELETE
    const { secrets, token, roleExists } = await start();
    const url = new URL(secrets);
    const head = (method: string, path: string) => Buffer.from(`${method} ${url.pathname}${path} HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: ${token}\r\n\r\n`);
    const { responses } = await rawExchange(Number(url.port), [Buffer.concat([head("delete", "/ssh/roles/web"), head("list", "/ssh/roles")])], ["delete", "list"]);
    expect(responses.map((r) => [r.status, r.body.toString()])).toEqual([SECRETS_UNKNOWN_METHOD, SECRETS_UNKNOWN_METHOD]);
    expect(await roleExists()).toBe(true);
  });
});
