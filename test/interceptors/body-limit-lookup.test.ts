/**
 * `handler.maxBodyBytes(url)`, which every transport asks before it reads a request body: it names
 * the service `matchRoute` would name, and never runs the nearest-endpoints search a route miss
 * costs (for a GET URL it asked about POST, so every request paid an edit distance to every route:
 * two thirds of a GET through the interceptors transport, issue 9 item 3).
 */
import { describe, expect, it } from "vitest";
import { createHandler } from "../../src/interceptors/handler.js";
import type { HttpService, Route } from "../../src/interceptors/http.js";
import { matchRoute, mountOf } from "../../src/interceptors/router.js";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { Simulator } from "../../src/simulator/kernel/simulator.js";
import { demoDefinition, demoHttp } from "../support/demo-service.js";

describe("the body-limit lookup", () => {
  it("does not search the nearest endpoints", () => {
    let searches = 0;
    const routes: Route[] = [...demoHttp.routes];
    // The nearest-endpoints search lists every route of the service (`routes.map`); routing itself
    // reads its compiled table, built once.
    Object.defineProperty(routes, "map", {
      value(this: Route[], ...args: Parameters<Route[]["map"]>) {
        searches++;
        return Array.prototype.map.apply(this, args);
      },
    });
    const service: HttpService = { ...demoHttp, routes, bodyLimit: { maxBytes: 64, tooLarge: () => ({ status: 413, headers: {} }) } };
    const sim = new Simulator({ clock: { now: () => 0 }, services: [demoDefinition] });
    const handler = createHandler({ sim, mounts: [{ service, bases: { api: "https://demo.test/api" } }] });
    expect(handler.maxBodyBytes(new URL("https://demo.test/api/things"))).toBe(64); // a POST route: compiles the table
    searches = 0;
    for (const path of ["/api/things/t1", "/api/nothing/here", "/api"]) {
      expect(handler.maxBodyBytes(new URL(`https://demo.test${path}`)), path).toBe(64);
    }
    expect(handler.maxBodyBytes(new URL("https://elsewhere.test/api/things"))).toBeUndefined();
    expect(searches).toBe(0);
  });

  it("names the mount matchRoute names, for every service's routes and misses", () => {
    const doubles = createDoubles({ seed: 1 });
    const { mounts } = doubles.handler;
    const urls = mounts.flatMap(({ service, bases }) =>
      Object.values(bases).flatMap((base) => [
        base,
        `${base}/`,
        `${base}/no/such/endpoint`,
        ...service.routes.map((route) => `${base}${route.path.replace(/[:*]\w+/g, "x1")}`),
      ]),
    );
    urls.push("https://elsewhere.test/api/v2/runs");
    let compared = 0;
    for (const href of urls) {
      const url = new URL(href);
      for (const method of ["GET", "POST", "LIST", "DELETE"]) {
        expect(mountOf(mounts, method, url), `${method} ${href}`).toBe(matchRoute(mounts, method, url)?.mount);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(300);
  });
});
