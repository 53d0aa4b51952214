/**
 * onUnhandledRequest on the in-process transports (nock, interceptors): requests to hosts no
 * doubles own are warned about (default), failed, let through or decided per request; owned
 * origins and loopback hosts are never unhandled. A user's own nock interceptors on the doubles'
 * origins answer first on the nock transport whichever is defined first, and are refused loudly on
 * the interceptors transport.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDoubles, type Doubles } from "../../src/index.js";
import "../../src/scenarios/vitest-entry.js";

const ELSEWHERE = "https://api.unowned.invalid/v1/thing";

let doubles: Doubles | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await doubles?.close();
  doubles = undefined;
  nock.cleanAll();
});

/** The error a fetch fails with (its cause), or the response status. */
async function fetchOutcome(url: string): Promise<string> {
  try {
    return String((await fetch(url)).status);
  } catch (error) {
    const cause = (error as { cause?: { message?: string; code?: string } }).cause;
    return `${cause?.code ?? ""} ${cause?.message ?? String(error)}`;
  }
}

function httpOutcome(url: string): Promise<string> {
  return new Promise((resolve) => {
    const request = http.request(url.replace(/^https/, "http"), (response) => {
      response.resume();
      resolve(String(response.statusCode));
    });
    request.on("error", (error: NodeJS.ErrnoException) => resolve(`${error.code ?? ""} ${error.message}`));
    request.end();
  });
}

for (const transport of ["nock", "interceptors"] as const) {
  describe(`onUnhandledRequest (via ${transport})`, () => {
    it('"error" fails requests to hosts no doubles own, in process, and lists them', async () => {
      doubles = createDoubles({ seed: 1 });
      doubles.intercept({ transport, onUnhandledRequest: "error" });
      expect(await fetchOutcome(ELSEWHERE)).toMatch(/infra-doubles: refused GET https:\/\/api\.unowned\.invalid\/v1\/thing goes to a host no doubles own/);
      expect(await httpOutcome(ELSEWHERE)).toMatch(/infra-doubles: refused GET http:\/\/api\.unowned\.invalid\/v1\/thing/);
      expect(doubles.unhandledRequests.map((r) => `${r.action} ${r.method} ${r.url}`)).toEqual([`error GET ${ELSEWHERE}`, "error GET http://api.unowned.invalid/v1/thing"]);
      expect(() => expect(doubles).toHaveNoUnmatchedRequests()).toThrow(/2 requests to hosts no doubles own:\n {2}GET https:\/\/api\.unowned\.invalid\/v1\/thing \(failed\)/);
      // Owned origins are answered as ever.
      expect(await fetchOutcome(`${doubles.baseUrls().secrets.api}/sys/health`)).toBe("200");
      expect(await httpOutcome(`${doubles.baseUrls().secrets.api}/sys/health`.replace("https:", "http:").replace("secrets.test", "secrets.test:443"))).toBe("400");
    });

    it('warns by default, and the request goes to the network ("warn")', async () => {
      doubles = createDoubles({ seed: 1 });
      doubles.intercept({ transport });
      const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
      expect(await fetchOutcome(ELSEWHERE)).toMatch(/^ENOTFOUND /); // it left: DNS answered
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/^infra-doubles: warning: GET https:\/\/api\.unowned\.invalid\/v1\/thing goes to a host no doubles own .*onUnhandledRequest: "warn"/);
      expect(doubles.unhandledRequests.map((r) => r.action)).toEqual(["warn"]);
    });

    it('"bypass" lets it through silently; a function decides per request', async () => {
      doubles = createDoubles({ seed: 1 });
      const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
      const interception = doubles.intercept({ transport, onUnhandledRequest: "bypass" });
      expect(await fetchOutcome(ELSEWHERE)).toMatch(/^ENOTFOUND /);
      expect(warn).not.toHaveBeenCalled();
      expect(doubles.unhandledRequests).toEqual([]);
      interception.stop();
      const seen: string[] = [];
      doubles.intercept({
        transport,
        onUnhandledRequest: (request, print) => {
          seen.push(`${request.method} ${request.url}`);
          if (request.url.includes("/v1/")) print.error();
        },
      });
      expect(await fetchOutcome(ELSEWHERE)).toMatch(/infra-doubles: refused GET/);
      expect(await fetchOutcome("https://api.unowned.invalid/other")).toMatch(/^ENOTFOUND /);
      expect(seen).toEqual([`GET ${ELSEWHERE}`, "GET https://api.unowned.invalid/other"]);
      expect(() => doubles?.intercept({ transport, onUnhandledRequest: "eror" as never })).toThrow(/onUnhandledRequest must be "error", "warn", "bypass" or a function, not "eror"/);
    });

    it("never treats loopback hosts as unhandled (a test's own server)", async () => {
      const server = http.createServer((_request, response) => response.end("local"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      try {
        doubles = createDoubles({ seed: 1 });
        doubles.intercept({ transport, onUnhandledRequest: "error" });
        const { port } = server.address() as AddressInfo;
        expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("local");
        expect(await (await fetch(`http://localhost:${port}/`)).text()).toBe("local");
        expect(doubles.unhandledRequests).toEqual([]);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
}

describe("a user's own nock interceptors on the doubles' origins", () => {
  const health = () => `${createDoubles().baseUrls().secrets.api}/sys/health`;

  it("answer first on the nock transport when defined before intercept()", async () => {
    nock("https://secrets.test").get("/v1/sys/health").reply(418, "mine");
    doubles = createDoubles({ seed: 1 });
    doubles.intercept();
    expect(await fetchOutcome(health())).toBe("418");
    expect(await fetchOutcome(health())).toBe("200"); // used up: the doubles answer again
  });

  it("answer first on the nock transport when defined after intercept()", async () => {
    doubles = createDoubles({ seed: 1 });
    doubles.intercept();
    expect(await fetchOutcome(health())).toBe("200");
    nock("https://secrets.test").get("/v1/sys/health").reply(418, "mine");
    expect(await fetchOutcome(health())).toBe("418");
    expect(await fetchOutcome(health())).toBe("200");
    expect(doubles.journal.count({ route: "GET /sys/health" })).toBe(2); // the mocked call never reached the doubles
  });

  it("are refused on the interceptors transport, whichever comes first", async () => {
    nock("https://secrets.test").get("/v1/sys/health").reply(418, "mine");
    doubles = createDoubles({ seed: 1 });
    expect(() => doubles?.intercept({ transport: "interceptors" })).toThrow(/nock holds interceptors on https:\/\/secrets\.test, which these doubles serve: the "interceptors" transport answers them before nock runs/);
    nock.cleanAll();
    doubles.intercept({ transport: "interceptors" });
    expect(() => nock("https://secrets.test").get("/v1/sys/health").reply(418, "mine")).toThrow(/this nock interceptor is on an origin that live doubles serve/);
    expect(await fetchOutcome(health())).toBe("200");
  });
});
