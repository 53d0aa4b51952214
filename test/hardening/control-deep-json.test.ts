/**
 * Deep JSON sent to the `/_sim/` control API gets the control API's own 400 `malformed` error, read
 * by the same bounded, non-recursive scanner as the services' bodies (`go-json-syntax.ts`: nesting
 * beyond 10,000 levels is `exceeded max depth`, other errors worded as Go words them, the same on
 * every Node version), never a bug 500,
 * a stack trace or a changed state (issue 8). The control API lives on the local server only.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/interceptors/server.js";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";

let doubles: Doubles | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

async function serve(): Promise<RunningServer> {
  doubles = createDoubles({ seed: 3 });
  return doubles.listen();
}

const post = (url: string, body: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });

const DEEP_VALID = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
const DEEP_UNCLOSED = "[".repeat(20_000);
const DEEP_OBJECTS = `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;

const bodies: [string, (value: string) => string, string][] = [
  ["/faults", (value) => `{"service": "runs", "answer": "unavailable", "route": ${value}}`, "add fault"],
  ["/clock/advance", (value) => `{"by": ${value}}`, "advance clock"],
];

/** Control routes of the services and of scenario documents: every /_sim/ route reads its body so. */
const otherRoutes: string[] = ["/secrets/node-state", "/runs/workspaces", "/scenario"];

describe("deep JSON sent to the control API", () => {
  for (const [path, wrap, action] of bodies) {
    it.each<[string, string, string]>([
      ["100,000 valid levels", DEEP_VALID, "exceeded max depth"],
      ["20,000 unclosed [", DEEP_UNCLOSED, "exceeded max depth"],
      ["20,000 levels of objects", DEEP_OBJECTS, "exceeded max depth"],
      ["an array left open", "[[[", "invalid character '}' looking for beginning of value"],
    ])(`POST /_sim${path}: %s is the control API's 400 malformed`, async (_name, value, message) => {
      const server = await serve();
      const clockBefore = await (await fetch(`${server.url}/_sim/clock`)).text();
      const response = await post(`${server.url}/_sim${path}`, wrap(value));
      const text = await response.text();
      expect(response.status).toBe(400);
      expect(response.headers.get("x-infra-doubles-bug")).toBeNull();
      const body = JSON.parse(text) as { error: { status: number; code: string; message: string } };
      expect(body.error).toMatchObject({ status: 400, code: "malformed" });
      // Too deep: refused before the route reads the body (the route's own action is named otherwise).
      if (message !== "exceeded max depth") expect(body.error.message.startsWith(`_sim: cannot ${action}: `)).toBe(true);
      expect(body.error.message.endsWith(`: ${message}`)).toBe(true);
      expect(text.length).toBeLessThan(400);
      expect(await (await fetch(`${server.url}/_sim/faults`)).json()).toEqual({ faults: [] });
      expect(await (await fetch(`${server.url}/_sim/clock`)).text()).toBe(clockBefore);
    });
  }

  it.each(otherRoutes)("POST /_sim%s: 100,000 levels are the control API's 400 malformed, nothing changed", async (path) => {
    const server = await serve();
    const before = await (await fetch(`${server.url}/_sim/secrets/node-state`)).text();
    const response = await post(`${server.url}/_sim${path}`, `{"state": ${DEEP_VALID}, "name": ${DEEP_VALID}}`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { status: number; code: string; message: string } };
    expect(body.error).toMatchObject({ status: 400, code: "malformed" });
    expect(body.error.message).toMatch(/^_sim: cannot POST\S* \/\S*: the body must be JSON: exceeded max depth$/);
    expect(await (await fetch(`${server.url}/_sim/secrets/node-state`)).text()).toBe(before);
  });
});
