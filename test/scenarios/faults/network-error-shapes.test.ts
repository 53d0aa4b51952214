/**
 * Errors in the shapes Node users already handle (issue 22 item 10): a dropped connection rejects
 * `fetch` as Node's fetch rejects a network failure, `TypeError: fetch failed` whose `cause` carries
 * a `code` (`ECONNRESET` in process; on the real server, what undici reports for a socket the
 * server destroyed), and gives a node:http client an `error` event whose `code` is `ECONNRESET`, on
 * every transport. Before: `TypeError: socket hang up` on nock, msw's `TypeError: Failed to fetch`
 * and an `error` without a code. An unhandled request under `onUnhandledRequest: "error"` rejects
 * the same way (`ECONNREFUSED`: it never left the process), where it rejected with a plain `Error`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { nockModuleName } from "../../../src/interceptors/transports/nock-module.js";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { describeEachTransport } from "../../support/transports.js";
import { nodeRequest } from "../../hardening/node-client.js";

interface Failure {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly cause?: { readonly name?: string; readonly message?: string; readonly code?: string };
}

async function fetchFailure(url: string, headers: Record<string, string> = {}): Promise<Failure | string> {
  try {
    return `answered ${(await fetch(url, { headers })).status}`;
  } catch (error) {
    return error as Failure;
  }
}

async function nodeFailure(url: string, headers: Record<string, string> = {}): Promise<Failure | string> {
  try {
    return `answered ${(await nodeRequest("GET", url, headers)).status}`;
  } catch (error) {
    return error as Failure;
  }
}

describeEachTransport("a dropped connection fails as Node's clients fail", (h) => {
  for (const connection of ["reset", "hang-up"] as const) {
    it(`${connection}: fetch rejects with TypeError "fetch failed" whose cause has a code`, async () => {
      const t = await h.startWith(createDoubles({ seed: 9 }));
      const url = `${t.base("secrets")}/sys/mounts`;
      const headers = { "x-vault-token": t.doubles.secrets.rootToken };
      t.doubles.faults.add({ service: "secrets", route: "GET /sys/mounts", connection, times: 1 });
      const failure = await fetchFailure(url, headers);
      expect(failure).toBeInstanceOf(TypeError);
      expect((failure as Failure).message).toBe("fetch failed");
      const cause = (failure as Failure).cause;
      expect(cause).toBeInstanceOf(Error);
      // The server drops a real socket, and undici names what it saw: a reset (ECONNRESET), or the
      // other side closing before any answer ("other side closed", UND_ERR_SOCKET).
      if (h.name === "server") expect(cause?.code).toBe(connection === "reset" ? "ECONNRESET" : "UND_ERR_SOCKET");
      else expect(cause).toMatchObject({ code: "ECONNRESET", message: connection === "reset" ? "read ECONNRESET" : "socket hang up" });
      expect(await fetchFailure(url, headers)).toBe("answered 200");
    });

    it(`${connection}: a node:http client gets an error event with code ECONNRESET`, async () => {
      const t = await h.startWith(createDoubles({ seed: 9 }));
      const url = `${t.base("secrets")}/sys/mounts`;
      const headers = { "x-vault-token": t.doubles.secrets.rootToken };
      t.doubles.faults.add({ service: "secrets", route: "GET /sys/mounts", connection, times: 1 });
      const failure = await nodeFailure(url, headers);
      expect(failure).toBeInstanceOf(Error);
      expect(failure).not.toBeInstanceOf(TypeError);
      expect((failure as Failure).code).toBe("ECONNRESET");
      // As Node says it for a real socket (the server's drop): "read ECONNRESET" for a reset,
      // "socket hang up" for a close before any answer.
      expect((failure as Failure).message).toBe(connection === "reset" ? "read ECONNRESET" : "socket hang up");
      expect(await nodeFailure(url, headers)).toBe("answered 200");
    });
  }
});

const ELSEWHERE = "https://api.unowned.invalid/v1/thing";

for (const transport of ["nock", "interceptors"] as const) {
  describe(`onUnhandledRequest: "error" fails as a refused connection (via ${transport})`, () => {
    let doubles: Doubles | undefined;
    afterEach(async () => {
      await doubles?.close();
      doubles = undefined;
    });

    it('fetch rejects with TypeError "fetch failed" whose cause has code ECONNREFUSED', async () => {
      doubles = createDoubles({ seed: 1 });
      doubles.intercept({ transport, onUnhandledRequest: "error" });
      const failure = await fetchFailure(ELSEWHERE);
      expect(failure).toBeInstanceOf(TypeError);
      expect((failure as Failure).message).toBe("fetch failed");
      expect((failure as Failure).cause).toBeInstanceOf(Error);
      expect((failure as Failure).cause).toMatchObject({ code: "ECONNREFUSED", message: expect.stringMatching(/^infra-doubles: refused GET https:\/\/api\.unowned\.invalid\/v1\/thing goes to a host no doubles own/) });
    });

    // Under nock 15 (its own socket-level interceptors) only fetch is policed: see
    // docs/decisions/transports.md "nock 14 and nock 15".
    it.skipIf(nockModuleName() !== "nock")("a node:http client gets an error event with code ECONNREFUSED", async () => {
      doubles = createDoubles({ seed: 1 });
      doubles.intercept({ transport, onUnhandledRequest: "error" });
      const failure = await nodeFailure(ELSEWHERE.replace("https:", "http:"));
      expect(failure).toBeInstanceOf(Error);
      expect(failure).not.toBeInstanceOf(TypeError);
      expect(failure).toMatchObject({ code: "ECONNREFUSED", message: expect.stringMatching(/^infra-doubles: refused GET http:\/\/api\.unowned\.invalid\/v1\/thing/) });
    });
  });
}
