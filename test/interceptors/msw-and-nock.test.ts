/**
 * msw and nock in one process (issue 22 item 4): a suite with msw's `setupServer` for its own
 * hosts and the doubles on the nock transport. Before the fix, closing msw's server before the
 * nock interception stopped broke the next `intercept()` (its requests went to the real network:
 * `getaddrinfo ENOTFOUND secrets.test`), and requests msw answered were listed as unhandled by the
 * doubles. Requests to the doubles' own origins and requests no one answered are the doubles'
 * business; a request msw answered is not.
 *
 * The causes: nock 14 disposes never-applied interceptors on load and in `nock.restore()`, which
 * deleted the running (msw's) instance's global symbol, so nock applied a second layer over msw's;
 * an instance that had reused msw's forwarded its listeners to msw's dead instance once msw closed;
 * and msw joining the doubles' instance after `intercept()` put its listener after the doubles'
 * unhandled-request listener. See dispose-guard.ts and engine.ts (keepLast).
 */
import { http as mswHttp, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterEach, describe, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";
import { nodeRequest } from "../hardening/node-client.js";
import "../../src/scenarios/vitest-entry.js";

const OTHER = "https://other-api.test/v1/thing";

let doubles: Doubles | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

function mswServer() {
  return setupServer(mswHttp.get(OTHER, () => HttpResponse.json({ from: "msw" })));
}

for (const order of ["msw first", "doubles first"] as const) {
  describe(`msw's setupServer and doubles.intercept() in one process (${order})`, () => {
    it("closing msw before the interception stops leaves the next intercept() working", async () => {
      doubles = createDoubles({ seed: 1 });
      const server = mswServer();
      let interception;
      if (order === "msw first") {
        server.listen({ onUnhandledRequest: "bypass" });
        interception = doubles.intercept({ onUnhandledRequest: "error" });
      } else {
        interception = doubles.intercept({ onUnhandledRequest: "error" });
        server.listen({ onUnhandledRequest: "bypass" });
      }
      const health = `${doubles.baseUrls().secrets.api}/sys/health`;
      expect((await fetch(health)).status).toBe(200);
      expect(await (await fetch(OTHER)).json()).toEqual({ from: "msw" });
      expect((await nodeRequest("GET", OTHER)).status).toBe(200);
      server.close();
      interception.stop();
      using _next = doubles.intercept({ onUnhandledRequest: "error" });
      expect((await fetch(health)).status).toBe(200);
      expect((await nodeRequest("GET", health)).status).toBe(200);
      // msw is closed: the other host is unhandled now, and refused in process.
      await expect(fetch(OTHER)).rejects.toThrow("fetch failed");
    });

    it("does not list requests msw answered as unhandled", async () => {
      doubles = createDoubles({ seed: 1 });
      const server = mswServer();
      let interception;
      if (order === "msw first") {
        server.listen({ onUnhandledRequest: "bypass" });
        interception = doubles.intercept({ onUnhandledRequest: "error" });
      } else {
        interception = doubles.intercept({ onUnhandledRequest: "error" });
        server.listen({ onUnhandledRequest: "bypass" });
      }
      try {
        expect(await (await fetch(OTHER)).json()).toEqual({ from: "msw" });
        expect((await nodeRequest("GET", OTHER)).status).toBe(200);
        expect(doubles.unhandledRequests).toEqual([]);
        expect(doubles).toHaveNoUnmatchedRequests();
      } finally {
        server.close();
        interception.stop();
      }
    });
  });
}
