// Packaging smoke test under Jest, ESM side: .ci/run (through scripts/node-matrix.mjs) runs it in the
// fresh consumer project where the packed tarball and jest are installed, with
// `node --experimental-vm-modules node_modules/jest/bin/jest.js`, on each Node of the matrix.
// It imports the package the way a Jest user writes it (Jest resolves `exports` with "import").
/* global describe, test, expect, afterEach */
import { configurationArchive, createDoubles } from "infra-doubles";
import { ManualClock } from "infra-doubles/simulator";

/** @type {import("infra-doubles").Doubles | undefined} */
let doubles;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

describe("infra-doubles under Jest (ESM)", () => {
  test("a run plans and applies through nock; the fake read the archive the test uploaded", async () => {
    doubles = createDoubles({ seed: 1, clock: new ManualClock("2024-01-01T00:00:00Z") });
    doubles.intercept();
    const { runs } = doubles;
    const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
    const token = runs.issueUserToken(runs.addUser({ permissions: { [ws.id]: "write" } }).id);
    const api = doubles.baseUrls().runs.api;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
    const body = JSON.stringify({ data: { type: "configuration-versions" } });
    const cv = await (await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, { method: "POST", headers, body })).json();
    const files = { "main.tf": 'module "net" { source = "./modules/net" }\n', "modules/net/main.tf": "# net\n" };
    const upload = await fetch(cv.data.attributes["upload-url"], { method: "PUT", body: configurationArchive(files) });
    expect(upload.status).toBe(200);
    expect(Object.keys(runs.configurationFiles(cv.data.id))).toEqual(["main.tf", "modules/net/main.tf"]);
    doubles.advance("1m");
    const [run] = runs.runsOf(ws.id);
    expect(run?.status).toBe("planned");
    expect((await fetch(`${api}/runs/${run?.id}/actions/apply`, { method: "POST", headers })).status).toBe(202);
    doubles.advance("5m");
    expect(runs.run(run?.id ?? "").status).toBe("applied");
  });

  test("an upload that is not a .tar.gz ends the configuration version errored", async () => {
    doubles = createDoubles({ seed: 2 });
    doubles.intercept();
    const { runs } = doubles;
    const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
    const token = runs.issueUserToken(runs.addUser({ permissions: { [ws.id]: "write" } }).id);
    const api = doubles.baseUrls().runs.api;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
    const cv = await (await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, { method: "POST", headers, body: "{}" })).json();
    await fetch(cv.data.attributes["upload-url"], { method: "PUT", body: "main.tf, not archived" });
    const shown = await (await fetch(`${api}/configuration-versions/${cv.data.id}`, { headers })).json();
    expect(shown.data.attributes).toMatchObject({ status: "errored", error: "unprocessable_archive", "error-message": "failed to decompress slug: gzip: invalid header" });
  });

  test("the local server answers access control and secrets", async () => {
    doubles = createDoubles({ seed: 3 });
    const server = await doubles.listen();
    const created = await fetch(`${server.url}/v1/acl/token`, {
      method: "PUT",
      headers: { "x-acl-token": doubles.accessControl.bootstrapToken.secretId },
      body: JSON.stringify({ Description: "jest", ExpirationTTL: "5m" }),
    });
    expect(created.status).toBe(200);
    const health = await (await fetch(`${server.url}/v1/sys/health`)).json();
    expect(health.server_time_utc).toBe(Math.floor(doubles.now() / 1000));
  });
});
