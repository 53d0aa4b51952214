/**
 * A faulted request is journalled as the request it was: with its service key, its route in the
 * spec's form and `matched: true`, on every service and every transport, so the journal matchers
 * count a client's retries and the after-test check (`useDoubles()`, `assertNoUnexpectedRequests`)
 * passes. Issue 22 item 2: a secrets fault used to leave the entry without a route (unmatched).
 */
import { describe, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { assertNoUnexpectedRequests, journalMatchers } from "../../../src/scenarios/journal-matchers.js";
import { useDoubles } from "../../../src/scenarios/vitest-entry.js";
import { describeEachTransport } from "../../support/transports.js";

expect.extend(journalMatchers);

/** A client that retries up to 3 attempts while the answer is 5xx/429 or the connection fails. */
async function withRetries(send: () => Promise<Response>): Promise<number> {
  let last = 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const response = await send();
      await response.arrayBuffer();
      last = response.status;
      if (response.status < 429 || (response.status > 429 && response.status < 500)) return last;
    } catch {
      last = 0;
    }
  }
  return last;
}

describeEachTransport("faults: a faulted request is journalled with its route", (h) => {
  const start = async (): Promise<{ doubles: Doubles; base: (key: string) => string }> => {
    const t = await h.startWith(createDoubles({ seed: 5 }));
    return { doubles: t.doubles, base: (key) => t.base(key) };
  };

  for (const [title, fault] of [
    ["a secrets fault on the route", { service: "secrets", route: "POST /ssh/creds/:name", answer: "internal-error", times: 2 }],
    ["a secrets fault on every request", { service: "secrets", answer: "rate-limited", times: 2 }],
    ["a dropped connection on a secrets route", { service: "secrets", route: "POST /ssh/creds/:name", connection: "reset", times: 2 }],
  ] as const) {
    it(`${title}: 3 attempts, 3 entries with the route, all matched`, async () => {
      const { doubles, base } = await start();
      const role = await fetch(`${base("secrets")}/ssh/roles/otp-role`, {
        method: "POST",
        headers: { "x-vault-token": doubles.secrets.rootToken },
        body: '{"key_type":"otp","default_user":"deploy","cidr_list":"10.0.0.0/8"}',
      });
      expect(role.status).toBe(204);
      doubles.journal.clear();
      doubles.faults.add(fault);
      const status = await withRetries(() =>
        fetch(`${base("secrets")}/ssh/creds/otp-role`, {
          method: "POST",
          headers: { "x-vault-token": doubles.secrets.rootToken, "content-type": "application/json" },
          body: '{"ip":"10.0.0.5"}',
        }),
      );
      expect(status).toBe(200);
      const entries = doubles.journal.filter({ service: "secrets" });
      expect(entries.map((e) => [e.route, e.endpoint, e.matched])).toEqual([
        ["/ssh/creds/:name", "POST /ssh/creds/:name", true],
        ["/ssh/creds/:name", "POST /ssh/creds/:name", true],
        ["/ssh/creds/:name", "POST /ssh/creds/:name", true],
      ]);
      expect(entries.map((e) => e.fault)).toEqual(["fault-1", "fault-1", undefined]);
      expect(doubles).toHaveReceivedTimes("POST /ssh/creds/:name", 3);
      expect(doubles).toHaveReceivedTimes({ service: "secrets", route: "POST /ssh/creds/:name", fault: "fault-1" }, 2);
      expect(doubles).toHaveNoUnmatchedRequests();
      expect(() => assertNoUnexpectedRequests(doubles)).not.toThrow();
    });
  }

  it("faults on runs and access control: the same (service keys as the doubles name them)", async () => {
    const { doubles, base } = await start();
    doubles.faults.add({ service: "runs", route: "GET /runs/:run_id", answer: "unavailable", times: 2 });
    doubles.faults.add({ service: "accessControl", route: "GET /acl/token/self", answer: "no-cluster-leader", times: 2 });
    const admin = doubles.runs.issueSiteAdminToken({ username: "root" });
    await withRetries(() => fetch(`${base("runs")}/runs/run-nope`, { headers: { authorization: `Bearer ${admin}` } }));
    await withRetries(() => fetch(`${base("accessControl")}/acl/token/self`, { headers: { "x-consul-token": doubles.accessControl.bootstrapToken.secretId } }));
    expect(doubles).toHaveReceivedTimes("GET /runs/:run_id", 3);
    expect(doubles).toHaveReceivedTimes({ service: "accessControl", route: "GET /acl/token/self" }, 3);
    expect(doubles.journal.filter({ service: "accessControl" })).toHaveLength(3);
    expect(doubles).toHaveNoUnmatchedRequests();
  });
});

for (const transport of ["nock", "interceptors"] as const) {
  describe(`useDoubles' after-test check with a secrets fault (via ${transport})`, () => {
    const doubles = useDoubles({ seed: 5, transport });

    it("passes after a faulted secrets request (the check runs in useDoubles' afterEach)", async () => {
      const d = doubles();
      d.faults.add({ service: "secrets", route: "GET /sys/health", answer: "sealed", times: 1 });
      expect((await fetch(`${d.baseUrls().secrets?.api ?? ""}/sys/health`)).status).toBe(503);
      expect((await fetch(`${d.baseUrls().secrets?.api ?? ""}/sys/health`)).status).toBe(200);
      expect(d).toHaveReceivedTimes("GET /sys/health", 2);
    });
  });
}
