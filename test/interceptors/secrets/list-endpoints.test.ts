/**
 * Every list endpoint of the secrets service core and SSH engine (the cloud engine has its own
 * tests), in every form clients send: the `LIST` method, `GET ?list=<Go boolean>` from fetch and
 * from axios (node:http based), with and without a trailing
 * slash; a bad `list` value is a 400 and an empty list a 404, as FIDELITY.md "Secrets" says.
 */
import axios from "axios";
import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { createSecretsPlugin } from "../../../src/scenarios/secrets/plugin.js";
import type { SecretsScenario } from "../../../src/scenarios/secrets/secrets-scenario.js";
import { sshEngine } from "../../../src/simulator/secrets/ssh/ssh-engine.js";
import { sshHttp } from "../../../src/interceptors/secrets/ssh/ssh-http.js";

const ROOT = "root-token";
const KEYS = {
  pkcs11: { library: "hsm", key_label: "l", mechanism: "0x1041", pin: "1234", slot: "0" },
  kmsa: { access_key: "a", secret_key: "s", key_type: "ECDSA", kms_key: "alias/k" },
  kmsb: { tenant_id: "t", client_id: "c", client_secret: "s", vault_name: "v", key_name: "k", key_type: "RSA-HSM" },
  kmsc: { credentials: "/c", crypto_key: "k", key_ring: "ring", project: "p", region: "r", algorithm: "EC_SIGN_P256_SHA256" },
} as const;

describeEachTransport("secrets: every list endpoint", (t) => {
  const start = async () => {
    const plugin = createSecretsPlugin({ engines: { ssh: sshEngine }, engineHttp: { ssh: sshHttp }, rootToken: ROOT });
    const started = await t.start([plugin], { seed: 7 });
    const base = started.base("secrets");
    const controls = started.doubles.controlsOf<SecretsScenario>("secrets");
    controls.addKeyRing("p", "r", "ring");
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { "x-secrets-token": ROOT, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    return { ...started, base, controls, call };
  };

  /** Each list endpoint, how to fill it with two entries, and the keys it then lists. */
  const fill = async ({ call, controls }: Awaited<ReturnType<typeof start>>): Promise<[string, string[]][]> => {
    const lists: [string, string[]][] = [];
    for (const [type, body] of Object.entries(KEYS)) {
      for (const name of [`${type}-b`, `${type}-a`]) expect((await call("POST", `/sys/managed-keys/${type}/${name}`, body)).status).toBe(204);
      lists.push([`/sys/managed-keys/${type}`, [`${type}-a`, `${type}-b`]]);
    }
    const method = controls.addMfaMethod("totp");
    const accessor = controls.addAuthMount("userpass");
    for (const name of ["e2", "e1"]) {
      expect((await call("POST", `/identity/mfa/login-enforcement/${name}`, { mfa_method_ids: [method], auth_method_accessors: [accessor] })).status).toBe(204);
    }
    lists.push(["/identity/mfa/login-enforcement", ["e1", "e2"]]);
    for (const name of ["r2", "r1"]) expect((await call("POST", `/ssh/roles/${name}`, { key_type: "ca", allow_user_certificates: true })).status).toBe(204);
    lists.push(["/ssh/roles", ["r1", "r2"]]);
    return lists;
  };

  it("answers an empty list with 404 and an empty errors list on every list endpoint", async () => {
    const { call } = await start();
    for (const path of [...Object.keys(KEYS).map((type) => `/sys/managed-keys/${type}`), "/identity/mfa/login-enforcement", "/ssh/roles"]) {
      for (const response of [await call("LIST", path), await call("GET", `${path}?list=true`)]) {
        expect(response.status, path).toBe(404);
        expect(await response.json()).toEqual({ errors: [] });
      }
    }
  });

  it("lists with LIST and GET ?list=<every Go true> from fetch, with or without a trailing slash", async () => {
    const started = await start();
    for (const [path, keys] of await fill(started)) {
      const requests = [
        () => started.call("LIST", path),
        () => started.call("LIST", `${path}/`),
        ...["true", "True", "TRUE", "t", "T", "1"].map((value) => () => started.call("GET", `${path}?list=${value}`)),
        () => started.call("GET", `${path}/?list=true`),
      ];
      for (const request of requests) {
        const response = await request();
        expect(response.status, path).toBe(200);
        expect((await response.json()).data.keys, path).toEqual(keys);
      }
    }
  });

  it("lists through axios (node:http) with GET ?list=true and ?list=1", async () => {
    const started = await start();
    for (const [path, keys] of await fill(started)) {
      for (const list of ["true", "1", "True", "t"]) {
        const response = await axios.get(`${started.base}${path}`, { params: { list }, headers: { "x-secrets-token": ROOT } });
        expect(response.status, `${path} list=${list}`).toBe(200);
        expect(response.data.data.keys, path).toEqual(keys);
      }
    }
  });

  it("refuses a list value Go cannot parse with 400, and reads the path itself for a false one", async () => {
    const started = await start();
    for (const [path] of await fill(started)) {
      for (const value of ["maybe", "yes", "2", "tRuE"]) {
        const response = await started.call("GET", `${path}?list=${value}`);
        expect(response.status, `${path}?list=${value}`).toBe(400);
        expect(await response.json()).toEqual({ errors: [] });
      }
      for (const value of ["false", "0", "f", "F", "FALSE", "False"]) {
        // a read of the collection path itself, which none of these paths answers
        expect((await started.call("GET", `${path}?list=${value}`)).status, `${path}?list=${value}`).toBe(405);
      }
    }
  });
});
