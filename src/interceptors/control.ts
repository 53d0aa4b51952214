/**
 * The `/_sim/` control API of the local server: reset to the starting state, read and advance the
 * simulator clock, read the request journal, and each service's own scenario routes under
 * `/_sim/<service key>/`. JSON in, JSON out; errors are `{"error": {"status", "code", "message"}}`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { AdvanceableClock, clockDurationMs, GlobalDateClock, ManualClock, SystemClock } from "../simulator/kernel/clock.js";
import { DomainError, isDomainError, UsageError, type DomainErrorCode } from "../simulator/kernel/errors.js";
import type { Simulator } from "../simulator/kernel/simulator.js";
import { isoMillis } from "../simulator/kernel/time.js";
import { GO_MAX_JSON_DEPTH, goJsonSyntaxMessage, jsonDepthExceeds } from "./go-json-syntax.js";
import type { Handler, RequestHead } from "./handler.js";
import { dashboardRoutes, isDashboardAsset } from "./dashboard.js";
import { journalWire, MASK, maskUrl, type JournalEntry } from "./journal.js";
import { bodyText, empty, json, type HttpService, type Route, type ServiceMount, type SimRequest, type SimResponse } from "./http.js";

/** Path prefix of the control API on the server's origin. */
export const CONTROL_PREFIX = "/_sim";

/**
 * The longest request body a `/_sim/` route accepts, in bytes: 8 MiB (a scenario document, JSON or
 * YAML, included). A longer body is answered 413 in the control API's error shape
 * (`{"error": {"status": 413, "code": "request_too_large", "message"}}`) and read no further; a
 * declared `Content-Length` beyond it is not read at all (docs/decisions/security.md).
 */
export const CONTROL_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Service name of the control API in the journal (plugin routes are `_sim:<key>`). */
export const CONTROL_SERVICE = "_sim";

/** A service's own control routes, mounted under `/_sim/<key>/`. */
export interface PluginControlRoutes {
  /** The plugin key (`runs`, `accessControl`, `secrets`). */
  readonly key: string;
  /** Paths relative to `/_sim/<key>` (their `base` is ignored). */
  readonly routes: readonly Route[];
}

/** What the control API acts on. */
export interface ControlApiOptions {
  readonly sim: Simulator;
  /**
   * What `POST /_sim/reset` does: `doubles.reset()` (the starting world, the clock at its start,
   * the starting faults, the journal emptied), one implementation for both.
   */
  readonly reset: () => void;
  /** The journal of the handler the control API is mounted on. */
  readonly journal: () => readonly JournalEntry[];
  readonly clearJournal: () => void;
  readonly plugins?: readonly PluginControlRoutes[];
  /** The doubles' faults (`doubles.faults`), served as `/_sim/faults`. */
  readonly faults?: FaultControl;
  /** The doubles' coverage report (`doubles.coverage()`), served as `GET /_sim/coverage`; absent when coverage is off. */
  readonly coverage?: () => unknown;
  /** The state diagrams, served as `GET /_sim/diagrams` and `GET /_sim/diagrams/:table`. */
  readonly diagrams?: DiagramControl;
  /**
   * What each service stores, as read-only paged tables: served as `GET /_sim/tables` (the list)
   * and `GET /_sim/tables/:service/:table` (a page), and shown by the dashboard (`GET /_sim/ui`).
   */
  readonly tables?: readonly ServiceTables[];
}

/** What `/_sim/diagrams` reads: the state tables and their drawings (read-only). */
export interface DiagramControl {
  /** One entry per table, in listing order (`{"name": "runs", "title": "run", "service": "runs", "states": 27, "transitions": 41}`, ...). */
  list(): readonly { readonly name: string }[];
  /**
   * The diagram of table `name` in `format` (`svg` or `mermaid`), marked with what is stored now
   * (and with the coverage so far when coverage is on); `undefined` for an unknown table.
   */
  render(name: string, format: "svg" | "mermaid"): string | undefined;
}

/** One service's read-only tables (`ServicePlugin.tables`). */
export interface ServiceTables {
  /** The service key (`runs`, `accessControl`, `secrets`). */
  readonly key: string;
  readonly tables: readonly StoredTable[];
}

/**
 * How the dashboard shows a column's values: `text` (as is), `time` (an ISO 8601 instant of
 * simulated time), `duration` (ms, shown as `1h2m3s`), `list` (strings), `secret` (a credential:
 * answered as `***` unless `?reveal=true`), `status` (a state of a transition table, highlighted).
 */
export type StoredTableColumnKind = "text" | "time" | "duration" | "list" | "secret" | "status";

/** A column of a {@link StoredTable}. */
export interface StoredTableColumn {
  /** The row field (`id`, `status`). */
  readonly key: string;
  /** The header shown (`Status`). */
  readonly title: string;
  /** Default `text`. */
  readonly kind?: StoredTableColumnKind;
}

/** One cell: text, a number (a duration in ms for `duration` columns), a flag, nothing, or a list. */
export type StoredTableCell = string | number | boolean | null | readonly string[];

/** One row of a {@link StoredTable}, by column key. */
export type StoredTableRow = Readonly<Record<string, StoredTableCell>>;

/** What a page of a {@link StoredTable} is asked for (`?page=&size=&q=&reveal=`). */
export interface StoredTableQuery {
  /** 1-based page number. */
  readonly page: number;
  /** Rows per page (1 to 500, `MAX_TABLE_PAGE_SIZE`). */
  readonly size: number;
  /** Case-insensitive text every row shown contains in one of its cells (masked cells excluded); `""`: every row. */
  readonly q: string;
  /** Whether `secret` columns are answered as stored. */
  readonly reveal: boolean;
}

