/**
 * One vocabulary (issue 22 item 6): service keys `runs`, `accessControl`, `secrets` and routes as
 * the specs write them (`GET /runs/:run_id`, `POST /ssh/creds/:name`: method upper case, no API
 * prefix) everywhere: faults, journal filters, the journal matchers, the testing kit's assertion,
 * `/_sim/faults` and scenario documents. A name that is none of them (the kernel's
 * `access-control`, a prefixed route, a lower-case method, a misspelt operation) is refused with
 * the nearest valid name, never counted 0 or added as a fault that never fires.
 */
import { describe, expect, it } from "vitest";
import { UsageError } from "../../../src/simulator/kernel/errors.js";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { journalMatchers } from "../../../src/scenarios/journal-matchers.js";
import { mountedRoute } from "../../../src/interceptors/vocabulary.js";
import { describeEachTransport } from "../../support/transports.js";

expect.extend(journalMatchers);

describeEachTransport("one vocabulary", (h) => {
  const start = async (): Promise<{ doubles: Doubles; secrets: string; accessControl: string; root: Record<string, string> }> => {
    const t = await h.startWith(createDoubles({ seed: 9 }));
    return { doubles: t.doubles, secrets: t.base("secrets"), accessControl: t.base("accessControl"), root: { "x-vault-token": t.doubles.secrets.rootToken } };
  };

  it("journals service keys: accessControl, not the kernel's access-control", async () => {
    const { doubles, accessControl } = await start();
    expect((await fetch(`${accessControl}/acl/token/self`, { headers: { "x-consul-token": doubles.accessControl.bootstrapToken.secretId } })).status).toBe(200);
    expect(doubles.journal.entries.map((e) => e.service)).toEqual(["accessControl"]);
    expect(doubles.journal.count({ service: "accessControl" })).toBe(1);
  });

  it("a PUT write and a GET ?list=true are counted under the spec's POST and LIST names", async () => {
    const { doubles, secrets, root } = await start();
    const role = '{"key_type":"otp","default_user":"deploy","cidr_list":"10.0.0.0/8"}';
    expect((await fetch(`${secrets}/ssh/roles/otp`, { method: "PUT", headers: root, body: role })).status).toBe(204);
    expect((await fetch(`${secrets}/ssh/roles?list=true`, { headers: root })).status).toBe(200);
    expect(doubles).toHaveReceivedTimes("POST /ssh/roles/:name", 1);
    expect(doubles).toHaveReceivedTimes("LIST /ssh/roles", 1);
    expect(doubles.journal.entries.map((e) => [e.method, e.endpoint])).toEqual([
      ["PUT", "POST /ssh/roles/:name"],
      ["GET", "LIST /ssh/roles"],
    ]);
    expect(() => doubles.journal.filter({ route: "PUT /ssh/roles/:name" as never })).toThrow(/no route "PUT \/ssh\/roles\/:name" \(did you mean "POST \/ssh\/roles\/:name"\?\)/);
  });

  it("a secrets fault by operation: the spec's operation names (read, list, create-or-update, delete)", async () => {
    const { doubles, secrets, root } = await start();
    doubles.faults.add({ service: "secrets", operation: "list", answer: "internal-error", times: 1 });
    expect((await fetch(`${secrets}/sys/mounts`, { headers: root })).status).toBe(200); // a read: untouched
    expect((await fetch(`${secrets}/ssh/roles?list=true`, { headers: root })).status).toBe(500);
    expect(doubles.journal.last()).toMatchObject({ endpoint: "LIST /ssh/roles", operation: "list", fault: "fault-1", matched: true });
  });

  it("an engine on another mount path: its routes carry that path, in faults, the journal and matchers alike", async () => {
    const { doubles, secrets, root } = await start();
    expect((await fetch(`${secrets}/sys/mounts/ssh-prod`, { method: "POST", headers: root, body: '{"type":"ssh"}' })).status).toBe(204);
    const route = mountedRoute("ssh-prod", "POST /ssh/creds/:name");
    expect(route).toBe("POST /ssh-prod/creds/:name");
    doubles.faults.add({ service: "secrets", route, answer: "internal-error", times: 1 });
    const sent = await fetch(`${secrets}/ssh-prod/creds/otp`, { method: "POST", headers: root, body: '{"ip":"10.0.0.5"}' });
    expect(sent.status).toBe(500);
    // The default mount's route is another route: the fault did not touch it.
    expect((await fetch(`${secrets}/ssh/creds/otp`, { method: "POST", headers: root, body: '{"ip":"10.0.0.5"}' })).status).toBe(400);
    expect(doubles).toHaveReceivedTimes(route, 1);
    expect(doubles).toHaveReceivedTimes("POST /ssh/creds/:name", 1);
    expect(doubles.journal.last({ route })).toMatchObject({ route: "/ssh-prod/creds/:name", fault: "fault-1", matched: true });
    expect(doubles).toHaveNoUnmatchedRequests();
    // A mount since removed: its requests can still be counted by the name they were journalled with.
    expect((await fetch(`${secrets}/sys/mounts/ssh-prod`, { method: "DELETE", headers: root })).status).toBe(204);
    expect(doubles).toHaveReceivedTimes(route, 1);
    expect(() => doubles.faults.add({ service: "secrets", route, answer: "sealed" })).toThrow(/no route "POST \/ssh-prod\/creds\/:name" \(did you mean "POST \/ssh\/creds\/:name"\?\)/);
  });
});

