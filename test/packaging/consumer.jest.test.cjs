// Packaging smoke test under Jest, CommonJS side: .ci/run (through scripts/node-matrix.mjs) runs it
// in the fresh consumer project where the packed tarball and jest are installed, with plain `jest`,
// on each Node of the matrix. It requires the package the way a Jest user writes it.
/* global require, describe, test, expect, afterEach */
/* eslint-disable @typescript-eslint/no-require-imports */
const { configurationArchive, createDoubles } = require("infra-doubles");
const { interceptWithNock } = require("infra-doubles/nock");
const { UsageError } = require("infra-doubles/simulator");

let doubles;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

describe("infra-doubles under Jest (CommonJS)", () => {
  test("require() gives every entry point", () => {
    expect(typeof createDoubles).toBe("function");
    expect(typeof interceptWithNock).toBe("function");
    expect(typeof require("infra-doubles/server").startServer).toBe("function");
    expect(() => createDoubles({ seed: 1 }).advance("-1s")).toThrow(UsageError);
  });

  test("scenario uploads hold the files, and a run queued from them applies on the simulator clock", () => {
    doubles = createDoubles({ seed: 1 });
    const { runs } = doubles;
    const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod", autoApply: true });
    const user = runs.addUser({ permissions: { [ws.id]: "admin" } });
    const { configurationVersionId, runId } = runs.uploadConfiguration(ws.id, { as: user.id, files: configurationArchive({ "main.tf": "# cjs\n" }) });
    expect(runs.configurationFiles(configurationVersionId)["main.tf"].text).toBe("# cjs\n");
    doubles.advance("10m");
    expect(runs.run(runId).status).toBe("applied");
  });

  test("the runs API answers through nock with node:https", async () => {
    doubles = createDoubles({ seed: 2 });
    doubles.intercept();
    const { runs } = doubles;
    const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
    const token = runs.issueUserToken(runs.addUser({ permissions: { [ws.id]: "read" } }).id);
    const status = await new Promise((resolve, reject) => {
      const request = require("node:https").get(`${doubles.baseUrls().runs.api}/workspaces/${ws.id}/runs`, { headers: { authorization: `Bearer ${token}` } }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode));
      });
      request.on("error", reject);
    });
    expect(status).toBe(200);
  });
});