/** One page of a {@link StoredTable}: its rows, and how many rows match the query in all. */
export interface StoredTablePage {
  readonly rows: readonly StoredTableRow[];
  readonly total: number;
}

/**
 * A read-only table of what a service stores (runs, tokens, leases, ...), paged server-side so
 * that a world of 10,000 runs answers a page in the time of one page.
 */
export interface StoredTable {
  /** The table's name in the route (`GET /_sim/tables/runs/runs`): a lower camel-case word. */
  readonly name: string;
  /** The heading shown (`Runs`). */
  readonly title: string;
  readonly columns: readonly StoredTableColumn[];
  /** One page of the rows (usually {@link pageRows} over the state's items, read in one `sim.read`). */
  page(query: StoredTableQuery): StoredTablePage;
}

/** The largest `?size=` of a table page: 500 rows. */
export const MAX_TABLE_PAGE_SIZE = 500;

/** The rows per page when `?size=` is absent: 50. */
export const DEFAULT_TABLE_PAGE_SIZE = 50;

/**
 * One page of `items` as table rows: `row` runs only on the rows of the page when there is no
 * search text; with `query.q`, on every item (a search reads each row, masked as it is shown, so
 * a search never matches a credential it does not show). `secret` columns are {@link MASK}ed
 * unless `query.reveal`.
 * @param items - every item, in the order shown.
 * @param row - an item's row (cells by column key).
 * @example pageRows(Object.values(state.runs), runColumns, { page: 1, size: 50, q: "errored", reveal: false }, runRow)
 */
export function pageRows<T>(items: readonly T[], columns: readonly StoredTableColumn[], query: StoredTableQuery, row: (item: T) => StoredTableRow): StoredTablePage {
  const secrets = columns.filter((column) => column.kind === "secret").map((column) => column.key);
  const shown = (item: T): StoredTableRow => {
    const cells = row(item);
    if (query.reveal || secrets.length === 0) return cells;
    const masked: Record<string, StoredTableCell> = { ...cells };
    for (const key of secrets) if (masked[key] !== null && masked[key] !== undefined && masked[key] !== "") masked[key] = MASK;
    return masked;
  };
  const start = (query.page - 1) * query.size;
  const needle = query.q.trim().toLowerCase();
  if (needle === "") return { rows: items.slice(start, start + query.size).map(shown), total: items.length };
  const matching: StoredTableRow[] = [];
  let total = 0;
  for (const item of items) {
    const cells = shown(item);
    if (!rowContains(cells, needle)) continue;
    if (total >= start && matching.length < query.size) matching.push(cells);
    total += 1;
  }
  return { rows: matching, total };
}

function rowContains(row: StoredTableRow, needle: string): boolean {
  for (const cell of Object.values(row)) {
    if (cell === null) continue;
    const text = Array.isArray(cell) ? cell.join(" ") : String(cell);
    if (text.toLowerCase().includes(needle)) return true;
  }
  return false;
}

/** What `/_sim/faults` acts on: the doubles' fault set, in JSON terms. */
export interface FaultControl {
  /**
   * Adds a fault from its JSON definition and returns how it is listed.
   * @throws {TypeError} for a bad definition (answered 400).
   */
  add(definition: unknown): unknown;
  list(): readonly unknown[];
  clear(): void;
  /** Removes one fault; `false` when no fault has this id. */
  remove(id: string): boolean;
}

/** The clock as the control API shows it. */
export interface ClockView {
  /** Simulator time as ISO 8601 with milliseconds (`2024-01-01T00:00:30.000Z`). */
  readonly now: string;
  /** Simulator time, ms since the epoch. */
  readonly epochMs: number;
  /** Whether `POST /_sim/clock/advance` can move this clock. */
  readonly advanceable: boolean;
  /**
   * What drives the clock: `manual` (moves only when advanced), `advanceable` (real time that
   * advancing pushes forward), `system` (real time), `fake-timers` (`Date.now()`, e.g. vitest's fake
   * timers), `custom` (a `Clock` of the caller's).
   */
  readonly mode: ClockMode;
}

/** What drives a simulator's clock ({@link ClockView.mode}). */
export type ClockMode = "manual" | "advanceable" | "system" | "fake-timers" | "custom";

