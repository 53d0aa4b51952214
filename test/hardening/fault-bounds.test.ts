/**
 * A fault whose times or durations no answer could carry (issue 24 item 4: `until: 1e300` answered
 * a bug 500 yet was stored and applied, and `GET /_sim/faults` then answered 500 until every fault
 * was deleted) is refused whole at the door: `doubles.faults.add` throws the `TypeError` naming the
 * field, `POST /_sim/faults` answers the control API's 400, a scenario document names the field's
 * pointer; nothing is stored, health stays 200 and the list keeps answering.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ScenarioDocumentError } from "../../src/scenarios/document/errors.js";
import { parseScenarioText } from "../../src/scenarios/document/parse.js";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";

let doubles: Doubles | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

/** Definitions no answer can carry, with the field each one is refused at. */
const REFUSED: [string, Record<string, unknown>, string][] = [
  ["until 1e300 ms after now", { service: "secrets", answer: "sealed", until: 1e300 }, "until"],
  ["from 1e300 ms after now", { service: "secrets", answer: "sealed", from: 1e300 }, "from"],
  ["until at the last time a Date holds, counted from now", { service: "secrets", answer: "sealed", until: 8.64e15 }, "until"],
  ["latency 1e300 ms", { service: "secrets", latency: 1e300 }, "latency"],
  ["latency longer than any Go duration", { service: "secrets", latency: 9.3e12 }, "latency"],
  ["retryAfter 1e300 ms", { service: "secrets", answer: "rate-limited", retryAfter: 1e300 }, "retryAfter"],
];

describe("fault times and durations an answer cannot carry", () => {
  it.each(REFUSED)("POST /_sim/faults: %s is the control API's 400, stored nowhere", async (_name, definition, field) => {
    doubles = createDoubles({ seed: 3, clock: "manual" });
    const server = await doubles.listen();
    const added = await fetch(`${server.url}/_sim/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(definition) });
    expect(added.status).toBe(400);
    expect(added.headers.get("x-infra-doubles-bug")).toBeNull();
    const body = (await added.json()) as { error: { status: number; code: string; message: string } };
    expect(body.error).toMatchObject({ status: 400, code: "invalid" });
    expect(body.error.message).toContain(`"${field}"`);
    const listed = await fetch(`${server.url}/_sim/faults`);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ faults: [] });
    expect((await fetch(`${server.url}/v1/sys/health`)).status).toBe(200);
  });

  it.each(REFUSED)("doubles.faults.add: %s throws the TypeError naming the field; list() still answers", (_name, definition, field) => {
    doubles = createDoubles({ seed: 3, clock: "manual" });
    const d = doubles;
    expect(() => d.faults.add(definition as never)).toThrow(TypeError);
    expect(() => d.faults.add(definition as never)).toThrow(`"${field}"`);
    expect(d.faults.list()).toEqual([]);
    expect(d.faults.active).toBe(false);
  });

  it.each(REFUSED)("a scenario document: %s is a document error at the field's pointer, nothing loaded", (_name, definition, field) => {
    doubles = createDoubles({ seed: 3, clock: "manual" });
    const d = doubles;
    const text = JSON.stringify({ faults: [{ service: "runs", answer: "unavailable" }, definition] }, null, 2);
    const error = (() => {
      try {
        d.load(parseScenarioText(text, "json") as never);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ScenarioDocumentError);
    expect((error as ScenarioDocumentError).path).toBe(`/faults/1/${field}`);
    expect((error as ScenarioDocumentError).line).toBeGreaterThan(1);
    expect(d.faults.list()).toEqual([]);
  });

  it("a timeline's fault step with until 1e300: a document error at the step's field, the step before it played", () => {
    doubles = createDoubles({ seed: 3, clock: "manual" });
    const loaded = doubles.load({ timeline: [{ advance: "1m" }, { fault: { service: "secrets", answer: "sealed", until: 1e300 } }] } as never);
    expect(() => loaded.play()).toThrow(ScenarioDocumentError);
    expect(() => doubles?.load({ timeline: [{ fault: { service: "secrets", answer: "sealed", until: 1e300 } }] } as never).play()).toThrow(
      expect.objectContaining({ path: "/timeline/0/fault/until" }) as Error,
    );
    expect(doubles.faults.list()).toEqual([]);
  });

  it("the bounds still admit the longest window and waits that can be answered", async () => {
    doubles = createDoubles({ seed: 3, clock: "manual" });
    const server = await doubles.listen();
    const last = new Date(8.64e15);
    doubles.faults.add({ service: "secrets", route: "GET /sys/health", answer: "sealed", until: last, times: 1 });
    doubles.faults.add({ service: "secrets", route: "GET /sys/health", answer: "rate-limited", retryAfter: "2562047h", until: "2562047h", times: 1 });
    expect(doubles.faults.list().map((f) => f.until)).toEqual(["275760-09-13T00:00:00.000Z", "2316-04-11T23:00:00.000Z"]);
    expect((await fetch(`${server.url}/_sim/faults`)).status).toBe(200);
    expect((await fetch(`${server.url}/v1/sys/health`)).status).toBe(503);
    const limited = await fetch(`${server.url}/v1/sys/health`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("9223369200");
  });
});

describe("fixture durations no service could hold", () => {
  it("a secrets token whose ttl is longer than any Go duration is refused at its field, not made unusable", () => {
    doubles = createDoubles({ seed: 3, clock: "manual" });
    const d = doubles;
    expect(() => d.secrets.createToken({ ttl: 1e300 })).toThrow(/not a duration/);
    expect(() => d.load({ secrets: { tokens: [{ name: "a", ttl: 1e300 }] } } as never)).toThrow(expect.objectContaining({ path: "/secrets/tokens/0/ttl" }) as Error);
    expect(() => d.load({ secrets: { tokens: [{ name: "a", ttl: "2562047h" }] } } as never)).not.toThrow();
  });
});