describe("one vocabulary: wrong names are refused with the nearest valid one", () => {
  const doubles = createDoubles();

  for (const [title, call, message] of [
    ["a journal filter with the kernel's service name", () => doubles.journal.filter({ service: "access-control" as never }), /no service "access-control" \(did you mean "accessControl"\?\); services: runs, accessControl, secrets/],
    ["a journal filter with the API prefix", () => doubles.journal.count({ route: "GET /api/v2/runs/:run_id" as never }), /no route "GET \/api\/v2\/runs\/:run_id" \(did you mean "GET \/runs\/:run_id"\?\)/],
    ["a template with the API prefix", () => doubles.journal.count({ route: "/v1/sys/health" as never }), /no route template "\/v1\/sys\/health" \(did you mean "\/sys\/health"\?\)/],
    ["a lower-case method", () => doubles.journal.count({ route: "get /v1/sys/health" as never }), /no route "get \/v1\/sys\/health" \(did you mean "GET \/sys\/health"\?\)/],
    ["a route of another service", () => doubles.journal.count({ service: "runs", route: "GET /acl/token/self" }), /the runs service has no route "GET \/acl\/token\/self"/],
    ["a misspelt operation", () => doubles.journal.count({ operation: "aply run" as never }), /no operation "aply run" \(did you mean "apply run"\?\)/],
    ["toHaveReceivedTimes with the prefix", () => expect(doubles).toHaveReceivedTimes("POST /api/v2/runs" as never, 0), /no route "POST \/api\/v2\/runs" \(did you mean "POST \/runs"\?\)/],
    ["toHaveReceived with a misspelt operation", () => expect(doubles).not.toHaveReceived("create tokn" as never), /no operation "create tokn" \(did you mean "create token"\?\)/],
    ["toHaveReceivedInOrder with a prefixed route", () => expect(doubles).not.toHaveReceivedInOrder(["POST /runs", "GET /api/v2/runs/:run_id" as never]), /did you mean "GET \/runs\/:run_id"\?/],
    ["toHaveReceivedWithBody with a prefixed route", () => expect(doubles).not.toHaveReceivedWithBody("PUT /v1/acl/token" as never, {}), /did you mean "PUT \/acl\/token"\?/],
    ["a fault with the prefix", () => doubles.faults.add({ service: "accessControl", route: "GET /v1/acl/token/self" as never, answer: "rate-limited" }), /no route "GET \/v1\/acl\/token\/self" \(did you mean "GET \/acl\/token\/self"\?\)/],
  ] as const) {
    it(`refuses ${title}`, () => {
      expect(call).toThrow(message);
    });
  }

  it("journal filters throw UsageError, faults TypeError", () => {
    expect(() => doubles.journal.filter({ service: "access-control" as never })).toThrow(UsageError);
    expect(() => doubles.faults.add({ service: "access-control" as never, answer: "rate-limited" })).toThrow(TypeError);
  });

  it("/_sim/faults refuses a prefixed route with the nearest name (400)", async () => {
    const local = createDoubles();
    const server = await local.listen();
    try {
      const response = await fetch(`${server.url}/_sim/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ service: "runs", route: "POST /api/v2/runs/:run_id/actions/apply", answer: "rate-limited" }),
      });
      expect(response.status).toBe(400);
      expect(await response.text()).toMatch(/did you mean \\"POST \/runs\/:run_id\/actions\/apply\\"\?/);
      expect(local.faults.list()).toEqual([]);
    } finally {
      await local.close();
    }
  });

  it("a scenario document's fault with the old form is refused at its pointer", () => {
    const local = createDoubles();
    expect(() => local.load({ faults: [{ service: "secrets", route: "GET /v1/sys/health", answer: "sealed" }] })).toThrow(/\/faults\/0\/route: .*did you mean "GET \/sys\/health"\?/);
    expect(() => local.load({ faults: [{ service: "access-control", answer: "rate-limited" }] })).toThrow(/\/faults\/0\/service: .*did you mean "accessControl"\?/);
    expect(local.faults.list()).toEqual([]);
  });
});
