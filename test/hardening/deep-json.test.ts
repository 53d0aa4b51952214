/**
 * Deeply nested JSON (issue 8, defect 3): Go's decoder refuses nesting beyond 10,000 levels
 * (`exceeded max depth`), Ruby's JSON parser (run orchestration) beyond 100 (`nesting of 101 is too
 * deep`). Each service answers such a body as it answers malformed JSON, whether the body is
 * unclosed or valid, and no answer ever carries a stack trace.
 */
import { expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { describeEachTransport } from "../support/transports.js";

const unclosed = (depth: number) => "[".repeat(depth);
const valid = (depth: number) => `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`;

describeEachTransport("deeply nested JSON bodies", (t) => {
  it("secrets: 400 failed to parse JSON input: exceeded max depth", async () => {
    const { base, doubles } = await t.startWith(createDoubles({ seed: 1 }));
    const headers = { "x-secrets-token": doubles.secrets.rootToken, "content-type": "application/json" };
    for (const body of [unclosed(20_000), valid(100_000)]) {
      const response = await fetch(`${base("secrets")}/ssh/roles/web`, { method: "POST", headers, body });
      expect([response.status, await response.json()]).toEqual([400, { errors: ["failed to parse JSON input: exceeded max depth"] }]);
    }
    const shallow = await fetch(`${base("secrets")}/ssh/roles/web`, { method: "POST", headers, body: `{"key_type":"ca","x":${"[".repeat(50)}${"]".repeat(50)}}` });
    expect(shallow.status).not.toBe(500);
    expect(await shallow.text()).not.toContain("exceeded max depth");
  });

  it("access control: 400 with the decoder's exceeded max depth", async () => {
    const { base, doubles } = await t.startWith(createDoubles({ seed: 1 }));
    const headers = { "x-acl-token": doubles.accessControl.bootstrapToken.secretId, "content-type": "application/json" };
    for (const body of [unclosed(20_000), valid(100_000)]) {
      const response = await fetch(`${base("accessControl")}/acl/token`, { method: "PUT", headers, body });
      const text = await response.text();
      expect(response.status).toBe(400);
      expect(text).toMatch(/exceeded max depth$/);
      expect(text).not.toMatch(/\bat \S+ \(|\.ts:\d+/);
    }
  });

  it("run orchestration: 422 at the whole document", async () => {
    const { base, doubles } = await t.startWith(createDoubles({ seed: 1 }));
    const workspace = doubles.runs.addWorkspace(doubles.runs.addOrganization("acme"), { name: "prod" });
    const user = doubles.runs.addUser({ permissions: { [workspace.id]: "admin" } });
    const headers = { authorization: `Bearer ${doubles.runs.issueUserToken(user.id)}`, "content-type": "application/vnd.api+json" };
    for (const body of [unclosed(20_000), valid(100_000), valid(101)]) {
      const response = await fetch(`${base("runs")}/runs`, { method: "POST", headers, body });
      const document = (await response.json()) as { errors: { status: string; source?: { pointer: string } }[] };
      expect(response.status).toBe(422);
      expect(document.errors[0]).toMatchObject({ status: "422", source: { pointer: "" } });
      expect(JSON.stringify(document)).not.toMatch(/\.ts:\d+/);
    }
  });
});

it("a bug's 500 names the library bug in one line; the stack trace is only in the journal", async () => {
  const { createHandler } = await import("../../src/interceptors/handler.js");
  const sim = createDoubles({ seed: 1 }).sim;
  const handler = createHandler({
    sim,
    mounts: [
      {
        bases: { api: "https://odd.test/api" },
        service: {
          name: "odd",
          routes: [{ method: "GET", path: "/x", handler: () => { throw new RangeError("Maximum call stack size exceeded"); } }],
          errorResponse: () => ({ status: 500, headers: {} }),
          noRoute: () => ({ status: 404, headers: {} }),
        },
      },
    ],
  });
  const response = await handler.handle({ method: "GET", url: new URL("https://odd.test/api/x"), headers: {}, body: new Uint8Array() });
  expect(response.status).toBe(500);
  expect(response.body).toBe(
    "infra-doubles: internal error (a bug in the fake, please report it; the stack trace is in the journal): RangeError: Maximum call stack size exceeded",
  );
  expect(handler.journal.at(-1)?.error).toMatch(/^RangeError: Maximum call stack size exceeded\n\s+at /);
});
