import { afterEach, describe, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { DoublesCore } from "../../../src/scenarios/doubles-core.js";
import { UsageError } from "../../../src/simulator/kernel/errors.js";
import { buildSecretsDevScenario } from "../../../src/scenarios/secrets/dev-scenario.js";
import { secretsPlugin } from "../../../src/scenarios/secrets/plugin.js";
import type { SecretsScenario } from "../../../src/scenarios/secrets/secrets-scenario.js";

let doubles: Doubles | DoublesCore | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

describe("secrets: the plugin in createDoubles()", () => {
  it("mounts the SSH and cloud engines at /ssh and /cloud with a seeded root token", () => {
    const d = (doubles = createDoubles({ seed: 3 }));
    expect(d.secrets.rootToken).toMatch(/^s\.[0-9A-Za-z]{24}$/);
    expect(d.secrets.mounts().map((m) => [m.path, m.type])).toEqual([
      ["cloud", "cloud"],
      ["ssh", "ssh"],
    ]);
    expect(createDoubles({ seed: 3 }).secrets.rootToken).toBe(d.secrets.rootToken);
  });

  it("intercepts https://secrets.test/v1 through nock by default", async () => {
    const d = (doubles = createDoubles());
    d.intercept();
    const response = await fetch("https://secrets.test/v1/sys/health");
    expect(response.status).toBe(200);
  });

  it("shares /v1 with the access-control service on the server without swallowing /v1/acl", async () => {
    const d = (doubles = createDoubles());
    const server = await d.listen();
    const acl = await fetch(`${server.url}/v1/acl/token/self`);
    expect(acl.headers.get("content-type") ?? "").not.toContain("application/json");
    expect(await acl.text()).not.toContain('"errors"');
    const health = await fetch(`${server.url}/v1/sys/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ initialized: true });
    const roles = await fetch(`${server.url}/v1/ssh/roles?list=true`, { headers: { "x-secrets-token": d.secrets.rootToken } });
    expect(roles.status).toBe(404);
    expect(await roles.json()).toEqual({ errors: [] });
  });

  it("sets the node state through the control API", async () => {
    const d = (doubles = createDoubles());
    const server = await d.listen();
    const set = await fetch(`${server.url}/_sim/secrets/node-state`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ state: "sealed" }) });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ state: "sealed" });
    expect((await fetch(`${server.url}/v1/sys/health`)).status).toBe(503);
    expect(await (await fetch(`${server.url}/_sim/secrets/node-state`)).json()).toEqual({ state: "sealed" });
    const bad = await fetch(`${server.url}/_sim/secrets/node-state`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ state: "asleep" }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/unknown node state "asleep"/);
    expect((await fetch(`${server.url}/_sim/secrets/node-state`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" })).status).toBe(400);
    const unstable = await fetch(`${server.url}/_sim/secrets/node-state`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ state: "performance-standby", unstable: true }) });
    expect(unstable.status).toBe(200);
    expect((await fetch(`${server.url}/v1/sys/health`)).status).toBe(429);
    expect(await (await fetch(`${server.url}/_sim/secrets/root-token`)).json()).toEqual({ token: d.secrets.rootToken });
  });

  it("builds the dev server's default scenario: both engines, otp-role and ca-role, and the cloud roles", async () => {
    const d = (doubles = new DoublesCore([secretsPlugin], { seed: 1 }));
    const controls = d.controlsOf<SecretsScenario>("secrets");
    // the dev server uses the real default (an RSA 4096 CA); ed25519 keeps this test fast
    const banner = buildSecretsDevScenario(controls, "http://127.0.0.1:1/v1", { sshCaKeyType: "ssh-ed25519" });
    expect(banner).toEqual({
      baseUrl: "http://127.0.0.1:1/v1",
      rootToken: controls.rootToken,
      mounts: ["cloud/ (cloud)", "ssh/ (ssh)"],
      sshRoles: ["otp-role", "ca-role"],
      cloudRoles: ["deploy", "assume", "federate"],
    });
    d.intercept();
    const headers = { "x-secrets-token": controls.rootToken };
    const otp = await (await fetch("https://secrets.test/v1/ssh/roles/otp-role", { headers })).json();
    expect(otp.data).toMatchObject({ key_type: "otp", cidr_list: "10.0.0.0/8" });
    const ca = await (await fetch("https://secrets.test/v1/ssh/roles/ca-role", { headers })).json();
    expect(ca.data).toMatchObject({ allow_user_certificates: true });
    expect((await (await fetch("https://secrets.test/v1/ssh/public_key")).text())).toMatch(/^ssh-ed25519 /);
    const cloudRoles = await (await fetch("https://secrets.test/v1/cloud/roles?list=true", { headers })).json();
    expect(cloudRoles.data.keys).toEqual(["assume", "deploy", "federate"]);
    expect(typeof secretsPlugin.defaultScenario).toBe("function");
  });
});

describe("secrets: scenario controls", () => {
  const controls = () => (doubles = new DoublesCore([secretsPlugin])).controlsOf<SecretsScenario>("secrets");

  it("refuses misuse with UsageErrors naming the problem", () => {
    const s = controls();
    expect(() => s.createPolicy("p", { "ssh/*": ["write"] })).toThrow(/unknown capability "write"/);
    expect(() => s.createPolicy("p", { "ssh/*/x": ["read"] })).toThrow(/"\*" is only allowed at the end/);
    expect(() => s.createPolicy("p", "path ssh { }")).toThrow(UsageError);
    expect(() => s.createPolicy("root", {})).toThrow(/built in/);
    expect(() => s.setNodeState("asleep" as never)).toThrow(/unknown node state/);
    expect(() => s.createToken({ id: s.rootToken })).toThrow(/already exists/);
    expect(() => s.createToken({ ttl: "soon" })).toThrow(/not a duration/);
    expect(() => s.addMfaMethod("sms")).toThrow(/unknown MFA method type "sms"/);
    expect(() => s.addMfaMethod("totp", { namespace: "nope" })).toThrow(/no namespace "nope"/);
    expect(() => s.mount("ssh", "ssh")).toThrow(/path is already in use at ssh\//);
    expect(() => s.unmount("nothing")).toThrow(/no matching mount at 'nothing\/'/);
    expect(() => s.readMount("nothing", () => 1)).toThrow(/nothing is mounted at "nothing"/);
    expect(() => s.createNamespace("root")).toThrow(/always exists/);
  });

  it("keeps fixtures in the simulator snapshot and reset", () => {
    const s = controls();
    const token = s.createToken({ policies: ["p"] }).token;
    s.createNamespace("a/b");
    s.setNodeState("standby");
    const snapshot = doubles!.snapshot();
    s.setNodeState("sealed");
    doubles!.restore(snapshot);
    expect(s.nodeState).toBe("standby");
    doubles!.reset();
    expect(s.nodeState).toBe("active");
    expect(s.revokeLease("nope")).toBe(false);
    expect(token).toMatch(/^s\./);
  });
});