/**
 * The control API's mounts on `origin`: one per plugin with control routes (under
 * `/_sim/<key>`), then the core routes under `/_sim`:
 *
 * | Route | Body | Answer |
 * | --- | --- | --- |
 * | `GET /_sim` | | `{"routes": [{"route": "GET /_sim/clock", "body"?, "answer"?}, ...]}`: every control route mounted, core and per service, with the shapes its route table gives |
 * | `POST /_sim/reset` | | `options.reset()` (`doubles.reset()`: the starting state, the clock back at its start when the doubles own it, the starting faults, the journal emptied); `{"reset": true, "now", "epochMs", "advanceable"}` |
 * | `GET /_sim/clock` | | `{"now": ISO string, "epochMs": ms, "advanceable": bool, "mode": "manual" \| "advanceable" \| "system" \| "fake-timers" \| "custom"}` |
 * | `POST /_sim/clock/advance` | `{"by": "30s"}` or `{"by": 30000}` (ms) | the new clock; 400 bad input (not a duration, no unit as in `"600"`, negative, past year 275760), 409 clock cannot move |
 * | `GET /_sim/journal` | `?limit=N&after=SEQ&format=json\|ndjson&reveal=true`, all optional | streamed in pieces; `{"entries": [{"seq", "at", "epochMs", "durationMs", "service", "method", "url", "route", "operation", "status", "fault", "headers", "requestBody", "responseHeaders", "responseBody", "configurationFiles"?}], "next"?: seq}` (service requests only, oldest first: after `after` (exclusive), at most `limit`, `next` the `after` of the next page when one remains; `format=ndjson`: one entry per line; bodies as `{"text" or "base64", "size", "truncated"}`; credentials in the query, headers and JSON bodies masked as `***` unless `?reveal=true`) |
 * | `GET /_sim/journal/rows` | `?page=1&size=50&q=TEXT`, all optional | `{"rows": [{"seq", "at", "service", "method", "url", "route", "operation", "status", "fault", "durationMs"}], "total", "page", "size", "last"}`: service requests newest first, without bodies (`GET /_sim/journal?after=SEQ-1&limit=1` has one entry's), the URL masked as the journal masks it; `q` keeps rows with the text in a cell; `last` the newest seq (`null`: none) |
 * | `DELETE /_sim/journal` | | 204, journal emptied |
 * | `POST /_sim/faults` | a fault, e.g. `{"service": "runs", "route": "POST /runs/:run_id/actions/apply", "answer": "rate-limited", "times": 1}` | 201 `{"fault": {"id": "fault-1", ..., "seen": 0, "applied": 0}}`; 400 a bad definition |
 * | `GET /_sim/faults` | | `{"faults": [...]}` |
 * | `DELETE /_sim/faults` | | 204, every fault removed |
 * | `DELETE /_sim/faults/:id` | | 204; 404 no such fault |
 * | `GET /_sim/coverage` | | the coverage report of `doubles.coverage()` (`{"format": "infra-doubles-coverage/1", "services": {...}}`); 404 when coverage is off |
 * | `GET /_sim/diagrams` | | `{"diagrams": [{"name": "runs", "title": "run", "service": "runs", "states": 27, "transitions": 41, "formats": ["svg", "mermaid"]}, ...]}` |
 * | `GET /_sim/diagrams/:table` | `?format=svg\|mermaid` (default `svg`) | the table's state diagram (`image/svg+xml` or Mermaid `stateDiagram-v2` text), each state marked with the number of items stored in it now, and the transitions taken with their counts when coverage is on; 404 an unknown table (naming the tables), 400 another format |
 * | `GET /_sim/tables` | | `{"services": [{"key", "tables": [{"name", "title", "columns": [{"key", "title", "kind"}]}]}]}`: what {@link ControlApiOptions.tables} lists |
 * | `GET /_sim/tables/:service/:table` | `?page=1&size=50&q=TEXT&reveal=true`, all optional | `{"service", "table", "columns", "rows", "total", "page", "size"}`: one page (at most 500 rows), `secret` cells `***` unless `reveal=true`; 404 no such table, 400 a bad page or size |
 * | `GET /_sim/ui` (and `/_sim/ui/app.js`, `/_sim/ui/app.css`) | | the dashboard: a page reading the routes above (docs/guides/run-the-dev-server.md) |
 *
 * @example
 * const mounts = controlMounts("http://127.0.0.1:8080", { sim, reset: () => doubles.reset(), journal: () => [], clearJournal: () => {} });
 * // POST http://127.0.0.1:8080/_sim/clock/advance {"by":"10m"} -> {"now":"2024-01-01T00:10:00.000Z",...}
 */
export function controlMounts(origin: string, options: ControlApiOptions): ServiceMount[] {
  const pluginMounts = (options.plugins ?? []).map(({ key, routes }) => ({
    service: controlService(`${CONTROL_SERVICE}:${key}`, routes.map((route) => ({ ...route, base: "api" })), `${CONTROL_PREFIX}/${key}`),
    bases: { api: `${origin}${CONTROL_PREFIX}/${key}` },
  }));
  const listed = (options.plugins ?? []).map(({ key, routes }) => ({ prefix: `${CONTROL_PREFIX}/${key}`, routes }));
  const core = controlService(CONTROL_SERVICE, coreRoutes(options, listed), CONTROL_PREFIX);
  return [...pluginMounts, { service: core, bases: { api: `${origin}${CONTROL_PREFIX}` } }];
}

/** One row of the `GET /_sim` listing. */
export interface ControlRouteListing {
  /** `METHOD /_sim/path` (`GET|POST` for a row answering several methods). */
  readonly route: string;
  readonly body?: string;
  readonly answer?: string;
}

/**
 * The listing of `GET /_sim`: every route of the given route tables under their prefixes, with
 * the shapes their `doc` gives.
 * @example listControlRoutes([{ prefix: "/_sim", routes }])[0] // { route: "POST /_sim/reset", answer: "..." }
 */
export function listControlRoutes(tables: readonly { readonly prefix: string; readonly routes: readonly Route[] }[]): ControlRouteListing[] {
  return tables.flatMap(({ prefix, routes }) =>
    routes.map((route) => ({
      route: `${methodLabel(route)} ${prefix}${route.path === "/" ? "" : route.path}`,
      ...(route.doc?.body === undefined ? {} : { body: route.doc.body }),
      ...(route.doc?.answer === undefined ? {} : { answer: route.doc.answer }),
    })),
  );
}

