/**
 * Every create/update body go-tfe builds, byte for byte as its serializer writes them (printed with
 * go-tfe 0.11.1 and hashicorp/jsonapi; newer go-tfe adds attributes, never relationships), sent
 * through HTTP (issue 7, item 2). In JSON:API `{"data": null}` is an empty to-one relationship;
 * where the spec makes a relationship optional, the service reads it as omitted.
 */
import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { expectError, startRuns } from "./support.js";

const SHA = "a".repeat(64);

describeEachTransport("runs: the bodies go-tfe sends", (h) => {
  it('creates a run without a configuration version from {"data": null}: the workspace\'s latest one', async () => {
    // Regression (issue 7): go-tfe's Runs.Create without ConfigurationVersion answered 422.
    const w = await startRuns(h);
    const { cvId } = await w.upload({ attributes: { "auto-queue-runs": false } });
    const raw = `{"data":{"type":"runs","relationships":{"configuration-version":{"data":null},"workspace":{"data":{"type":"workspaces","id":"${w.ws.id}"}}}}}`;
    const created = await w.api("POST", "/runs", { raw });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.relationships["configuration-version"].data).toEqual({ type: "configuration-versions", id: cvId });
  });

  it("creates runs with attributes, targets and variables, with and without a configuration version", async () => {
    const w = await startRuns(h);
    const { cvId } = await w.upload({ attributes: { "auto-queue-runs": false } });
    const ws = `"workspace":{"data":{"type":"workspaces","id":"${w.ws.id}"}}`;
    const withCv = `{"data":{"type":"runs","attributes":{"message":"hi","target-addrs":["a.b"]},"relationships":{"configuration-version":{"data":{"type":"configuration-versions","id":"${cvId}"}},${ws}}}}`;
    const a = await w.api("POST", "/runs", { raw: withCv });
    expect([a.status, a.body?.data?.attributes?.message, a.body?.data?.attributes?.["target-addrs"]]).toEqual([201, "hi", ["a.b"]]);
    const variables = `{"data":{"type":"runs","attributes":{"is-destroy":false,"plan-only":true,"variables":[{"key":"region","value":"\\"eu\\""}]},"relationships":{"configuration-version":{"data":null},${ws}}}}`;
    const b = await w.api("POST", "/runs", { raw: variables });
    expect(b.status, b.text).toBe(201);
    expect(b.body.data.attributes.variables).toEqual([{ key: "region", value: '"eu"' }]);
    expect(b.body.data.relationships["configuration-version"].data.id).toBe(cvId);
  });

  it('still requires the workspace: {"data": null} there is the same 422 as leaving it out', async () => {
    const w = await startRuns(h);
    await w.upload({ attributes: { "auto-queue-runs": false } });
    const before = w.doubles.snapshot().services;
    const raw = '{"data":{"type":"runs","relationships":{"configuration-version":{"data":null},"workspace":{"data":null}}}}';
    expectError(await w.api("POST", "/runs", { raw }), 422, "invalid attribute", "/data/relationships/workspace/data/id");
    expect(w.doubles.snapshot().services).toEqual(before);
  });

  it("creates configuration versions from go-tfe's bodies, with no attributes or some", async () => {
    const w = await startRuns(h);
    const empty = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { raw: '{"data":{"type":"configuration-versions"}}' });
    expect([empty.status, empty.body?.data?.attributes?.["auto-queue-runs"]]).toEqual([201, true]);
    const some = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, {
      raw: '{"data":{"type":"configuration-versions","attributes":{"auto-queue-runs":false,"speculative":true}}}',
    });
    expect([some.status, some.body?.data?.attributes?.speculative]).toEqual([201, true]);
  });

  it("takes the actions' bodies: {} without a comment, {\"comment\": ...} with one", async () => {
    const w = await startRuns(h, { workspace: { autoApply: false } });
    w.runs.setProgression("immediate");
    const { cvId } = await w.upload({ attributes: { "auto-queue-runs": false } });
    const first = await w.createRun({}, { cvId });
    expect((await w.api("POST", `/runs/${first}/actions/apply`, { raw: "{}" })).status).toBe(202);
    const second = await w.createRun({}, { cvId });
    expect((await w.api("POST", `/runs/${second}/actions/discard`, { raw: '{"comment":"not now"}' })).status).toBe(202);
    expect((await w.getRun(second)).attributes.status).toBe("discarded");
  });

  it("creates and updates engine versions from go-tfe's bodies (archs ignored, no relationships)", async () => {
    const w = await startRuns(h);
    const create = await w.api("POST", "/admin/engine-versions", {
      token: w.siteAdmin,
      raw: `{"data":{"type":"engine-versions","attributes":{"version":"1.10.0","url":"https://example.test/e.zip","sha":"${SHA}","official":false,"enabled":true,"beta":true,"archs":[{"url":"https://example.test/e.zip","sha":"${SHA}","os":"linux","arch":"amd64"}]}}}`,
    });
    expect(create.status, create.text).toBe(201);
    const id = create.body.data.id as string;
    const update = await w.api("PATCH", `/admin/engine-versions/${id}`, {
      token: w.siteAdmin,
      raw: '{"data":{"type":"engine-versions","attributes":{"deprecated":true,"deprecated-reason":"old"}}}',
    });
    expect([update.status, update.body?.data?.attributes?.["deprecated-reason"]]).toEqual([200, "old"]);
  });
});
