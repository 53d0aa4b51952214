/**
 * The testing kit's engine-version body arbitraries against the fake, through every transport:
 * valid create and update bodies are accepted, every invalid one (including a version already
 * taken, which depends on stored data) gets exactly the labelled 422 and stores nothing.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { readServiceError } from "../../src/testing/errors.js";
import { engineVersionBody, engineVersionUpdateBody, invalidEngineVersionBody } from "../../src/testing/runs-bodies.js";
import { describeEachTransport } from "../support/transports.js";

const NUM_RUNS = 10;

describeEachTransport("testing kit: engine-version body arbitraries", (t) => {
  it("create and update bodies are accepted; invalid bodies get their labelled 422 and store nothing", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 21 }));
    const token = doubles.runs.issueSiteAdminToken({ username: "root" });
    const api = base("runs");
    const send = (method: string, path: string, body: unknown) =>
      fetch(`${api}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" }, body: JSON.stringify(body) });
    const versions = async (): Promise<{ id: string; attributes: Record<string, unknown> }[]> => {
      const response = await fetch(`${api}/admin/engine-versions?page[size]=100`, { headers: { authorization: `Bearer ${token}` } });
      return ((await response.json()) as { data: { id: string; attributes: Record<string, unknown> }[] }).data;
    };
    await fc.assert(
      fc.asyncProperty(engineVersionBody(), engineVersionUpdateBody(), async (body, update) => {
        fc.pre(!(await versions()).some((v) => v.attributes.version === body.data.attributes.version));
        const created = await send("POST", "/admin/engine-versions", body);
        expect(created.status, await created.clone().text()).toBe(201);
        const id = ((await created.json()) as { data: { id: string } }).data.id;
        const updated = await send("PATCH", `/admin/engine-versions/${id}`, update);
        expect(updated.status, await updated.clone().text()).toBe(200);
      }),
      { numRuns: NUM_RUNS },
    );
    const taken = (await versions()).map((v) => String(v.attributes.version));
    expect(taken.length).toBeGreaterThan(0);
    await fc.assert(
      fc.asyncProperty(invalidEngineVersionBody({ taken }), async ({ body, expected }) => {
        const before = JSON.stringify(await versions());
        expect(await readServiceError("runs", await send("POST", "/admin/engine-versions", body))).toEqual(expected);
        expect(JSON.stringify(await versions())).toBe(before);
      }),
      { numRuns: NUM_RUNS * 3 },
    );
  });
});
