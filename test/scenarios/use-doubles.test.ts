/**
 * useDoubles() from infra-doubles/vitest: each test gets its own doubles, intercepting before it
 * and stopped after it; with uniqueOrigins, real concurrent tests (fetch and node:https) in one
 * worker share no state, on the nock and the interceptors transports. The "one live interception
 * per origin" rule stays for identical origins.
 */
import https from "node:https";
import { afterAll, describe, expect, it } from "vitest";
import { assertNoUnexpectedRequests, createDoubles, type Doubles } from "../../src/index.js";
import { useDoubles } from "../../src/scenarios/vitest-entry.js";

function httpsGetJson(url: string, headers: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { headers }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve(JSON.parse(text)));
      })
      .on("error", reject);
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const transport of ["nock", "interceptors"] as const) {
  describe(`useDoubles, concurrent tests (via ${transport})`, () => {
    useDoubles({ seed: 1, transport, uniqueOrigins: true, onUnhandledRequest: "error" });
    const hosts: string[] = [];
    afterAll(() => {
      expect(hosts).toHaveLength(4);
      expect(new Set(hosts).size).toBe(4);
    });

    for (const n of [1, 2, 3, 4]) {
      it.concurrent(`test ${n} has doubles of its own`, async ({ doubles, expect }) => {
        const api = doubles.baseUrls().secrets.api;
        hosts.push(new URL(api).host);
        expect(new URL(api).hostname).toMatch(/^secrets-\d+\.test$/);
        const headers = { "x-vault-token": doubles.secrets.rootToken };
        const mounted = await fetch(`${api}/sys/mounts/ssh-${n}`, { method: "POST", headers, body: JSON.stringify({ type: "ssh" }) });
        expect(mounted.status).toBe(204);
        await pause(5 * (5 - n)); // the others run meanwhile
        const mounts = (await httpsGetJson(`${api}/sys/mounts`, headers)) as { data: Record<string, unknown> };
        const own = Object.keys(mounts.data).filter((path) => path.startsWith("ssh-"));
        expect(own).toEqual([`ssh-${n}/`]);
        expect(doubles.journal.entries.map((e) => `${e.method} ${e.route} ${new URL(e.url).host}`)).toEqual([
          `POST /sys/mounts/*path ${new URL(api).host}`,
          `GET /sys/mounts ${new URL(api).host}`,
        ]);
      });
    }
  });
}

describe("useDoubles, one test at a time", () => {
  const doubles = useDoubles({ seed: 1 });
  let previous: Doubles | undefined;

  it("hands the test its doubles, intercepting on the default origins", async () => {
    previous = doubles();
    expect(doubles().baseUrls().secrets.api).toBe("https://secrets.test/v1");
    expect((await fetch("https://secrets.test/v1/sys/health")).status).toBe(200);
    expect(doubles()).toHaveReceivedTimes("GET /sys/health", 1);
  });

  it("gives the next test fresh doubles (the previous ones were stopped)", async ({ doubles: mine }) => {
    expect(mine).not.toBe(previous);
    expect(doubles()).toBe(mine);
    expect(mine.journal.entries).toEqual([]);
    // The previous test's interception was stopped: this one could start on the same origins.
    expect((await fetch("https://secrets.test/v1/sys/health")).status).toBe(200);
  });
});

describe("the checks around it", () => {
  it("refuses a second live interception of identical origins, and names uniqueOrigins", async () => {
    const first = createDoubles();
    const second = createDoubles();
    first.intercept();
    try {
      expect(() => second.intercept({ transport: "interceptors" })).toThrow(/already intercepted.*createDoubles\(\{ uniqueOrigins: true \}\)/);
      const third = createDoubles({ uniqueOrigins: true });
      third.intercept();
      expect((await fetch(`${third.baseUrls().secrets.api}/sys/health`)).status).toBe(200);
      expect(third.baseUrls().runs).toEqual({
        api: expect.stringMatching(/^https:\/\/app-\d+\.run-orchestration\.test\/api\/v2$/),
        archive: expect.stringMatching(/^https:\/\/archivist-\d+\.run-orchestration\.test$/),
      });
      await third.close();
    } finally {
      await first.close();
    }
    expect(() => createDoubles({ uniqueOrigins: "yes" as never })).toThrow(/"uniqueOrigins" must be true or false/);
  });

  it("assertNoUnexpectedRequests (run by useDoubles after each test) names unmatched and unhandled requests", async () => {
    const doubles = createDoubles({ uniqueOrigins: true });
    doubles.intercept({ onUnhandledRequest: "error" });
    try {
      await fetch(`${doubles.baseUrls().secrets.api}/sys/health`);
      expect(() => assertNoUnexpectedRequests(doubles)).not.toThrow();
      await fetch(`${doubles.baseUrls().runs.api}/no-such-endpoint`);
      await fetch("https://elsewhere.invalid/x").catch(() => undefined);
    } finally {
      await doubles.close();
    }
    expect(() => assertNoUnexpectedRequests(doubles)).toThrow(
      /unexpected requests in this test\n\n1 request matched no endpoint of the services:\n#2 .* GET https:\/\/app-\d+\.run-orchestration\.test\/api\/v2\/no-such-endpoint -> 404[\s\S]*1 request to hosts no doubles own:\n {2}GET https:\/\/elsewhere\.invalid\/x \(failed\)/,
    );
  });
});
