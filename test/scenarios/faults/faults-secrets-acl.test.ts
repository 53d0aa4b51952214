/**
 * Faults on the secrets and access-control services, through every transport: each service's own
 * error answers byte for byte as it gives them elsewhere (a really sealed node, a really unknown
 * token), standby codes from sys/health only, commit then fail, matching by route template and
 * operation. Issue 10 item 1.
 */
import { describe, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { describeEachTransport, type StartedTransport } from "../../support/transports.js";

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  return { status: response.status, text: await response.text(), headers: response.headers };
}

describeEachTransport("faults: secrets", (h) => {
  const start = async (): Promise<{ t: StartedTransport<Doubles>; base: string; root: Record<string, string> }> => {
    const t = await h.startWith(createDoubles({ seed: 3 }));
    return { t, base: t.base("secrets"), root: { "x-vault-token": t.doubles.secrets.rootToken } };
  };

  it("sealed: the bytes a really sealed node answers, on sys/health and elsewhere", async () => {
    const { t, base, root } = await start();
    const fault = t.doubles.faults.add({ service: "secrets", answer: "sealed" });
    const faultedHealth = await send(`${base}/sys/health`);
    const faultedMounts = await send(`${base}/sys/mounts`, { headers: root });
    fault.remove();
    t.doubles.secrets.setNodeState("sealed");
    const sealedHealth = await send(`${base}/sys/health`);
    const sealedMounts = await send(`${base}/sys/mounts`, { headers: root });
    expect(faultedMounts).toMatchObject({ status: 503, text: '{"errors":["Vault is sealed"]}' });
    expect(faultedMounts.text).toBe(sealedMounts.text);
    expect(faultedHealth.status).toBe(503);
    expect(faultedHealth.text).toBe(sealedHealth.text);
  });

  it("standby and performance standby: sys/health's 429 and 473 (standbyok honoured); other routes pass", async () => {
    const { t, base, root } = await start();
    t.doubles.faults.add({ service: "secrets", answer: "standby", times: 2 });
    expect((await send(`${base}/sys/mounts`, { headers: root })).status).toBe(200);
    expect((await send(`${base}/sys/health`)).status).toBe(429);
    expect((await send(`${base}/sys/health?standbyok=true`)).status).toBe(200);
    t.doubles.faults.clear();
    t.doubles.faults.add({ service: "secrets", route: "GET /sys/health", answer: "performance-standby" });
    const perf = await send(`${base}/sys/health`);
    expect(perf.status).toBe(473);
    expect(JSON.parse(perf.text)).toMatchObject({ standby: true, performance_standby: true, sealed: false });
    expect(() => t.doubles.faults.add({ service: "secrets", route: "GET /sys/mounts", answer: "standby" })).toThrow(
      /gives "standby" only on GET or HEAD \/sys\/health/,
    );
  });

  it("412 index not replicated, 500 internal error, 429 rate limited with Retry-After", async () => {
    const { t, base, root } = await start();
    for (const [answer, status, text] of [
      ["index-not-replicated", 412, '{"errors":["required index state not present"]}'],
      ["internal-error", 500, '{"errors":["internal error"]}'],
      ["rate-limited", 429, '{"errors":["request path \\"sys/mounts\\": rate limit quota exceeded"]}'],
    ] as const) {
      const fault = t.doubles.faults.add({ service: "secrets", route: "GET /sys/mounts", answer, ...(answer === "rate-limited" ? { retryAfter: "3s" } : {}) });
      const answered = await send(`${base}/sys/mounts`, { headers: root });
      expect(answered).toMatchObject({ status, text });
      if (answer === "rate-limited") expect(answered.headers.get("retry-after")).toBe("3");
      fault.remove();
    }
  });

  it("commit then fail: the mount is enabled, the client sees 500", async () => {
    const { t, base, root } = await start();
    t.doubles.faults.add({ service: "secrets", route: "POST /sys/mounts/*path", answer: "internal-error", commit: true });
    const answered = await send(`${base}/sys/mounts/ssh-extra`, { method: "POST", headers: { ...root, "content-type": "application/json" }, body: '{"type":"ssh"}' });
    expect(answered.status).toBe(500);
    expect(t.doubles.secrets.mounts().map((m) => m.path)).toContain("ssh-extra");
  });

  it("a dropped connection on a secrets route", async () => {
    const { t, base, root } = await start();
    t.doubles.faults.add({ service: "secrets", route: "GET /sys/mounts", connection: "hang-up", times: 1 });
    await expect(send(`${base}/sys/mounts`, { headers: root })).rejects.toThrow();
    expect((await send(`${base}/sys/mounts`, { headers: root })).status).toBe(200);
  });
});