function coreRoutes(options: ControlApiOptions, plugins: readonly { readonly prefix: string; readonly routes: readonly Route[] }[]): Route[] {
  const { sim } = options;
  const routes: Route[] = [
    {
      method: "GET",
      path: "/",
      doc: { answer: '200 {"routes": [{"route", "body"?, "answer"?}]}' },
      handler: () => json(200, { routes: listControlRoutes([{ prefix: CONTROL_PREFIX, routes: routes.filter((r) => r.path !== "/") }, ...plugins]) }),
    },
    {
      method: "POST",
      path: "/reset",
      doc: { answer: '200 {"reset": true, "now", "epochMs", "advanceable"}: the starting state again (the clock back at its start, the starting faults, the journal emptied)' },
      handler: () => {
        options.reset();
        return json(200, { reset: true, ...clockView(sim) });
      },
    },
    { method: "GET", path: "/clock", doc: { answer: '200 {"now": ISO 8601, "epochMs": ms, "advanceable": boolean}' }, handler: () => json(200, clockView(sim)) },
    {
      method: "POST",
      path: "/clock/advance",
      doc: { body: '{"by": "30s" | 30000 (ms)}', answer: "200 the new clock; 400 not a duration; 409 a clock that cannot move" },
      handler: ({ request }) => {
        const by = advanceBy(bodyText(request));
        if (!canAdvance(sim)) {
          throw controlError("conflict", "advance clock", "this server's clock follows real time and cannot be advanced (start it with an advanceable or manual clock)");
        }
        try {
          sim.advance(by);
        } catch (error) {
          // A move past the latest time a Date can hold: refused, the clock stays where it was.
          if (error instanceof UsageError) throw controlError("invalid", "advance clock", withoutPrefix(error.message));
          throw error;
        }
        return json(200, clockView(sim));
      },
    },
    {
      method: "GET",
      path: "/journal",
      doc: {
        answer:
          '200 {"entries": [{"seq", "at", "epochMs", "service", "method", "url", "status", "headers", ...}], "next"?: seq} (credentials masked unless ?reveal=true; ?limit=N&after=SEQ pages, "next" is the after= of the next page; ?format=ndjson: one entry per line)',
      },
      handler: ({ query }) => journalAnswer(options.journal(), query),
    },
    {
      method: "GET",
      path: "/journal/rows",
      doc: {
        answer:
          '200 {"rows": [{"seq", "at", "service", "method", "url", "route", "operation", "status", "fault", "durationMs"}], "total", "page", "size", "last"} (newest first, no bodies, the URL masked; ?page=&size=&q=)',
      },
      handler: ({ query }) => json(200, journalRows(options.journal(), tableQuery(query, "read journal"))),
    },
    {
      method: "DELETE",
      path: "/journal",
      doc: { answer: "204, the journal emptied" },
      handler: () => {
        options.clearJournal();
        return empty(204);
      },
    },
    ...(options.faults === undefined ? [] : faultRoutes(options.faults)),
    ...(options.coverage === undefined ? [] : [coverageRoute(options.coverage)]),
    ...(options.diagrams === undefined ? [] : diagramRoutes(options.diagrams)),
    ...tableRoutes(options.tables ?? []),
    ...dashboardRoutes(),
  ];
  return routes;
}

/** Characters of serialised entries the journal answer gathers before it hands a piece to the server. */
const JOURNAL_PIECE_CHARS = 64 * 1024;

/**
 * `GET /_sim/journal`: service entries (control requests are never journalled), after `?after=SEQ`
 * (exclusive), at most `?limit=N` of them, as `{"entries": [...], "next"?: seq}` or, with
 * `?format=ndjson`, one entry per line. Streamed ({@link SimResponse.stream}): each entry is
 * serialised only when the server asks for the next piece, so a full journal (1,000 entries of
 * 16 KiB bodies: 17 MB) never holds the event loop for more than a few entries.
 * @throws the control API's 400 `invalid` for a `limit` that is not a whole number above 0, an
 *   `after` that is not a whole number, or a `format` other than `json` and `ndjson`.
 */
function journalAnswer(all: readonly JournalEntry[], query: URLSearchParams): SimResponse {
  const reveal = query.get(REVEAL_PARAMETER)?.toLowerCase() === "true";
  const limit = wholeParameter(query, "limit", 1);
  const after = wholeParameter(query, "after", 0) ?? 0;
  const format = query.get("format") ?? "json";
  if (format !== "json" && format !== "ndjson") throw controlError("invalid", "read journal", `format must be json or ndjson; got ${JSON.stringify(format)}`);
  const entries: JournalEntry[] = [];
  let more = false;
  for (const entry of all) {
    if (entry.seq <= after || entry.service?.startsWith(CONTROL_SERVICE) === true) continue;
    if (limit !== undefined && entries.length === limit) {
      more = true;
      break;
    }
    entries.push(entry);
  }
  const next = more ? entries.at(-1)?.seq : undefined;
  const ndjson = format === "ndjson";
  return {
    status: 200,
    headers: { "content-type": ndjson ? "application/x-ndjson" : "application/json" },
    stream: function* pieces() {
      let piece = ndjson ? "" : '{"entries":[';
      for (const [index, entry] of entries.entries()) {
        const text = JSON.stringify(journalWire(entry, reveal));
        piece += ndjson ? `${text}\n` : index === 0 ? text : `,${text}`;
        if (piece.length >= JOURNAL_PIECE_CHARS) {
          yield piece;
          piece = "";
        }
      }
      if (!ndjson) piece += next === undefined ? "]}" : `],"next":${next}}`;
      if (piece !== "") yield piece;
    },
  };
}

