/**
 * A user's own nock, imported (and so activated) before the doubles intercept, stays active and
 * keeps answering after every interception stopped (see nock-deactivation.test.ts for a user who
 * never loads nock).
 */
import http from "node:http";
import nock from "nock";
import { afterAll, expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";

afterAll(() => {
  nock.cleanAll();
});

it("leaves the user's nock active and working after createDoubles/intercept/close cycles", async () => {
  const before = { fetch: globalThis.fetch, request: http.request, clientRequest: http.ClientRequest };
  expect(nock.isActive()).toBe(true);
  nock("https://user.example").persist().get("/ping").reply(200, "pong");
  for (let i = 0; i < 5; i++) {
    const doubles = createDoubles({ seed: i });
    doubles.intercept();
    expect((await fetch(`${doubles.baseUrls().secrets.api}/sys/health`)).status).toBe(200);
    await doubles.close();
  }
  expect(nock.isActive()).toBe(true);
  expect({ fetch: globalThis.fetch, request: http.request, clientRequest: http.ClientRequest }).toEqual(before);
  expect(await (await fetch("https://user.example/ping")).text()).toBe("pong");
});
