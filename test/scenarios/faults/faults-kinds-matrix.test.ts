/**
 * Every fault kind on every service, through every transport: latency (the manual clock moves by
 * it), a reset, a hang-up and a request never answered (until the client's timeout), each on one
 * read route per service. Issue 10 item 1.
 */
import type { RouteName } from "../../../src/interceptors/vocabulary.js";
import { expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { describeEachTransport, type StartedTransport } from "../../support/transports.js";
import { nodeRequest } from "../../hardening/node-client.js";

interface Target {
  readonly service: "runs" | "accessControl" | "secrets";
  readonly route: RouteName;
  /** The URL and headers of a read that route answers 200. */
  request(t: StartedTransport<Doubles>): { url: string; headers: Record<string, string> };
}

const TARGETS: readonly Target[] = [
  {
    service: "runs",
    route: "GET /admin/engine-versions",
    request: (t) => ({ url: `${t.base("runs")}/admin/engine-versions`, headers: { authorization: `Bearer ${t.doubles.runs.issueSiteAdminToken({ username: "root" })}` } }),
  },
  {
    service: "accessControl",
    route: "GET /acl/token/self",
    request: (t) => ({ url: `${t.base("accessControl")}/acl/token/self`, headers: { "x-consul-token": t.doubles.accessControl.bootstrapToken.secretId } }),
  },
  {
    service: "secrets",
    route: "GET /sys/mounts",
    request: (t) => ({ url: `${t.base("secrets")}/sys/mounts`, headers: { "x-vault-token": t.doubles.secrets.rootToken } }),
  },
];

describeEachTransport("faults: every kind on every service", (h) => {
  for (const target of TARGETS) {
    it(`${target.service}: latency moves the manual clock, then the answer is the real one`, async () => {
      const t = await h.startWith(createDoubles({ seed: 9 }));
      const { url, headers } = target.request(t);
      t.doubles.faults.add({ service: target.service, route: target.route, latency: "750ms", times: 1 });
      const before = t.doubles.now();
      expect((await fetch(url, { headers })).status).toBe(200);
      expect(t.doubles.now() - before).toBe(750);
      expect((await fetch(url, { headers })).status).toBe(200);
      expect(t.doubles.now() - before).toBe(750);
    });

    for (const connection of ["reset", "hang-up"] as const) {
      it(`${target.service}: ${connection} fails the client's request once`, async () => {
        const t = await h.startWith(createDoubles({ seed: 9 }));
        const { url, headers } = target.request(t);
        t.doubles.faults.add({ service: target.service, route: target.route, connection, times: 1 });
        await expect(fetch(url, { headers })).rejects.toThrow(TypeError);
        expect(t.doubles.handler.journal.at(-1)).toMatchObject({ status: 0, fault: "fault-1" });
        expect((await fetch(url, { headers })).status).toBe(200);
      });
    }

    it(`${target.service}: a node:http client sees a reset as ECONNRESET`, async () => {
      const t = await h.startWith(createDoubles({ seed: 9 }));
      const { url, headers } = target.request(t);
      t.doubles.faults.add({ service: target.service, route: target.route, connection: "reset", times: 1 });
      const failure = await nodeRequest("GET", url, headers).then(
        () => undefined,
        (error: unknown) => error as { code?: string },
      );
      // msw fails a request only with its network error (HttpResponse.error()): no code.
      if (h.name !== "msw") expect(failure?.code).toBe("ECONNRESET");
      else expect(failure).toBeInstanceOf(Error);
      expect((await nodeRequest("GET", url, headers)).status).toBe(200);
    });

    it(`${target.service}: no-response holds the request until the client's timeout`, async () => {
      const t = await h.startWith(createDoubles({ seed: 9 }));
      const { url, headers } = target.request(t);
      t.doubles.faults.add({ service: target.service, route: target.route, connection: "no-response", times: 1 });
      await expect(fetch(url, { headers, signal: AbortSignal.timeout(100) })).rejects.toThrow(/abort|timeout/i);
      expect((await fetch(url, { headers })).status).toBe(200);
    });
  }
});