describeEachTransport("faults: access control", (h) => {
  const start = async (): Promise<{ t: StartedTransport<Doubles>; base: string; root: Record<string, string> }> => {
    const t = await h.startWith(createDoubles({ seed: 4 }));
    return { t, base: t.base("accessControl"), root: { "x-consul-token": t.doubles.accessControl.bootstrapToken.secretId } };
  };

  it("500 No cluster leader and 429 rate limited, plain text", async () => {
    const { t, base, root } = await start();
    const leader = t.doubles.faults.add({ service: "accessControl", route: "GET /acl/token/self", answer: "no-cluster-leader" });
    expect(await send(`${base}/acl/token/self`, { headers: root })).toMatchObject({ status: 500, text: "No cluster leader" });
    leader.remove();
    t.doubles.faults.add({ service: "accessControl", route: "GET /acl/token/self", answer: "rate-limited" });
    const limited = await send(`${base}/acl/token/self`, { headers: root });
    expect(limited).toMatchObject({ status: 429, text: "rate limit exceeded, try again later" });
    expect(limited.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  });

  it("403 ACL not found: the bytes an unknown token gets", async () => {
    const { t, base, root } = await start();
    const unknown = await send(`${base}/acl/token/self`, { headers: { "x-consul-token": "00000000-0000-4000-8000-00000000abcd" } });
    t.doubles.faults.add({ service: "accessControl", operation: "read own token", answer: "acl-not-found" });
    const faulted = await send(`${base}/acl/token/self`, { headers: root });
    expect(faulted.status).toBe(403);
    expect(faulted.text).toBe(unknown.text);
  });

  it("commit then fail: the token is created, the connection resets", async () => {
    const { t, base, root } = await start();
    const before = t.doubles.accessControl.tokens().length;
    t.doubles.faults.add({ service: "accessControl", operation: "create token", connection: "reset", commit: true });
    await expect(send(`${base}/acl/token`, { method: "PUT", headers: { ...root, "content-type": "application/json" }, body: '{"Description":"ci"}' })).rejects.toThrow();
    expect(t.doubles.accessControl.tokens().length).toBe(before + 1);
    expect(t.doubles.handler.journal.at(-1)).toMatchObject({ status: 0, fault: "fault-1" });
  });
});

describe("faults: bad definitions are refused with a TypeError naming the field", () => {
  const doubles = createDoubles();
  const cases: [string, unknown, RegExp][] = [
    ["no object", "rate-limited", /a fault is an object/],
    ["an unknown field", { service: "runs", answer: "rate-limited", tims: 1 }, /unknown field "tims" \(did you mean "times"\?\)/],
    ["no service", { answer: "rate-limited" }, /"service" is required: one of "runs", "accessControl", "secrets"/],
    ["an unknown service", { service: "vault", answer: "sealed" }, /no service "vault"/],
    ["the kernel's name of a service", { service: "access-control", answer: "rate-limited" }, /no service "access-control" \(did you mean "accessControl"\?\); services: runs, accessControl, secrets/],
    ["an unknown route", { service: "runs", route: "POST /runs/:id/actions/apply", answer: "rate-limited" }, /the runs service has no route "POST \/runs\/:id\/actions\/apply" \(did you mean "POST \/runs\/:run_id\/actions\/apply"\?\)/],
    ["a route with the API prefix", { service: "runs", route: "GET /api/v2/runs/:run_id", answer: "rate-limited" }, /no route "GET \/api\/v2\/runs\/:run_id" \(did you mean "GET \/runs\/:run_id"\?\); routes are written as in the specs/],
    ["a route with a lower-case method", { service: "secrets", route: "get /v1/sys/health", answer: "sealed" }, /no route "get \/v1\/sys\/health" \(did you mean "GET \/sys\/health"\?\)/],
    ["a route of another service", { service: "secrets", route: "GET /acl/token/self", answer: "sealed" }, /the secrets service has no route "GET \/acl\/token\/self"/],
    ["a secrets route on a mount that does not exist", { service: "secrets", route: "POST /ssh-prod/creds/:name", answer: "sealed" }, /no route "POST \/ssh-prod\/creds\/:name" \(did you mean "POST \/ssh\/creds\/:name"\?\)/],
    ["a route without a method", { service: "runs", route: "/api/v2/runs", answer: "rate-limited" }, /no route "\/api\/v2\/runs"/],
    ["a secrets route under another prefix", { service: "secrets", route: "GET /v2/sys/health", answer: "sealed" }, /no route "GET \/v2\/sys\/health" \(did you mean "GET \/sys\/health"\?\)/],
    ["an unknown operation", { service: "runs", operation: "aply run", answer: "rate-limited" }, /no operation "aply run" \(did you mean "apply run"\?\)/],
    ["an unknown secrets operation", { service: "secrets", operation: "reed", answer: "sealed" }, /no operation "reed" \(did you mean "read"\?\); operations: read, list, create-or-update, delete/],
    ["route and operation", { service: "runs", route: "POST /runs", operation: "create run", answer: "rate-limited" }, /not both/],
    ["an unknown answer", { service: "secrets", answer: "rate-limit" }, /no answer "rate-limit" \(answers: sealed, standby/],
    ["answer and connection", { service: "runs", answer: "rate-limited", connection: "reset" }, /"answer" or "connection", not both/],
    ["an unknown connection fault", { service: "runs", connection: "timeout" }, /"connection" must be one of "reset", "hang-up", "no-response"/],
    ["no effect", { service: "runs", times: 1 }, /say what the fault does/],
    ["commit without a failure", { service: "runs", latency: "1s", commit: true }, /"commit": true needs an "answer" or a "connection"/],
    ["times 0", { service: "runs", answer: "unavailable", times: 0 }, /"times" must be a whole number from 1/],
    ["after -1", { service: "runs", answer: "unavailable", after: -1 }, /"after" must be a whole number from 0/],
    ["probability 2", { service: "runs", answer: "unavailable", probability: 2 }, /"probability" must be a number from 0 to 1/],
    ["a latency without a unit", { service: "runs", latency: "600" }, /"latency" must be ms or a duration string/],
    ["retryAfter on another answer", { service: "runs", answer: "unavailable", retryAfter: "1s" }, /"retryAfter" goes with answer "rate-limited"/],
    ["until before from", { service: "runs", answer: "unavailable", from: "1m", until: "30s" }, /"until" must come after "from"/],
    ["a window bound that is no time", { service: "runs", answer: "unavailable", until: "soon" }, /"until" must be a duration after the fault is added/],
  ];
  for (const [name, definition, message] of cases) {
    it(`refuses ${name}`, () => {
      expect(() => doubles.faults.add(definition as never)).toThrow(TypeError);
      expect(() => doubles.faults.add(definition as never)).toThrow(message);
    });
  }

  it("refuses an id in use, and adds nothing for a refused definition", () => {
    const local = createDoubles();
    local.faults.add({ service: "runs", answer: "unavailable", id: "outage" });
    expect(() => local.faults.add({ service: "runs", answer: "unavailable", id: "outage" })).toThrow(/id "outage" is in use/);
    expect(local.faults.list().map((f) => f.id)).toEqual(["outage"]);
  });
});