/** A whole-number query parameter of at least `min` (`undefined` when absent). */
function wholeParameter(query: URLSearchParams, name: string, min: number, action = "read journal"): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  if (!/^\d{1,15}$/.test(text) || Number(text) < min) {
    throw controlError("invalid", action, `${name} must be a whole number of at least ${min}; got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/**
 * `?page=&size=&q=&reveal=` of a table route.
 * @throws the control API's 400 `invalid` for a page below 1 or a size outside 1 to {@link MAX_TABLE_PAGE_SIZE}.
 */
function tableQuery(query: URLSearchParams, action: string): StoredTableQuery {
  const page = wholeParameter(query, "page", 1, action) ?? 1;
  const size = wholeParameter(query, "size", 1, action) ?? DEFAULT_TABLE_PAGE_SIZE;
  if (size > MAX_TABLE_PAGE_SIZE) throw controlError("invalid", action, `size must be at most ${MAX_TABLE_PAGE_SIZE}; got ${size}`);
  return { page, size, q: query.get("q") ?? "", reveal: query.get(REVEAL_PARAMETER)?.toLowerCase() === "true" };
}

/** The columns of `GET /_sim/journal/rows`. */
const JOURNAL_COLUMNS: readonly StoredTableColumn[] = [
  { key: "seq", title: "#" },
  { key: "at", title: "At", kind: "time" },
  { key: "service", title: "Service" },
  { key: "method", title: "Method" },
  { key: "url", title: "URL" },
  { key: "route", title: "Route" },
  { key: "operation", title: "Operation" },
  { key: "status", title: "Status" },
  { key: "fault", title: "Fault" },
  { key: "durationMs", title: "ms" },
];

/**
 * `GET /_sim/journal/rows`: service entries newest first, without bodies, the URL masked as
 * `GET /_sim/journal` masks it (never revealed here: a body or a revealed URL is one entry's
 * `GET /_sim/journal?after=SEQ-1&limit=1&reveal=true`).
 */
function journalRows(all: readonly JournalEntry[], query: StoredTableQuery): Record<string, unknown> {
  const newestFirst: JournalEntry[] = [];
  for (let index = all.length - 1; index >= 0; index -= 1) {
    const entry = all[index];
    if (entry !== undefined && entry.service?.startsWith(CONTROL_SERVICE) !== true) newestFirst.push(entry);
  }
  const page = pageRows(newestFirst, JOURNAL_COLUMNS, { ...query, reveal: false }, (entry) => ({
    seq: entry.seq,
    at: isoMillis(entry.at),
    service: entry.service ?? null,
    method: entry.method,
    url: maskUrl(entry.url),
    route: entry.route ?? null,
    operation: entry.operation ?? null,
    status: entry.status,
    fault: entry.fault ?? null,
    durationMs: entry.durationMs,
  }));
  return { ...page, page: query.page, size: query.size, last: newestFirst[0]?.seq ?? null };
}

/** `GET /_sim/tables` and `GET /_sim/tables/:service/:table` over `services`. */
function tableRoutes(services: readonly ServiceTables[]): Route[] {
  if (services.length === 0) return [];
  return [
    {
      method: "GET",
      path: "/tables",
      doc: { answer: '200 {"services": [{"key", "tables": [{"name", "title", "columns": [{"key", "title", "kind"}]}]}]}' },
      handler: () =>
        json(200, {
          services: services.map(({ key, tables }) => ({
            key,
            tables: tables.map(({ name, title, columns }) => ({ name, title, columns: columns.map((column) => ({ ...column, kind: column.kind ?? "text" })) })),
          })),
        }),
    },
    {
      method: "GET",
      path: "/tables/:service/:table",
      doc: { answer: '200 {"service", "table", "columns", "rows", "total", "page", "size"} (?page=&size=&q=&reveal=true; secret cells *** unless revealed); 404 no such table' },
      handler: ({ params, query }) => {
        const service = services.find((entry) => entry.key === params.service);
        const table = service?.tables.find((entry) => entry.name === params.table);
        if (service === undefined || table === undefined) {
          const known = services.flatMap(({ key, tables }) => tables.map((entry) => `${key}/${entry.name}`));
          throw controlError("not_found", "read table", `no table ${JSON.stringify(`${params.service ?? ""}/${params.table ?? ""}`)} (tables: ${known.join(", ")})`);
        }
        const request = tableQuery(query, "read table");
        const page = table.page(request);
        return json(200, { service: service.key, table: table.name, columns: table.columns.map((column) => ({ ...column, kind: column.kind ?? "text" })), ...page, page: request.page, size: request.size });
      },
    },
  ];
}

/** `GET /_sim/coverage`: what the requests so far exercised (docs/guides/see-what-your-tests-never-exercised.md). */
function coverageRoute(coverage: () => unknown): Route {
  return { method: "GET", path: "/coverage", doc: { answer: "200 the coverage report (endpoints, states, transitions, ...)" }, handler: () => json(200, coverage()) };
}

/** The formats `GET /_sim/diagrams/:table?format=` takes, the default first. */
const DIAGRAM_FORMATS = ["svg", "mermaid"] as const;

/**
 * `GET /_sim/diagrams` (the tables) and `GET /_sim/diagrams/:table` (one drawn): read-only. The SVG
 * is answered with a `Content-Security-Policy` that allows no script or fetch, so opening it from
 * the server's origin runs nothing (docs/decisions/coverage.md "State diagrams").
 * @throws the control API's 404 `not_found` for an unknown table (the message names the tables)
 *   and 400 `invalid` for a format other than `svg` and `mermaid`.
 */
function diagramRoutes(diagrams: DiagramControl): Route[] {
  return [
    {
      method: "GET",
      path: "/diagrams",
      doc: { answer: '200 {"diagrams": [{"name", "title", "service", "states", "transitions", "formats"}]}' },
      handler: () => json(200, { diagrams: diagrams.list().map((entry) => ({ ...entry, formats: [...DIAGRAM_FORMATS] })) }),
    },
    {
      method: "GET",
      path: "/diagrams/:table",
      doc: { answer: "200 the state diagram (?format=svg, the default, or mermaid) with the current state counts; 404 an unknown table; 400 another format" },
      handler: ({ params, query }) => {
        const format = query.get("format") ?? "svg";
        if (!(DIAGRAM_FORMATS as readonly string[]).includes(format)) {
          throw controlError("invalid", "draw state diagram", `format must be ${DIAGRAM_FORMATS.join(" or ")}; got ${JSON.stringify(format)}`);
        }
        const name = params.table ?? "";
        const drawn = diagrams.render(name, format as "svg" | "mermaid");
        if (drawn === undefined) {
          const names = diagrams.list().map((entry) => entry.name);
          throw controlError("not_found", "draw state diagram", `no state table ${JSON.stringify(name)}; the tables are ${names.join(", ")} (GET /_sim/diagrams lists them)`);
        }
        const headers: Record<string, string> =
          format === "svg"
            ? { "content-type": "image/svg+xml; charset=utf-8", "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'", "x-content-type-options": "nosniff" }
            : { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };
        return { status: 200, headers, body: drawn };
      },
    },
  ];
}

/** `/_sim/faults`: add (POST), list (GET), clear (DELETE), remove one (DELETE /:id). */
function faultRoutes(faults: FaultControl): Route[] {
  return [
    {
      method: "POST",
      path: "/faults",
      doc: {
        body: '{"service", "route"? | "operation"?, "answer"? | "connection"? | "latency"?, "commit"?, "times"?, "after"?, "probability"?, "from"?, "until"?, "retryAfter"?, "id"?}',
        answer: '201 {"fault": {"id", ..., "seen", "applied", "exhausted"}}; 400 a bad definition',
      },
      handler: ({ request }) => {
        const definition = parseControlJson(bodyText(request), "add fault", `the body must be a JSON fault like {"service": "runs", "answer": "rate-limited"}`);
        try {
          return json(201, { fault: faults.add(definition) });
        } catch (error) {
          if (error instanceof TypeError) throw controlError("invalid", "add fault", withoutPrefix(error.message).replace(/^faults\.add: /, ""));
          throw error;
        }
      },
    },
    { method: "GET", path: "/faults", doc: { answer: '200 {"faults": [...]}' }, handler: () => json(200, { faults: faults.list() }) },
    {
      method: "DELETE",
      path: "/faults",
      doc: { answer: "204, every fault removed" },
      handler: () => {
        faults.clear();
        return empty(204);
      },
    },
    {
      method: "DELETE",
      path: "/faults/:id",
      doc: { answer: "204; 404 no such fault" },
      handler: ({ params }) => {
        const id = params.id ?? "";
        if (!faults.remove(id)) throw controlError("not_found", "remove fault", `no fault ${JSON.stringify(id)} (GET /_sim/faults lists them)`);
        return empty(204);
      },
    },
  ];
}

/**
 * The simulator clock as `GET /_sim/clock` answers it.
 * @example clockView(sim) // { now: "2024-01-01T00:00:00.000Z", epochMs: 1704067200000, advanceable: true, mode: "manual" }
 */
export function clockView(sim: Simulator): ClockView {
  const epochMs = sim.now();
  return { now: isoMillis(epochMs), epochMs, advanceable: canAdvance(sim), mode: clockMode(sim) };
}

function clockMode(sim: Simulator): ClockMode {
  const { clock } = sim;
  if (clock instanceof ManualClock) return "manual";
  if (clock instanceof AdvanceableClock) return "advanceable";
  if (clock instanceof SystemClock) return "system";
  if (clock instanceof GlobalDateClock) return "fake-timers";
  return "custom";
}

function methodLabel(route: Route): string {
  return typeof route.method === "string" ? route.method : route.method.join("|");
}

function canAdvance(sim: Simulator): boolean {
  return typeof (sim.clock as { advance?: unknown }).advance === "function";
}

/**
 * A control API body as JSON, read as the services read theirs (`go-json-syntax.ts`): nesting
 * beyond {@link GO_MAX_JSON_DEPTH} levels is refused before anything walks the value (no recursion
 * over a body of any depth), and a body that is not JSON is worded as Go's decoder words it (the
 * same message on every Node version, unlike `JSON.parse`'s).
 * @throws the control API's 400 `malformed` error: `<expectation>: <Go's message>`.
 */
function parseControlJson(text: string, action: string, expectation: string): unknown {
  if (jsonDepthExceeds(text, GO_MAX_JSON_DEPTH)) throw controlError("malformed", action, `${expectation}: exceeded max depth`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw controlError("malformed", action, `${expectation}: ${goJsonSyntaxMessage(text, error)}`);
  }
}

/** Reads `{"by": "30s"}` or `{"by": 30000}` (ms) as whole ms; a string needs a unit. */
function advanceBy(text: string): number {
  const body = parseControlJson(text, "advance clock", `the body must be JSON like {"by": "30s"} or {"by": 30000}`);
  const by = typeof body === "object" && body !== null ? (body as { by?: unknown }).by : undefined;
  if (typeof by !== "string" && typeof by !== "number") {
    throw controlError("invalid", "advance clock", `"by" must be a duration string ("30s", "1h30m") or milliseconds (30000); got ${JSON.stringify(by) ?? "nothing"}`);
  }
  try {
    return clockDurationMs(by);
  } catch (error) {
    if (error instanceof UsageError) throw controlError("invalid", "advance clock", `"by": ${withoutPrefix(error.message)}`);
    throw error;
  }
}

function withoutPrefix(message: string): string {
  return message.replace(/^infra-doubles: /, "");
}

function controlError(code: DomainErrorCode, operation: string, message: string): DomainError {
  return new DomainError({ code, service: CONTROL_SERVICE, operation, message });
}

const STATUS: Readonly<Record<DomainErrorCode, number>> = {
  malformed: 400,
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  unsupported: 405,
  conflict: 409,
  precondition_failed: 409,
  acl_not_found: 404,
  internal: 500,
  unavailable: 503,
};

function errorBody(status: number, code: string, message: string): SimResponse {
  return json(status, { error: { status, code, message } });
}

/** {@link CONTROL_MAX_BODY_BYTES} as every control service's body limit. */
const CONTROL_BODY_LIMIT = {
  maxBytes: CONTROL_MAX_BODY_BYTES,
  tooLarge: (request: SimRequest): SimResponse =>
    errorBody(
      413,
      "request_too_large",
      `a control API request body is limited to 8 MiB (${CONTROL_MAX_BODY_BYTES} bytes); ${request.method} ${request.url.pathname} sent more (split a scenario document into several POST /_sim/scenario calls)`,
    ),
};

/**
 * A control service: its routes, with library-misuse errors ({@link UsageError}, e.g. a bad
 * argument to a scenario control) answered as 400 instead of a library-bug 500, and a body nested
 * beyond {@link GO_MAX_JSON_DEPTH} levels refused (400 `malformed`) before any route walks it
 * (checked in one non-recursive pass, as the services check theirs). Errors name the route as
 * it is called (`_sim: cannot POST /_sim/runs/workspaces: ...`).
 * @param prefix - the mount's path on the origin (`/_sim`, `/_sim/runs`).
 */
function controlService(name: string, routes: readonly Route[], prefix: string): HttpService {
  return {
    name,
    journaled: false,
    bodyLimit: CONTROL_BODY_LIMIT,
    routes: routes.map((route) => {
      const label = `${methodLabel(route)} ${prefix}${route.path === "/" ? "" : route.path}`;
      return {
        ...route,
        handler: async (ctx) => {
          if (ctx.request.body.length > 0 && jsonDepthExceeds(bodyText(ctx.request), GO_MAX_JSON_DEPTH)) {
            throw controlError("malformed", label, "the body must be JSON: exceeded max depth");
          }
          try {
            return await route.handler(ctx);
          } catch (error) {
            if (error instanceof UsageError) throw controlError("invalid", label, error.message);
            throw error;
          }
        },
      };
    }),
    errorResponse: (error) => {
      if (!isDomainError(error)) return errorBody(500, "internal", String(error));
      const status = error.status ?? STATUS[error.code];
      return errorBody(status, error.code, error.message);
    },
    noRoute: (request, nearest, methodMismatch) =>
      methodMismatch
        ? errorBody(405, "method_not_allowed", `${request.method} is not allowed on ${request.url.pathname}; try ${nearest.join(", ")}`)
        : errorBody(404, "not_found", `no control route ${request.method} ${request.url.pathname}; nearest: ${nearest.join(", ")}`),
  };
}

/**
 * Header carrying the control token when the server requires one (bound beyond loopback, or
 * started with a token): `X-Infra-Doubles-Control-Token: <token>`.
 */
export const CONTROL_TOKEN_HEADER = "x-infra-doubles-control-token";

/** Query parameter of `GET /_sim/journal` that shows credentials unmasked (`?reveal=true`). */
export const REVEAL_PARAMETER = "reveal";

/** Who may use the `/_sim/` control API of a server (see docs/decisions/security.md). */
export interface ControlAccessPolicy {
  /**
   * `Host` values the control API answers, lower case: `name:port` (that port only) or `name`
   * (any port). IPv6 literals in brackets (`[::1]:8080`).
   */
  readonly allowedHosts: readonly string[];
  /** When set, every control request must carry it in {@link CONTROL_TOKEN_HEADER}. */
  readonly token?: string;
}

/** Whether `path` (a URL pathname) is under the control API. */
export function isControlPath(pathname: string): boolean {
  return pathname === CONTROL_PREFIX || pathname.startsWith(`${CONTROL_PREFIX}/`);
}

/**
 * The refusal of a control request the policy does not allow, or `undefined` to let it through.
 * In order: a `Host` the server does not answer to (DNS rebinding) or a missing one, 403; an
 * `Origin` naming another host (or `null`), 403; `Sec-Fetch-Site: cross-site`, 403; a missing or
 * wrong control token, 401 (but on a `GET` of the dashboard's files, `/_sim/ui`, which hold no
 * state: a browser's navigation cannot send the header, and the page sends it on every request it
 * makes); a `POST`/`PUT`/`PATCH` without a JSON content type (a cross-site
 * "simple" `text/plain` POST needs no preflight; YAML types, used by `POST /_sim/scenario`, need
 * one too), 415. Bodies are the control API's
 * `{"error": {"status", "code", "message"}}`.
 * @example controlRefusal(request, { allowedHosts: ["localhost:8080"] }) // undefined, or a 403/401/415 answer
 */
export function controlRefusal(request: SimRequest, policy: ControlAccessPolicy): SimResponse | undefined {
  const host = request.headers.host;
  if (host === undefined || !hostAllowed(host, policy.allowedHosts)) {
    return errorBody(
      403,
      "forbidden",
      `the control API answers only requests whose Host names this server (${policy.allowedHosts.join(", ")}); got ${host === undefined ? "no Host" : JSON.stringify(host)} (start the server with --allowed-host to add a name)`,
    );
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !originAllowed(origin, policy.allowedHosts)) {
    return errorBody(403, "forbidden", `the control API refuses cross-site requests (Origin ${JSON.stringify(origin)})`);
  }
  if (request.headers["sec-fetch-site"]?.trim().toLowerCase() === "cross-site") {
    return errorBody(403, "forbidden", "the control API refuses cross-site requests (Sec-Fetch-Site: cross-site)");
  }
  // The dashboard's own files (the same bytes for everyone, no state in them) load without the
  // token: a browser cannot send a header on a navigation. Every request they make sends it.
  if (policy.token !== undefined && !(request.method === "GET" && isDashboardAsset(request.url.pathname)) && !tokenMatches(request.headers[CONTROL_TOKEN_HEADER], policy.token)) {
    return errorBody(401, "unauthenticated", `the control API of this server needs its control token in the ${CONTROL_TOKEN_HEADER} header (printed when the server started)`);
  }
  if (["POST", "PUT", "PATCH"].includes(request.method) && !isJsonType(request.headers["content-type"]) && !isYamlType(request.headers["content-type"])) {
    return errorBody(415, "unsupported_media_type", `${request.method} on the control API needs Content-Type: application/json (or application/yaml for a scenario document)`);
  }
  return undefined;
}

/**
 * The refusal of a control request from its head alone (what the local server knows before it
 * reads a body), or `undefined`: a head no browser or ordinary client sends - a second `Host` line
 * (each of them could name a different server) or an absolute-form target (a proxy's request,
 * `GET http://host/_sim/clock`) - is 403, then every check of {@link controlRefusal}.
 * @example controlHeadRefusal({ method: "GET", url, headers, target: url.href, hostLines: 1 }, policy) // 403: absolute-form
 */
export function controlHeadRefusal(head: RequestHead, policy: ControlAccessPolicy): SimResponse | undefined {
  if (head.hostLines > 1) {
    return errorBody(403, "forbidden", `the control API refuses a request with ${head.hostLines} Host header lines (send one)`);
  }
  if (!head.target.startsWith("/")) {
    return errorBody(403, "forbidden", `the control API answers origin-form targets only (${CONTROL_PREFIX}/...), not an absolute-form target (a proxy request)`);
  }
  return controlRefusal({ method: head.method, url: head.url, headers: head.headers, body: EMPTY_BODY }, policy);
}

const EMPTY_BODY = new Uint8Array();

/**
 * The handler with {@link controlRefusal} in front of every `/_sim/` request (service routes are
 * untouched: real clients send any `Host`), asked by the local server from the head, before any
 * body byte is read ({@link Handler.admit}, {@link controlHeadRefusal}), and again when the request
 * is handled. Refused requests change nothing and are not journalled.
 * @example const guarded = guardControl(doubles.handlerFor(origin), { allowedHosts: ["127.0.0.1:8080"] });
 */
export function guardControl(handler: Handler, policy: ControlAccessPolicy): Handler {
  return {
    get sim() {
      return handler.sim;
    },
    get mounts() {
      return handler.mounts;
    },
    get origins() {
      return handler.origins;
    },
    get journal() {
      return handler.journal;
    },
    get requests() {
      return handler.requests;
    },
    owns: (url) => handler.owns(url),
    maxBodyBytes: (url) => handler.maxBodyBytes(url),
    clearJournal: () => handler.clearJournal(),
    admit: (head) => (isControlPath(head.url.pathname) ? controlHeadRefusal(head, policy) : handler.admit?.(head)),
    handle: async (request) => {
      if (isControlPath(request.url.pathname)) {
        const refusal = controlRefusal(request, policy);
        if (refusal !== undefined) return refusal;
      }
      return handler.handle(request);
    },
  };
}

/**
 * The `Host` values a server bound to `address:port` answers on its control API: the loopback
 * names (`localhost`, `127.0.0.1`, `[::1]`) and the bound address with the port (every interface
 * address when bound to a wildcard such as `0.0.0.0`), plus `extra` (`name` for any port, or
 * `name:port`).
 * @example controlHosts("127.0.0.1", 8080, ["dev.internal"]) // ["localhost:8080", "127.0.0.1:8080", "[::1]:8080", "dev.internal"]
 */
export function controlHosts(address: string, port: number, extra: readonly string[] = [], interfaceAddresses: readonly string[] = []): string[] {
  const names = ["localhost", "127.0.0.1", "[::1]", bracketed(address)];
  if (isWildcard(address)) names.push(...interfaceAddresses.map(bracketed));
  const withPort = names.map((name) => `${name.toLowerCase()}:${port}`);
  return [...new Set([...withPort, ...extra.map((host) => host.trim().toLowerCase()).filter((host) => host !== "")])];
}

/**
 * Whether a bind address reaches beyond this machine (anything but `127.0.0.0/8`, `::1`,
 * `localhost`): such a server gets a control token.
 * @example bindsBeyondLoopback("0.0.0.0") // true
 */
export function bindsBeyondLoopback(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  return !(bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) || bare === "::ffff:127.0.0.1");
}

function isWildcard(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  return bare === "0.0.0.0" || bare === "::" || bare === "";
}

function bracketed(address: string): string {
  return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}

/** Splits `name[:port]` (IPv6 in brackets); a missing port is 80 (the default of `http:`). */
function splitHost(value: string): { name: string; port: string | undefined } {
  const text = value.trim().toLowerCase();
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(text);
  if (match === null) return { name: text, port: undefined };
  return { name: match[1] ?? "", port: match[2] === undefined || match[2] === "" ? undefined : String(Number(match[2])) };
}

function hostAllowed(value: string, allowed: readonly string[]): boolean {
  const { name, port } = splitHost(value);
  if (name === "") return false;
  return allowed.some((entry) => {
    const want = splitHost(entry);
    return want.name === name && (want.port === undefined || want.port === (port ?? "80"));
  });
}

function originAllowed(origin: string, allowed: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // The server speaks http only: an https (or any other) origin is never this server's page.
  if (url.protocol !== "http:") return false;
  return hostAllowed(url.port === "" ? `${url.hostname}:80` : url.host, allowed);
}

function isJsonType(contentType: string | undefined): boolean {
  const media = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return media === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(media);
}

/**
 * YAML media types (`application/yaml`, `application/x-yaml`, `text/yaml`, `text/x-yaml`): none is
 * a CORS-safelisted type, so a cross-site page cannot send one without a preflight.
 */
export function isYamlType(contentType: string | undefined): boolean {
  const media = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return /^(application|text)\/(x-)?yaml$/.test(media);
}

function tokenMatches(sent: string | undefined, token: string): boolean {
  if (sent === undefined) return false;
  const digest = (text: string): Buffer => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(sent.trim()), digest(token));
}

export { MASK, maskHeaders, maskUrl } from "./journal.js";
