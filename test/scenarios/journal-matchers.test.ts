/**
 * The journal matchers of `infra-doubles/vitest`, through every transport: received N times, with
 * a body (asymmetric matchers), in an order, nothing unmatched; failures print what was received.
 */
import { expect, it } from "vitest";
import { createDoubles, formatJournal } from "../../src/index.js";
import "../../src/scenarios/vitest-entry.js";
import { describeEachTransport } from "../support/transports.js";

describeEachTransport("journal matchers", (t) => {
  const start = async () => {
    const started = await t.startWith(createDoubles({ seed: 1 }));
    const { doubles } = started;
    const ws = doubles.runs.addWorkspace(doubles.runs.addOrganization("acme"), { name: "prod" });
    const token = doubles.runs.issueUserToken(doubles.runs.addUser({ permissions: { [ws.id]: "write" } }).id);
    const api = started.base("runs");
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
    const createVersion = (attributes: Record<string, unknown> = {}) =>
      fetch(`${api}/workspaces/${ws.id}/configuration-versions`, { method: "POST", headers, body: JSON.stringify({ data: { type: "configuration-versions", attributes } }) });
    const listVersions = () => fetch(`${api}/workspaces/${ws.id}/configuration-versions`, { headers });
    return { doubles, api, headers, token, createVersion, listVersions };
  };

  it("received a route, N times, by route, template or operation", async () => {
    const { doubles, createVersion, listVersions } = await start();
    await createVersion();
    await listVersions();
    await listVersions();
    expect(doubles).toHaveReceived("POST /workspaces/:workspace_id/configuration-versions");
    expect(doubles).toHaveReceivedTimes("/workspaces/:workspace_id/configuration-versions", 3);
    expect(doubles).toHaveReceivedTimes("GET /workspaces/:workspace_id/configuration-versions", 2);
    expect(doubles).toHaveReceivedTimes("list configuration versions", 2);
    expect(doubles).toHaveReceivedTimes({ service: "runs", status: 201 }, 1);
    expect(doubles.journal).not.toHaveReceived("POST /runs");
  });

  it("fails naming what was received instead, credentials masked", async () => {
    const { doubles, token, createVersion, listVersions } = await start();
    await createVersion();
    await listVersions();
    let message = "";
    try {
      expect(doubles).toHaveReceivedTimes("GET /workspaces/:workspace_id/configuration-versions", 2);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/expected to have received GET \/workspaces\/:workspace_id\/configuration-versions 2 times, but it was received 1 time/);
    expect(message).toMatch(/Requests received:\n#1 .* runs POST .*configuration-versions -> 201 \(create configuration version/);
    expect(message).toContain('> {"data":{"type":"configuration-versions","attributes":{}}}');
    expect(message).not.toContain(token);
    expect(() => expect(doubles).not.toHaveReceived("list configuration versions")).toThrow(/expected not to have received list configuration versions at least once, but it was received 1 time\n\nMatching requests:\n#2 /);
  });

  it("with a body matching, asymmetric matchers included", async () => {
    const { doubles, createVersion } = await start();
    await createVersion({ "auto-queue-runs": false, speculative: true });
    expect(doubles).toHaveReceivedWithBody("POST /workspaces/:workspace_id/configuration-versions", {
      data: { type: "configuration-versions", attributes: expect.objectContaining({ speculative: true }) },
    });
    expect(doubles).toHaveReceivedWithBody("create configuration version", expect.objectContaining({ data: expect.anything() }));
    expect(() => expect(doubles).toHaveReceivedWithBody("create configuration version", { data: { type: "runs" } })).toThrow(
      /expected create configuration version with body [\s\S]*, but none of the 1 received had it\n\nRequests received:\n#1 .*\n.*"speculative":true/,
    );
    expect(() => expect(doubles).toHaveReceivedWithBody("POST /runs", {})).toThrow(/no such request was received/);
  });

  it("in an order", async () => {
    const { doubles, createVersion, listVersions } = await start();
    await listVersions();
    await createVersion();
    await listVersions();
    expect(doubles).toHaveReceivedInOrder(["list configuration versions", "create configuration version", "list configuration versions"]);
    expect(doubles).toHaveReceivedInOrder(["create configuration version", "list configuration versions"]);
    expect(() => expect(doubles).toHaveReceivedInOrder(["create configuration version", "create configuration version"])).toThrow(
      /but found only the first 1 in order\n\n {2}1\. create configuration version: #2 POST \/workspaces\/:workspace_id\/configuration-versions -> 201\n {2}2\. create configuration version: missing after #2 \(received at #2\)\n\nRequests of these routes:\n#2 /,
    );
  });

  it("in an order: a failure says where each step was found or missed, and shows the requests of those routes, not the last polls", async () => {
    // Regression (issue 22, item 13): the message listed the last 10 requests (all polls) and
    // never the ones the sequence named.
    const { doubles, api, createVersion, listVersions } = await start();
    await createVersion();
    for (let i = 0; i < 12; i++) await listVersions();
    let message = "";
    try {
      expect(doubles).toHaveReceivedInOrder(["create configuration version", "create configuration version", "list configuration versions"]);
    } catch (error) {
      message = (error as Error).message;
    }
    const [create] = doubles.journal.entries;
    expect(message).toBe(
      [
        "expected requests in the order create configuration version -> create configuration version -> list configuration versions, but found only the first 1 in order",
        "",
        "  1. create configuration version: #1 POST /workspaces/:workspace_id/configuration-versions -> 201",
        "  2. create configuration version: missing after #1 (received at #1)",
        "  3. list configuration versions: not looked for, after the missing step 2 (received at #2, #3, #4, #5, #6, #7, #8, #9, #10, #11, ... (12 in all))",
        "",
        "Requests of these routes (10 of 13 shown):",
        formatJournal(doubles.journal.entries.slice(0, 10), { headers: false, maxBodyChars: 300 }),
      ].join("\n"),
    );
    expect(create?.url.startsWith(api)).toBe(true);
    // Polls of a route the sequence does not name are left out; a step never received says so.
    expect(() => expect(doubles).toHaveReceivedInOrder(["create configuration version", { operation: "create configuration version", status: 422 }])).toThrow(
      [
        "found only the first 1 in order",
        "",
        "  1. create configuration version: #1 POST /workspaces/:workspace_id/configuration-versions -> 201",
        '  2. {"operation":"create configuration version","status":422}: missing after #1 (never received)',
        "",
        "Requests of these routes:",
        formatJournal([create!], { headers: false, maxBodyChars: 300 }),
      ].join("\n"),
    );
  });

  it("nothing unmatched", async () => {
    const { doubles, api, headers, listVersions } = await start();
    await listVersions();
    expect(doubles).toHaveNoUnmatchedRequests();
    await fetch(`${api}/workspace/nope/configuration-versions`, { headers });
    expect(() => expect(doubles).toHaveNoUnmatchedRequests()).toThrow(/1 request matched no endpoint of the services:\n#2 .* GET .*\/workspace\/nope\/configuration-versions -> 404 \(no route matched/);
    expect(doubles).not.toHaveNoUnmatchedRequests();
  });
});

it("refuses what is not doubles or a journal", () => {
  expect(() => expect({}).toHaveReceived("POST /runs")).toThrow(/journal matchers expect the doubles/);
});
