import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import type { SecretsScenario } from "../../../src/scenarios/secrets/secrets-scenario.js";
import { itemsPlugin } from "./test-engine.js";

describeEachTransport("secrets: mounts over HTTP", (t) => {
  const start = async () => {
    const started = await t.start([itemsPlugin()]);
    const base = started.base("secrets");
    const controls = started.doubles.controlsOf<SecretsScenario>("secrets");
    const call = (method: string, path: string, body?: unknown, token = "root-token") =>
      fetch(`${base}${path}`, { method, headers: { "x-secrets-token": token, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { ...started, controls, call };
  };

  it("enables an engine at another path with allowed_managed_keys, tunes and disables it", async () => {
    const { call, controls } = await start();
    expect((await call("POST", "/sys/mounts/team/items", { type: "items", description: "team items", config: { allowed_managed_keys: ["k1"] } })).status).toBe(204);
    expect(controls.mounts().find((m) => m.path === "team/items")).toEqual({ path: "team/items", type: "items", description: "team items", allowedManagedKeys: ["k1"] });
    const list = (await (await call("GET", "/sys/mounts")).json()).data;
    expect(Object.keys(list)).toEqual(["items/", "team/items/"]);
    expect(list["team/items/"]).toMatchObject({ type: "items", description: "team items", config: { allowed_managed_keys: ["k1"] } });
    expect((await (await call("GET", "/sys/mounts/team/items/tune")).json()).data).toEqual({
      default_lease_ttl: 2764800,
      description: "team items",
      force_no_cache: false,
      max_lease_ttl: 2764800,
      allowed_managed_keys: ["k1"],
    });
    expect((await call("POST", "/sys/mounts/team/items/tune", { allowed_managed_keys: "k1,k2" })).status).toBe(204);
    expect(controls.mounts().find((m) => m.path === "team/items")?.allowedManagedKeys).toEqual(["k1", "k2"]);
    expect((await call("POST", "/team/items/items/a", { value: "v" })).status).toBe(204);
    expect((await call("DELETE", "/sys/mounts/team/items")).status).toBe(204);
    expect((await call("GET", "/team/items/items/a")).status).toBe(404);
    expect((await call("DELETE", "/sys/mounts/team/items")).status).toBe(204);
  });

  it("refuses bad mounts with 400 and needs sudo to enable or disable", async () => {
    const { call, controls } = await start();
    expect(await (await call("POST", "/sys/mounts/items", { type: "items" })).json()).toEqual({ errors: ["path is already in use at items/"] });
    expect(await (await call("POST", "/sys/mounts/x", {})).json()).toEqual({ errors: ["type must be specified"] });
    expect(await (await call("POST", "/sys/mounts/x", { type: "kv" })).json()).toEqual({ errors: ["plugin not found in the catalog: kv"] });
    expect(await (await call("GET", "/sys/mounts/nope/tune")).json()).toEqual({ errors: ['cannot fetch sysview for path "nope/"'] });
    controls.createPolicy("mounter", { "sys/mounts/*": ["create", "update", "delete", "read"] });
    const token = controls.createToken({ policies: ["mounter"] }).token;
    expect((await call("POST", "/sys/mounts/y", { type: "items" }, token)).status).toBe(403);
    expect((await call("POST", "/sys/mounts/items/tune", { allowed_managed_keys: ["a"] }, token)).status).toBe(204);
    // Regression: a mount path merely ending in "tune" was taken for a tune and needed no sudo.
    expect((await call("POST", "/sys/mounts/fortune", { type: "items" }, token)).status).toBe(403);
    expect((await call("DELETE", "/sys/mounts/items", undefined, token)).status).toBe(403);
    expect(controls.mounts().map((m) => m.path)).toEqual(["items"]);
    controls.createPolicy("mounter", { "sys/mounts/*": ["create", "update", "delete", "read", "sudo"] });
    expect((await call("POST", "/sys/mounts/y", { type: "items" }, token)).status).toBe(204);
    expect((await call("DELETE", "/sys/mounts/y", undefined, token)).status).toBe(204);
  });
});
