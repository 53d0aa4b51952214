/**
 * The token auth method over HTTP on every transport (issue 23 item 1): lookups, create (children,
 * orphans, the policy subset rule, TTLs, uses), renew bounded by the maximum TTL, revocation of a
 * token with its children, `sys/capabilities-self`, and the real refusals.
 */
import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import type { SecretsScenario } from "../../../src/scenarios/secrets/secrets-scenario.js";
import { itemsPlugin } from "./test-engine.js";

const ROOT = "root-token";
// A parsed JSON answer, read field by field in the assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;

describeEachTransport("secrets: token auth method", (t) => {
  const start = async () => {
    const started = await t.start([itemsPlugin()], { seed: 7, start: Date.UTC(2026, 0, 1) });
    const base = started.base("secrets");
    const controls = started.doubles.controlsOf<SecretsScenario>("secrets");
    const call = async (method: string, path: string, body?: unknown, token: string | null = ROOT) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...(token === null ? {} : { "x-vault-token": token }), ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (text !== "" && !(response.headers.get("content-type") ?? "").includes("json")) throw new Error(`${response.status} ${text}`);
      return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as Body) };
    };
    const create = async (body: Record<string, unknown>, token = ROOT, path = "/auth/token/create") => {
      const answer = await call("POST", path, body, token);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body?.auth as Body;
    };
    return { ...started, controls, call, create };
  };

  it("looks up the root token with GET and POST lookup-self as the real service shapes it", async () => {
    const { call } = await start();
    const get = await call("GET", "/auth/token/lookup-self");
    expect(get.status).toBe(200);
    expect(get.body).toMatchObject({ lease_id: "", renewable: false, lease_duration: 0, wrap_info: null, warnings: null, auth: null });
    expect(Object.keys(get.body?.data)).toEqual(["accessor", "creation_time", "creation_ttl", "display_name", "entity_id", "expire_time", "explicit_max_ttl", "id", "meta", "num_uses", "orphan", "path", "policies", "ttl", "type"]);
    expect(get.body?.data).toMatchObject({
      creation_ttl: 0,
      display_name: "root",
      entity_id: "",
      expire_time: null,
      explicit_max_ttl: 0,
      id: ROOT,
      meta: null,
      num_uses: 0,
      orphan: true,
      policies: ["root"],
      ttl: 0,
      type: "service",
    });
    expect(get.body?.data.accessor).toMatch(/^[0-9A-Za-z]{24}$/);
    const post = await call("POST", "/auth/token/lookup-self", {});
    expect(post.status).toBe(200);
    expect(post.body?.data).toEqual(get.body?.data);
  });

  it("creates a child token with an auth block, and lookup shows its TTL, expiry, path and meta", async () => {
    const { call, create, controls, doubles } = await start();
    controls.createPolicy("web", { "items/items/*": ["read"] });
    const auth = await create({ policies: ["web"], ttl: "1h", meta: { user: "armon" }, display_name: "ci job" });
    expect(Object.keys(auth)).toEqual(["client_token", "accessor", "policies", "token_policies", "metadata", "lease_duration", "renewable", "entity_id", "token_type", "orphan", "mfa_requirement", "num_uses"]);
    expect(auth).toMatchObject({ policies: ["default", "web"], token_policies: ["default", "web"], metadata: { user: "armon" }, lease_duration: 3600, renewable: true, token_type: "service", orphan: false, mfa_requirement: null, num_uses: 0 });
    expect(auth.client_token).toMatch(/^s\.[0-9A-Za-z]{24}$/);
    doubles.advance("10m");
    const looked = await call("GET", "/auth/token/lookup-self", undefined, auth.client_token);
    expect(looked.body?.data).toEqual({
      accessor: auth.accessor,
      creation_time: Date.UTC(2026, 0, 1) / 1000,
      creation_ttl: 3600,
      display_name: "token-ci-job",
      entity_id: "",
      expire_time: "2026-01-01T01:00:00Z",
      explicit_max_ttl: 0,
      id: auth.client_token,
      issue_time: "2026-01-01T00:00:00Z",
      meta: { user: "armon" },
      num_uses: 0,
      orphan: false,
      path: "auth/token/create",
      policies: ["default", "web"],
      renewable: true,
      ttl: 3000,
      type: "service",
    });
    // lookup (root) and lookup-accessor (id hidden) show the same token.
    expect((await call("POST", "/auth/token/lookup", { token: auth.client_token })).body?.data).toEqual(looked.body?.data);
    expect((await call("POST", "/auth/token/lookup-accessor", { accessor: auth.accessor })).body?.data).toEqual({ ...looked.body?.data, id: "" });
    // The child's own default policy: lookup-self yes, lookup of another token no.
    expect((await call("POST", "/auth/token/lookup", { token: ROOT }, auth.client_token)).status).toBe(403);
    // Expiry on the simulator clock.
    doubles.advance("50m");
    expect(await call("GET", "/auth/token/lookup-self", undefined, auth.client_token)).toEqual({ status: 403, body: { errors: ["permission denied"] } });
    expect(await call("POST", "/auth/token/lookup", { token: auth.client_token })).toEqual({ status: 403, body: { errors: ["bad token"] } });
    expect(await call("POST", "/auth/token/lookup-accessor", { accessor: auth.accessor })).toEqual({ status: 400, body: { errors: ["invalid accessor"] } });
  });

  it("limits child policies to the parent's unless root, with the real 400s", async () => {
    const { create, call, controls } = await start();
    controls.createPolicy("web", { "items/items/*": ["read"] });
    controls.createPolicy("creator", { "auth/token/create": ["update"] });
    const parent = await create({ policies: ["web", "creator"] });
    expect(parent.policies).toEqual(["creator", "default", "web"]);
    const child = await create({ policies: ["web"] }, parent.client_token);
    expect(child.policies).toEqual(["default", "web"]);
    const inherited = await create({}, parent.client_token);
    expect(inherited.policies).toEqual(["creator", "default", "web"]);
    expect(await call("POST", "/auth/token/create", { policies: ["admin"] }, parent.client_token)).toEqual({ status: 400, body: { errors: ["child policies must be subset of parent"] } });
    expect(await call("POST", "/auth/token/create", { policies: ["root"] }, parent.client_token)).toEqual({ status: 400, body: { errors: ["child policies must be subset of parent"] } });
    expect(await call("POST", "/auth/token/create", { no_parent: true }, parent.client_token)).toEqual({ status: 400, body: { errors: ["root or sudo privileges required to create orphan token"] } });
    expect(await call("POST", "/auth/token/create", { period: "1h" }, parent.client_token)).toEqual({ status: 400, body: { errors: ["root or sudo privileges required to create periodic token"] } });
    // Root may give any policy; unknown ones are warned about.
    const any = await call("POST", "/auth/token/create", { policies: ["admin"] });
    expect(any.status).toBe(200);
    expect(any.body?.warnings).toEqual(['Policy "admin" does not exist']);
    // Without the create capability: 403.
    const plain = await create({ policies: ["web"] });
    expect(await call("POST", "/auth/token/create", {}, plain.client_token)).toEqual({ status: 403, body: { errors: ["permission denied"] } });
    // Wrong types and bad values: 400 with the real wording.
    expect(await call("POST", "/auth/token/create", { num_uses: "many" })).toEqual({ status: 400, body: { errors: ['error converting input "many" for field "num_uses": cannot parse as int'] } });
    expect(await call("POST", "/auth/token/create", { ttl: "soon" })).toEqual({ status: 400, body: { errors: ['time: invalid duration "soon"'] } });
    expect(await call("POST", "/auth/token/create", { ttl: "-5s" })).toEqual({ status: 400, body: { errors: ["ttl must be positive"] } });
    expect(await call("POST", "/auth/token/create", { num_uses: -1 })).toEqual({ status: 400, body: { errors: ["number of uses cannot be negative"] } });
    expect(await call("POST", "/auth/token/create", { renewable: "maybe" })).toEqual({ status: 400, body: { errors: ['error converting input "maybe" for field "renewable": cannot parse as bool'] } });
    expect(await call("POST", "/auth/token/create", { meta: "x" })).toEqual({ status: 400, body: { errors: ["Error decoding request: 1 error(s) decoding:\n\n* 'meta' expected a map, got 'string'"] } });
  });

  it("revokes a parent's children with it, leaves orphans, and revoke-orphan keeps the children", async () => {
    const { create, call, controls } = await start();
    controls.createPolicy("creator", { "auth/token/create": ["update"] });
    const parent = await create({ policies: ["creator"], ttl: "2h" });
    const child = await create({ ttl: "1h" }, parent.client_token);
    const grandchild = await create({}, child.client_token);
    const orphan = await create({}, ROOT, "/auth/token/create-orphan");
    expect(orphan.orphan).toBe(true);
    const orphanLookup = await call("GET", "/auth/token/lookup-self", undefined, orphan.client_token);
    expect(orphanLookup.body?.data).toMatchObject({ orphan: true, path: "auth/token/create-orphan" });
    const noParent = await create({ no_parent: true });
    expect(noParent.orphan).toBe(true);

    expect((await call("POST", "/auth/token/revoke", { token: parent.client_token })).status).toBe(204);
    for (const token of [parent, child, grandchild]) expect((await call("GET", "/auth/token/lookup-self", undefined, token.client_token)).status).toBe(403);
    expect((await call("GET", "/auth/token/lookup-self", undefined, orphan.client_token)).status).toBe(200);
    // An unknown token: no error, as the real service answers.
    expect((await call("POST", "/auth/token/revoke", { token: "s.unknown" })).status).toBe(204);
    expect(await call("POST", "/auth/token/revoke", {})).toEqual({ status: 400, body: { errors: ["missing token ID"] } });

    const p2 = await create({});
    const c2 = await create({}, p2.client_token);
    expect((await call("POST", "/auth/token/revoke-orphan", { token: p2.client_token })).status).toBe(204);
    expect((await call("GET", "/auth/token/lookup-self", undefined, p2.client_token)).status).toBe(403);
    expect((await call("GET", "/auth/token/lookup-self", undefined, c2.client_token)).body?.data.orphan).toBe(true);
    expect(await call("POST", "/auth/token/revoke-orphan", { token: p2.client_token })).toEqual({ status: 400, body: { errors: ["token to revoke not found"] } });

    const byAccessor = await create({});
    const itsChild = await create({}, byAccessor.client_token);
    expect((await call("POST", "/auth/token/revoke-accessor", { accessor: byAccessor.accessor })).status).toBe(204);
    expect((await call("GET", "/auth/token/lookup-self", undefined, itsChild.client_token)).status).toBe(403);
    expect((await call("POST", "/auth/token/revoke-accessor", { accessor: byAccessor.accessor })).body).toMatchObject({ data: null, warnings: ["No token found with this accessor"] });

    const self = await create({});
    expect((await call("POST", "/auth/token/revoke-self", {}, self.client_token)).status).toBe(204);
    expect((await call("GET", "/auth/token/lookup-self", undefined, self.client_token)).status).toBe(403);
  });

  it("a parent's expiry on the simulator clock ends its children", async () => {
    const { create, call, doubles } = await start();
    const parent = await create({ ttl: "10m" });
    const child = await create({ ttl: "1h" }, parent.client_token);
    doubles.advance("10m");
    expect((await call("GET", "/auth/token/lookup-self", undefined, child.client_token)).status).toBe(403);
  });

  it("renews within the maximum TTL and refuses what cannot be renewed", async () => {
    const { create, call, doubles } = await start();
    const token = await create({ ttl: "1h", explicit_max_ttl: "2h" });
    doubles.advance("30m");
    const renewed = await call("POST", "/auth/token/renew-self", { increment: "1h" }, token.client_token);
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ data: null, warnings: null, auth: { client_token: token.client_token, lease_duration: 3600, renewable: true } });
    doubles.advance("50m");
    const capped = await call("POST", "/auth/token/renew", { token: token.client_token, increment: 7200 });
    expect(capped.body?.auth.lease_duration).toBe(2400);
    expect(capped.body?.warnings).toEqual(['TTL of "2h" exceeded the effective max_ttl of "40m"; TTL value is capped accordingly']);
    const looked = await call("GET", "/auth/token/lookup-self", undefined, token.client_token);
    expect(looked.body?.data).toMatchObject({ ttl: 2400, explicit_max_ttl: 7200, expire_time: "2026-01-01T02:00:00Z", last_renewal: "2026-01-01T01:20:00Z", last_renewal_time: Date.UTC(2026, 0, 1, 1, 20) / 1000 });
    doubles.advance("40m");
    expect((await call("GET", "/auth/token/lookup-self", undefined, token.client_token)).status).toBe(403);

    // A default renewal restores the creation TTL; renew-accessor hides the token.
    const other = await create({ ttl: "1h" });
    doubles.advance("45m");
    const byAccessor = await call("POST", "/auth/token/renew-accessor", { accessor: other.accessor });
    expect(byAccessor.body?.auth).toMatchObject({ client_token: "", accessor: other.accessor, lease_duration: 3600 });

    const fixed = await create({ ttl: "1h", renewable: false });
    expect(fixed.renewable).toBe(false);
    expect(await call("POST", "/auth/token/renew-self", {}, fixed.client_token)).toEqual({ status: 400, body: { errors: ["lease is not renewable"] } });
    expect(await call("POST", "/auth/token/renew-self", {})).toEqual({ status: 400, body: { errors: ["lease is not renewable"] } });
    expect(await call("POST", "/auth/token/renew", { token: "s.unknown" })).toEqual({ status: 400, body: { errors: ["token not found"] } });
  });

  it("periodic tokens renew to their period", async () => {
    const { create, call, doubles } = await start();
    const periodic = await create({ period: "30m", ttl: "5m" });
    expect(periodic.lease_duration).toBe(1800);
    doubles.advance("20m");
    const renewed = await call("POST", "/auth/token/renew-self", { increment: "5h" }, periodic.client_token);
    expect(renewed.body?.auth.lease_duration).toBe(1800);
    expect((await call("GET", "/auth/token/lookup-self", undefined, periodic.client_token)).body?.data).toMatchObject({ period: 1800, ttl: 1800 });
  });

  it("consumes num_uses on every authenticated request and refuses the token after its last use", async () => {
    const { create, call, controls } = await start();
    controls.createPolicy("web", { "items/items/*": ["read", "create", "update"], "auth/token/create": ["update"] });
    const token = await create({ policies: ["web"], num_uses: 3 });
    expect(token.num_uses).toBe(3);
    expect((await call("GET", "/auth/token/lookup-self", undefined, token.client_token)).body?.data.num_uses).toBe(2);
    expect(await call("POST", "/auth/token/create", {}, token.client_token)).toEqual({ status: 400, body: { errors: ["restricted use token cannot generate child tokens"] } });
    // The last use: the lookup still answers (the real one shows -1, revocation pending).
    expect((await call("GET", "/auth/token/lookup-self", undefined, token.client_token)).body?.data.num_uses).toBe(-1);
    expect((await call("GET", "/auth/token/lookup-self", undefined, token.client_token)).status).toBe(403);
    expect((await call("POST", "/auth/token/lookup", { token: token.client_token })).status).toBe(403);
  });

  it("answers sys/capabilities-self from the caller's policies", async () => {
    const { create, call, controls } = await start();
    controls.createPolicy("web", { "items/items/*": ["read", "list"], "items/items/secret": ["deny"] });
    const token = await create({ policies: ["web"] });
    expect((await call("POST", "/sys/capabilities-self", { paths: ["items/items/a"] }, token.client_token)).body?.data).toEqual({ capabilities: ["list", "read"], "items/items/a": ["list", "read"] });
    expect((await call("POST", "/sys/capabilities-self", { paths: ["items/items/secret", "auth/token/lookup-self"] }, token.client_token)).body?.data).toEqual({
      "auth/token/lookup-self": ["read"],
      "items/items/secret": ["deny"],
    });
    expect((await call("POST", "/sys/capabilities-self", { path: "anything" })).body?.data).toEqual({ anything: ["root"], capabilities: ["root"] });
    expect(await call("POST", "/sys/capabilities-self", {})).toEqual({ status: 400, body: { errors: ["paths must be supplied"] } });
    expect(await call("POST", "/sys/capabilities-self", { paths: ["x"] }, "s.unknown")).toEqual({ status: 403, body: { errors: ["permission denied"] } });
  });

  it("refuses a token without the default policy its own lookup, and any call without a token", async () => {
    const { call, controls } = await start();
    const bare = controls.createToken({ noDefaultPolicy: true, policies: ["none"] }).token;
    expect(await call("GET", "/auth/token/lookup-self", undefined, bare)).toEqual({ status: 403, body: { errors: ["permission denied"] } });
    expect(await call("GET", "/auth/token/lookup-self", undefined, null)).toEqual({ status: 403, body: { errors: ["permission denied"] } });
    // Fixture trees: a child fixture ends with its parent's revocation over HTTP; fixture uses count.
    const parent = controls.createToken({ policies: ["none"] });
    const child = controls.createToken({ parent: parent.token, numUses: 2, meta: { team: "ops" } });
    expect((await call("GET", "/auth/token/lookup-self", undefined, child.token)).body?.data).toMatchObject({ orphan: false, num_uses: 1, meta: { team: "ops" } });
    expect((await call("POST", "/auth/token/revoke", { token: parent.token })).status).toBe(204);
    expect((await call("GET", "/auth/token/lookup-self", undefined, child.token)).status).toBe(403);
    expect(() => controls.createToken({ parent: "s.nobody" })).toThrow('parent token "s.nobody" does not exist');
    // A fixture token with a TTL looks up as renewable and is renewed over HTTP.
    const fixture = controls.createToken({ ttl: "1h", policies: ["none"] });
    const looked = await call("GET", "/auth/token/lookup-self", undefined, fixture.token);
    expect(looked.body?.data).toMatchObject({ creation_ttl: 3600, ttl: 3600, renewable: true, orphan: true, path: "auth/token/create", policies: ["default", "none"] });
  });
});
