/**
 * Faults are filed by service, route and operation (issue 24 item 7: a request used to scan every
 * fault, 31.6 ms each with 10,000 defined; bench row "10,000 faults defined"), yet still apply as
 * one list in the order they were added: the first whose conditions hold decides, every matching
 * fault before it counts the request as seen, whichever bucket (route, operation, the whole
 * service) each sits in. Remove, clear and reset keep the index and the order. Through every
 * transport.
 */
import { afterEach, expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startRuns, type RunsWorld } from "../../interceptors/runs/support.js";

describeEachTransport("faults: order across route, operation and service buckets", (h) => {
  let world: RunsWorld | undefined;
  afterEach(() => world?.doubles.faults.clear());

  it("the earliest-added matching fault decides, and each matching fault before it sees the request", async () => {
    const w = (world = await startRuns(h));
    const { runId } = await w.upload();
    const read = async (): Promise<number> => (await w.api("GET", `/runs/${runId ?? ""}`)).status;
    // Interleaved across the buckets a GET of a run looks in, with faults elsewhere between them.
    const f = w.doubles.faults;
    const other = f.add({ service: "runs", route: "POST /runs", answer: "internal-error" });
    const byService = f.add({ service: "runs", answer: "bad-gateway", after: 2, times: 1 });
    const elsewhere = f.add({ service: "runs", operation: "apply run", answer: "bad-gateway" });
    const byOperation = f.add({ service: "runs", operation: "show run", answer: "unavailable", after: 1, times: 1 });
    const byRoute = f.add({ service: "runs", route: "GET /runs/:run_id", answer: "rate-limited", times: 1 });
    const lastByService = f.add({ service: "runs", answer: "internal-error", times: 1 });
    // 1st: byService (after 2) and byOperation (after 1) let it through, byRoute applies.
    // 2nd: byService lets it through, byOperation applies. 3rd: byService applies.
    // 4th: all three used up; lastByService applies. 5th: nothing left.
    expect([await read(), await read(), await read(), await read(), await read()]).toEqual([429, 503, 502, 500, 200]);
    expect([byService.seen, byOperation.seen, byRoute.seen, lastByService.seen]).toEqual([5, 4, 3, 2]);
    expect([byService.applied, byOperation.applied, byRoute.applied, lastByService.applied]).toEqual([1, 1, 1, 1]);
    expect([other.seen, elsewhere.seen]).toEqual([0, 0]);
    expect(w.doubles.handler.journal.map((e) => e.fault).filter((id) => id !== undefined)).toEqual([byRoute.id, byOperation.id, byService.id, lastByService.id]);
  });

  it("remove, clear and reset keep the buckets and the order", async () => {
    const w = (world = await startRuns(h));
    const { runId } = await w.upload();
    const read = async (): Promise<number> => (await w.api("GET", `/runs/${runId ?? ""}`)).status;
    const f = w.doubles.faults;
    const first = f.add({ service: "runs", route: "GET /runs/:run_id", answer: "rate-limited" });
    f.add({ service: "runs", answer: "unavailable" });
    expect(await read()).toBe(429);
    first.remove();
    expect(await read()).toBe(503);
    f.clear();
    expect(await read()).toBe(200);
    f.add({ service: "runs", operation: "show run", answer: "bad-gateway", times: 1 });
    f.add({ service: "runs", route: "GET /runs/:run_id", answer: "rate-limited", times: 1 });
    const saved = f.save();
    expect([await read(), await read(), await read()]).toEqual([502, 429, 200]);
    f.add({ service: "runs", answer: "internal-error" });
    f.load(saved);
    expect([await read(), await read(), await read()]).toEqual([502, 429, 200]);
    f.add({ service: "runs", answer: "internal-error", times: 1 });
    expect(await read()).toBe(500);
    expect(f.list().map((x) => x.id)).toEqual(["fault-1", "fault-2", "fault-3"]);
  });
});
