/**
 * What X-Vault-Wrap-TTL wraps (issue 23): answers with a JSON body only, the wrapped token's
 * accessor as `wrapped_accessor`, and an answer that is already a wrapping left alone. The HTTP
 * behaviour on every transport is in sys-routes.test.ts; these answers (an `auth` block) come from
 * routes outside this slice, so the wrapper is checked on them directly.
 */
import { describe, expect, it } from "vitest";
import { json } from "../../../src/interceptors/http.js";
import { requestWrapTtlMs, wrapResponse } from "../../../src/interceptors/secrets/wrap-header.js";
import { Simulator } from "../../../src/simulator/kernel/simulator.js";
import { SECRETS } from "../../../src/simulator/secrets/errors.js";
import { secretsDefinition } from "../../../src/simulator/secrets/service.js";
import type { SecretsState } from "../../../src/simulator/secrets/state.js";

const simulator = () => new Simulator({ seed: 2, services: [secretsDefinition()] });
const wrappings = (sim: Simulator) => sim.read<SecretsState, string[]>(SECRETS, (ctx) => Object.keys(ctx.state.wrappings));

describe("wrapResponse", () => {
  it("names the accessor of a wrapped token (an auth answer) as wrapped_accessor and keeps the body", () => {
    const sim = simulator();
    const original = { request_id: "r-1", lease_id: "", renewable: false, lease_duration: 0, data: null, wrap_info: null, warnings: null, auth: { client_token: "s.child", accessor: "acc-1", policies: ["default"] } };
    const answer = wrapResponse(sim, json(200, original), 60_000, "auth/token/create", "");
    const body = JSON.parse(String(answer.body));
    expect(body).toMatchObject({ request_id: "r-1", data: null, auth: null, wrap_info: { ttl: 60, creation_path: "auth/token/create", wrapped_accessor: "acc-1" } });
    const kept = sim.read<SecretsState, string | undefined>(SECRETS, (ctx) => ctx.state.wrappings[body.wrap_info.token]?.body);
    expect(JSON.parse(kept ?? "null")).toEqual(original);
  });

  it("passes 204s, errors, non-JSON answers and answers that already carry wrap_info unchanged, keeping nothing", () => {
    const sim = simulator();
    const passing = [
      { status: 204, headers: {} },
      json(400, { errors: ["bad"] }),
      { status: 200, headers: { "content-type": "text/plain" }, body: "ssh-ed25519 AAAA" },
      json(200, { request_id: "r", data: null, wrap_info: { token: "s.x" } }),
    ];
    for (const response of passing) expect(wrapResponse(sim, response, 60_000, "x", "")).toBe(response);
    expect(wrappings(sim)).toEqual([]);
  });
});

describe("requestWrapTtlMs", () => {
  const request = (headers: Record<string, string>) => ({ method: "GET", url: new URL("https://secrets.test/v1/x"), headers, body: new Uint8Array() }) as never;
  it("reads seconds and Go durations under either header name, the spec-style one first", () => {
    expect(requestWrapTtlMs(request({ "x-vault-wrap-ttl": "90" }))).toBe(90_000);
    expect(requestWrapTtlMs(request({ "x-vault-wrap-ttl": "1h30m" }))).toBe(5_400_000);
    expect(requestWrapTtlMs(request({ "x-vault-wrap-ttl": "90", "x-secrets-wrap-ttl": "2m" }))).toBe(120_000);
    expect(requestWrapTtlMs(request({ "x-vault-wrap-ttl": "0" }))).toBeUndefined();
    expect(requestWrapTtlMs(request({}))).toBeUndefined();
  });
});
