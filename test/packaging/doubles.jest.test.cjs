// The Jest pattern of docs/guides/run-tests-concurrently.md, run in the packaging consumer under
// Jest (.ci/run copies test/packaging/*.jest.test.cjs there): the journal matchers through
// expect.extend(journalMatchers), fresh doubles per test with assertNoUnexpectedRequests after it,
// and test.concurrent with doubles of their own (uniqueOrigins) created inside each test (Jest runs
// no beforeEach per concurrent test).
/* global require, describe, test, expect, beforeEach, afterEach */
/* eslint-disable @typescript-eslint/no-require-imports */
const https = require("node:https");
const { assertNoUnexpectedRequests, createDoubles, journalMatchers } = require("infra-doubles");

expect.extend(journalMatchers);

/** Runs `body` with doubles of its own, intercepting; checks for unexpected requests after it. */
async function withDoubles(options, body) {
  const doubles = createDoubles({ uniqueOrigins: true, ...options });
  doubles.intercept({ onUnhandledRequest: "error" });
  try {
    await body(doubles);
  } finally {
    await doubles.close();
  }
  assertNoUnexpectedRequests(doubles);
}

function httpsStatus(url, headers) {
  return new Promise((resolve, reject) => {
    https.get(url, { headers }, (response) => {
      response.resume();
      resolve(response.statusCode);
    }).on("error", reject);
  });
}

describe("one doubles per test (beforeEach / afterEach)", () => {
  let doubles;
  beforeEach(() => {
    doubles = createDoubles({ seed: 1 });
    doubles.intercept();
  });
  afterEach(async () => {
    await doubles.close();
    assertNoUnexpectedRequests(doubles);
  });

  test("the journal matchers work under Jest, asymmetric matchers included", async () => {
    const api = doubles.baseUrls().secrets.api;
    const headers = { "x-vault-token": doubles.secrets.rootToken };
    await fetch(`${api}/sys/mounts/ssh`, { method: "POST", headers, body: JSON.stringify({ type: "ssh" }) });
    expect(doubles).toHaveReceivedTimes("POST /sys/mounts/*path", 1);
    expect(doubles).toHaveReceivedWithBody("POST /sys/mounts/*path", expect.objectContaining({ type: "ssh" }));
    expect(() => expect(doubles).toHaveReceived("GET /sys/health")).toThrow(/Requests received:\n#1 /);
  });
});

describe("test.concurrent, each test with doubles of its own", () => {
  for (const n of [1, 2, 3]) {
    test.concurrent(`test ${n}`, () =>
      withDoubles({ seed: n }, async (doubles) => {
        const api = doubles.baseUrls().secrets.api;
        const headers = { "x-vault-token": doubles.secrets.rootToken };
        await fetch(`${api}/sys/mounts/ssh-${n}`, { method: "POST", headers, body: JSON.stringify({ type: "ssh" }) });
        await new Promise((resolve) => setTimeout(resolve, 10 * (4 - n)));
        expect(await httpsStatus(`${api}/sys/mounts`, headers)).toBe(200);
        expect(doubles.secrets.mounts().filter((m) => m.path.startsWith("ssh-")).map((m) => m.path.replace(/\/$/, ""))).toEqual([`ssh-${n}`]);
        expect(doubles).toHaveReceivedInOrder(["POST /sys/mounts/*path", "GET /sys/mounts"]);
      }),
    );
  }
});
