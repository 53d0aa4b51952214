import { UsageError } from "../../../src/simulator/kernel/errors.js";
import { describe, expect, it } from "vitest";
import { DEV_AUTH_METHOD, DEV_BEARER_TOKEN, accessControlPlugin } from "../../../src/scenarios/access-control/index.js";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { DoublesCore } from "../../../src/scenarios/doubles-core.js";
import { AccessControlScenario } from "../../../src/scenarios/access-control/scenario.js";
import { describeEachTransport } from "../../support/transports.js";

describe("access-control scenario controls", () => {
  it("is reachable as doubles.accessControl with the bootstrap and anonymous tokens", () => {
    const doubles = createDoubles({ seed: 5 });
    const acl = doubles.accessControl;
    expect(acl).toBeInstanceOf(AccessControlScenario);
    expect(acl.anonymousToken).toEqual({ accessorId: "00000000-0000-0000-0000-000000000002", secretId: "anonymous" });
    expect(acl.access(acl.bootstrapToken.secretId)).toBe("write");
    expect(acl.access("anonymous")).toBe("none");
    expect(doubles.baseUrls().accessControl).toEqual({ api: "https://access-control.test/v1" });
    expect(accessControlPlugin.serverBases("http://127.0.0.1:1")).toEqual({ api: "http://127.0.0.1:1/v1" });
  });

  it("creates tokens with names, duration strings and instants, and reads them back", () => {
    const doubles = createDoubles();
    const acl = doubles.accessControl;
    acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
    const reader = acl.createToken({ description: "r", policies: ["acl-read"], serviceIdentities: ["web"], expirationTtl: "90m" });
    expect(reader.expirationTime).toBe(Date.UTC(2024, 0, 1, 1, 30));
    expect(acl.access(reader.secretId)).toBe("read");
    const pinned = acl.createToken({ expirationTime: "2024-01-01T02:00:00Z" });
    expect(acl.token(pinned.accessorId)?.expirationTime).toBe(Date.UTC(2024, 0, 1, 2));
    doubles.advance(90 * 60_000 - 1);
    expect(acl.access(reader.secretId)).toBe("read");
    doubles.advance(1);
    expect(acl.token(reader.accessorId)).toBeUndefined();
    expect(acl.access(reader.secretId)).toBe("none");
    expect(acl.tokens().map((t) => t.accessorId)).toContain(pinned.accessorId);
  });

  it("logs in without HTTP and reports what rules would bind", () => {
    const acl = createDoubles().accessControl;
    acl.createAuthMethod({ name: "jwt", type: "jwt", claimMappings: { sub: "user" }, maxTokenTtl: "10m" });
    acl.registerBearerToken("jwt", "tok", { sub: "Build-Bot" });
    acl.createBindingRule({ authMethod: "jwt", bindType: "service", bindName: "${value.user}" });
    expect(acl.bindingsFor("jwt", { value: { user: "X" } }).serviceIdentities).toEqual([{ serviceName: "x", datacenters: [] }]);
    const token = acl.login({ authMethod: "jwt", bearerToken: "tok" });
    expect(token.serviceIdentities).toEqual([{ serviceName: "build-bot", datacenters: [] }]);
    expect(acl.logout(token.secretId)).toBe(true);
    expect(acl.revokeBearerToken("jwt", "tok")).toBe(true);
    expect(() => acl.login({ authMethod: "jwt", bearerToken: "tok" })).toThrow(/no known key/);
    expect(() => acl.authMethod("nope")).toThrow(/no auth method "nope"/);
  });

  it("takes initial settings from the plugin and later from configure()", () => {
    const core = new DoublesCore([accessControlPlugin]);
    const acl = core.controlsOf<AccessControlScenario>("accessControl");
    expect(acl.settings.namespaces).toBe(false);
    expect(acl.configure({ namespaces: true, localDatacenter: "eu" }).datacenters).toEqual(["dc1", "eu"]);
    expect(() => acl.configure({ datacenters: ["x"] })).toThrow(/local datacenter "eu"/);
  });
});

describeEachTransport("access-control dev scenario", (t) => {
  it("lets a client log in as the documented identity out of the box", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 2 }));
    const plugin = doubles.registeredPlugins.find((p) => p.key === "accessControl");
    const info = plugin?.defaultScenario?.(doubles.controlsOf("accessControl"), { api: base("accessControl") }) as Record<string, string>;
    expect(info).toMatchObject({ baseUrl: base("accessControl"), loginAuthMethod: DEV_AUTH_METHOD, loginBearerToken: DEV_BEARER_TOKEN });
    const login = await fetch(`${info.baseUrl}/acl/login`, { method: "POST", body: JSON.stringify({ AuthMethod: "dev-method", BearerToken: "dev-bearer-token" }) });
    expect(login.status).toBe(200);
    const token = (await login.json()) as { ServiceIdentities: unknown; SecretID: string };
    expect(token.ServiceIdentities).toEqual([{ ServiceName: "web" }]);
    const list = await fetch(`${info.baseUrl}/acl/tokens`, { headers: { "X-Acl-Token": info.bootstrapSecretId ?? "" } });
    expect(list.status).toBe(200);
    const self = await fetch(`${info.baseUrl}/acl/token/self`, { headers: { "X-Acl-Token": token.SecretID } });
    expect(((await self.json()) as { AccessorID: string }).AccessorID).toBeDefined();
  });

  it("reports a scenario call the service refuses as a UsageError naming the service", () => {
    const doubles = createDoubles({ seed: 1 });
    const acl = doubles.accessControl;
    expect(() => acl.createToken({ expirationTtl: "10s" })).toThrow(UsageError);
    expect(() => acl.createToken({ expirationTtl: "10s" })).toThrow(/^infra-doubles: access-control: /);
  });
});
