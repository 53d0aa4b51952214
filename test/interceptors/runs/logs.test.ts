/**
 * Plan and apply logs through HTTP on every transport: `log-read-url` on plans and applies (signed,
 * expiring on the simulator clock, on the archive host), the log's STX/ETX framing and go-tfe's
 * `limit`/`offset` reads, counts derived from the configuration's resource blocks (or an outcome's),
 * the log growing while the phase runs, refusals of tampered and expired URLs, `started-at`, and
 * byte-identical logs for the same seed and calls.
 */
import { expect, it } from "vitest";
import { configurationArchive } from "../../../src/scenarios/runs/archive.js";
import { describeEachTransport } from "../../support/transports.js";
import { startRuns, type RunsWorld } from "./support.js";

const STX = "\u0002";
const ETX = "\u0003";

async function phase(w: RunsWorld, kind: "plans" | "applies", id: string): Promise<Record<string, unknown>> {
  const response = await w.api("GET", `/${kind}/${id}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data.attributes;
}

async function readText(url: string, query = ""): Promise<{ status: number; text: string; type: string | null }> {
  const response = await fetch(`${url}${query}`);
  return { status: response.status, text: await response.text(), type: response.headers.get("content-type") };
}

describeEachTransport("runs: plan and apply logs", (h) => {
  it("serves a plan log whose counts come from the configuration's resource blocks, framed by STX and ETX", async () => {
    const w = await startRuns(h);
    const archive = configurationArchive({
      "main.tf": 'resource "null_resource" "foo" {}\n# resource "null_resource" "commented" {}\nresource aws_instance web {\n  ami = "x"\n}\n',
      "extra.tf.json": '{"resource":{"random_id":{"a":{},"b":{}}}}',
      "modules/vpc/main.tf": 'resource "aws_vpc" "inner" {}\n',
      "README.md": 'resource "not" "terraform" {}\n',
    });
    const { runId } = await w.upload({ bytes: archive });
    w.doubles.advance("2m");
    const run = await w.getRun(runId ?? "");
    const plan = await phase(w, "plans", run.relationships.plan.data.id);
    expect(plan).toMatchObject({ status: "finished", "has-changes": true, "resource-additions": 4, "resource-changes": 0, "resource-destructions": 0 });
    expect(plan["log-read-url"]).toMatch(new RegExp(`^${w.archiveBase}/v1/log/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
    const log = await readText(plan["log-read-url"] as string);
    expect(log.status).toBe(200);
    expect(log.type).toBe("text/plain; charset=utf-8");
    expect(log.text.startsWith(`${STX}Terraform v1.9.8\n`)).toBe(true);
    expect(log.text.endsWith(`Plan: 4 to add, 0 to change, 0 to destroy.\n${ETX}`)).toBe(true);
    for (const address of ["null_resource.foo", "aws_instance.web", "random_id.a", "random_id.b"]) expect(log.text).toContain(`# ${address} will be created`);
    expect(log.text).not.toContain("commented");
    expect(log.text).not.toContain("aws_vpc");
  });

  it("reads a log in go-tfe's limit/offset chunks, ignoring values that are not numbers", async () => {
    const w = await startRuns(h);
    const { runId } = await w.upload();
    w.doubles.advance("2m");
    const planId = (await w.getRun(runId ?? "")).relationships.plan.data.id;
    const url = (await phase(w, "plans", planId))["log-read-url"] as string;
    const whole = (await readText(url)).text;
    let joined = "";
    for (let offset = 0; offset < whole.length + 10; offset += 7) joined += (await readText(url, `?limit=7&offset=${offset}`)).text;
    expect(joined).toBe(whole);
    expect((await readText(url, `?offset=${whole.length + 5}`)).text).toBe("");
    expect((await readText(url, "?limit=x&offset=-3")).text).toBe(whole);
    expect(whole).toContain("Plan: 1 to add, 0 to change, 0 to destroy.");
  });

  it("grows the log while the plan runs: empty when queued, the banner without ETX while running, ETX when finished", async () => {
    const w = await startRuns(h);
    w.runs.setOutcome({ durations: { plan: "30s" } });
    const { runId } = await w.upload();
    const planId = (await w.getRun(runId ?? "")).relationships.plan.data.id;
    const url = (await phase(w, "plans", planId))["log-read-url"] as string;
    expect((await readText(url)).text).toBe("");
    // queue 1s, fetch 2s, two hand-offs, plan queue 2s: planning from about 6s on.
    w.doubles.advance("10s");
    const running = await phase(w, "plans", planId);
    expect(running.status).toBe("running");
    expect(running["status-timestamps"]).toHaveProperty("started-at");
    const partial = (await readText(url)).text;
    expect(partial.startsWith(STX)).toBe(true);
    expect(partial).not.toContain(ETX);
    w.doubles.advance("40s");
    const finished = (await readText(url)).text;
    expect(finished.startsWith(partial)).toBe(true);
    expect(finished.endsWith(ETX)).toBe(true);
    expect((await phase(w, "plans", planId))["status-timestamps"]).toMatchObject({ "started-at": running["status-timestamps"] && (running["status-timestamps"] as Record<string, string>)["started-at"] });
  });

  it("serves the apply log (`1 added, 0 changed, 0 destroyed`) and a destroy run's counts", async () => {
    const w = await startRuns(h);
    const { runId } = await w.upload();
    w.doubles.advance("2m");
    expect((await w.api("POST", `/runs/${runId}/actions/apply`)).status).toBe(202);
    w.doubles.advance("2m");
    const run = await w.getRun(runId ?? "");
    expect(run.attributes.status).toBe("applied");
    const apply = await phase(w, "applies", run.relationships.apply.data.id);
    expect(apply).toMatchObject({ status: "finished", "resource-additions": 1, "resource-changes": 0, "resource-destructions": 0 });
    expect(apply["status-timestamps"]).toHaveProperty("started-at");
    expect(apply["status-timestamps"]).toHaveProperty("finished-at");
    const log = (await readText(apply["log-read-url"] as string)).text;
    expect(log).toContain("null_resource.example: Creation complete after");
    expect(log.endsWith(`Apply complete! Resources: 1 added, 0 changed, 0 destroyed.\n${ETX}`)).toBe(true);

    const destroyId = await w.createRun({ "is-destroy": true });
    w.doubles.advance("2m");
    const destroyPlan = await phase(w, "plans", (await w.getRun(destroyId)).relationships.plan.data.id);
    expect(destroyPlan).toMatchObject({ "resource-additions": 0, "resource-destructions": 1 });
    expect((await readText(destroyPlan["log-read-url"] as string)).text).toContain("Plan: 0 to add, 0 to change, 1 to destroy.");
  });

  it("takes an outcome's counts over the configuration's, in the attributes and the log alike", async () => {
    const w = await startRuns(h);
    w.runs.nextRun(w.ws.id, { resources: { add: 4, change: 1, destroy: 2, import: 0 } });
    const { runId } = await w.upload();
    w.doubles.advance("2m");
    const plan = await phase(w, "plans", (await w.getRun(runId ?? "")).relationships.plan.data.id);
    expect(plan).toMatchObject({ "resource-additions": 4, "resource-changes": 1, "resource-destructions": 2 });
    expect((await readText(plan["log-read-url"] as string)).text).toContain("Plan: 4 to add, 1 to change, 2 to destroy.");
  });

  it("refuses a tampered URL and an expired one with the service's 404, needing no token", async () => {
    const w = await startRuns(h);
    const { runId } = await w.upload();
    w.doubles.advance("2m");
    const planId = (await w.getRun(runId ?? "")).relationships.plan.data.id;
    const url = (await phase(w, "plans", planId))["log-read-url"] as string;
    expect((await readText(url)).status).toBe(200);
    const token = url.slice(url.lastIndexOf("/") + 1);
    const [payload = "", signature = ""] = token.split(".");
    const flip = (text: string, at: number): string => `${text.slice(0, at)}${text[at] === "A" ? "B" : "A"}${text.slice(at + 1)}`;
    const base = url.slice(0, url.lastIndexOf("/") + 1);
    // Another phase's id under this signature, a changed signature, a changed expiry, garbage.
    const otherPayload = Buffer.from(Buffer.from(payload, "base64url").toString("utf8").replace(/^plan\./, "apply."), "utf8").toString("base64url");
    const forgedExpiry = Buffer.from(Buffer.from(payload, "base64url").toString("utf8").replace(/\d+$/, "99999999999999"), "utf8").toString("base64url");
    for (const bad of [`${otherPayload}.${signature}`, `${payload}.${flip(signature, 3)}`, `${forgedExpiry}.${signature}`, `${payload}`, "garbage", `${payload}.${signature}.x`]) {
      const refused = await readText(`${base}${bad}`);
      expect(refused.status, bad).toBe(404);
      expect(refused.type, bad).toBe("application/vnd.api+json");
      expect(JSON.parse(refused.text), bad).toEqual({ errors: [{ status: "404", title: "not found" }] });
    }
    w.doubles.advance("23h");
    expect((await readText(url)).status).toBe(200);
    w.doubles.advance("1h");
    expect((await readText(url)).status).toBe(404);
    // A fresh read of the plan issues a fresh URL.
    const fresh = (await phase(w, "plans", planId))["log-read-url"] as string;
    expect(fresh).not.toBe(url);
    expect((await readText(fresh)).status).toBe(200);
  });

  it("gives byte-identical URLs and logs for the same seed and calls", async () => {
    const logs = async (seed: string, host: string): Promise<string[]> => {
      const w = await startRuns(h, { seed, host });
      const { runId } = await w.upload();
      w.doubles.advance("2m");
      await w.api("POST", `/runs/${runId}/actions/apply`);
      w.doubles.advance("2m");
      const run = await w.getRun(runId ?? "");
      const plan = await phase(w, "plans", run.relationships.plan.data.id);
      const apply = await phase(w, "applies", run.relationships.apply.data.id);
      const strip = (url: unknown): string => String(url).slice(String(url).indexOf("/v1/log/"));
      return [strip(plan["log-read-url"]), (await readText(plan["log-read-url"] as string)).text, strip(apply["log-read-url"]), (await readText(apply["log-read-url"] as string)).text];
    };
    const first = await logs("same", "one.test");
    expect(await logs("same", "two.test")).toEqual(first);
    expect((await logs("other", "three.test"))[0]).not.toBe(first[0]);
  });
});
