/**
 * The route names' TypeScript types (src/interceptors/route-names.ts) are generated from the route
 * tables, so the names are defined once: this test fails when the committed file is out of step,
 * and writes it with UPDATE_ROUTE_NAMES=1. The `@ts-expect-error` lines are checked by
 * `npx tsc --noEmit` (tsconfig includes test/): a misspelt route is a compile error.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import type { FaultDefinition } from "../../src/scenarios/faults/fault-definition.js";
import type { JournalFilter } from "../../src/interceptors/journal.js";
import { endpointsOf } from "../../src/interceptors/router.js";
import { mountedRoute, operationNamesOf, routeNamesOf, type RouteName } from "../../src/interceptors/vocabulary.js";
import type { ExpectedRequest } from "../../src/scenarios/journal-matchers.js";
import type { SecretsOperation } from "../../src/scenarios/secrets/index.js";

const FILE = fileURLToPath(new URL("../../src/interceptors/route-names.ts", import.meta.url));

function union(names: readonly string[]): string {
  return names.length === 0 ? "never" : `\n  | ${names.map((n) => JSON.stringify(n)).join("\n  | ")}`;
}

function generated(): string {
  const doubles = createDoubles();
  const service = (key: string) => {
    const mount = doubles.handler.mounts.find((m) => m.key === key);
    if (mount === undefined) throw new Error(`no mount ${key}`);
    return mount.service;
  };
  const runs = service("runs");
  const accessControl = service("accessControl");
  const secrets = service("secrets");
  return [
    "// Generated from the services' route tables by test/interceptors/route-names.test.ts; do not edit.",
    "// After changing a route table: UPDATE_ROUTE_NAMES=1 npx vitest run test/interceptors/route-names.test.ts",
    "",
    "/** The run orchestration service's routes, as its spec writes them (`METHOD /template`, no `/api/v2`). */",
    `export type RunsRoute =${union(routeNamesOf(runs))};`,
    "",
    "/** The access-control service's routes, as its spec writes them (no `/v1`). */",
    `export type AccessControlRoute =${union(routeNamesOf(accessControl))};`,
    "",
    "/** The secrets service's routes, as its spec writes them (no `/v1`; engines at the spec's mount paths `/ssh` and `/cloud`). */",
    `export type SecretsRoute =${union(routeNamesOf(secrets))};`,
    "",
    "/** The run orchestration service's operations. */",
    `export type RunsOperation =${union(operationNamesOf(runs))};`,
    "",
    "/** The access-control service's operations. */",
    `export type AccessControlOperation =${union(operationNamesOf(accessControl))};`,
    "",
  ].join("\n");
}

describe("route names: one vocabulary, typed", () => {
  it("src/interceptors/route-names.ts is what the route tables give", () => {
    const text = generated();
    if (process.env.UPDATE_ROUTE_NAMES === "1") writeFileSync(FILE, text);
    expect(readFileSync(FILE, "utf8"), "run: UPDATE_ROUTE_NAMES=1 npx vitest run test/interceptors/route-names.test.ts").toBe(text);
  });

  it("the secrets service's operations are its request module's (`SecretsOperation`)", () => {
    const operations: SecretsOperation[] = ["read", "list", "create-or-update", "delete"];
    expect([...operationNamesOf(createDoubles().handler.mounts.find((m) => m.key === "secrets")!.service)].sort()).toEqual([...operations].sort());
  });

  it("coverage counts endpoints under the same names", () => {
    for (const mount of createDoubles().handler.mounts) {
      expect([...endpointsOf(mount.service)].sort(), mount.key).toEqual([...routeNamesOf(mount.service)].sort());
    }
  });

  it("the types take the spec's names and refuse others at compile time", () => {
    const good: RouteName[] = ["GET /runs/:run_id", "POST /ssh/creds/:name", "GET /acl/token/self", "GET /sys/health", "LIST /ssh/roles"];
    // @ts-expect-error: the API prefix is not part of a route's name
    const prefixed: RouteName = "GET /api/v2/runs/:run_id";
    // @ts-expect-error: methods are upper case
    const lower: RouteName = "get /sys/health";
    // @ts-expect-error: a misspelt template
    const misspelt: FaultDefinition = { service: "runs", route: "GET /run/:run_id", answer: "rate-limited" };
    // @ts-expect-error: the service key is accessControl
    const service: JournalFilter = { service: "access-control" };
    // @ts-expect-error: a misspelt route in a matcher
    const expected: ExpectedRequest = "POST /ssh/cred/:name";
    const filter: JournalFilter = { service: "secrets", route: mountedRoute("ssh-prod", "POST /ssh/creds/:name") };
    const template: JournalFilter = { route: "/runs/:run_id" };
    const operation: ExpectedRequest = "apply run";
    expect([good, prefixed, lower, misspelt, service, expected, filter, template, operation]).toHaveLength(9);
    expect(filter.route).toBe("POST /ssh-prod/creds/:name");
  });
});
