// The dashboard of the dev server (GET /_sim/ui): plain browser JavaScript, no library, no build.
// It reads the control API beside it (the page is /_sim/ui, so the API is "..": a world's page
// reads its own world's API) and writes only through POST /_sim/clock/advance. Every value is put
// in the page as text (textContent), never as HTML. The control token, when the server needs one,
// is asked for in a form, kept in sessionStorage and sent in its header: never in a URL.
/* global document, sessionStorage, Headers, Blob */

performance.mark("dashboard:boot");

const API = new URL("..", import.meta.url);
const TOKEN_KEY = "infra-doubles-control-token";
const TOKEN_HEADER = "x-infra-doubles-control-token";
const POLL_MS = 1000;

const $ = (id) => document.getElementById(id);

const view = {
  token: sessionStorage.getItem(TOKEN_KEY) ?? "",
  routes: new Set(),
  services: [],
  service: "",
  table: "",
  tablePage: 1,
  tableSize: 50,
  tableQuery: "",
  reveal: false,
  journalPage: 1,
  journalSize: 25,
  journalQuery: "",
  journalReveal: false,
  journalLast: undefined,
  journalSeq: undefined,
  clock: undefined,
  started: false,
  timer: undefined,
};

class NeedsToken extends Error {}

/**
 * Whether the control API lists `GET <its prefix><path>` (GET /_sim answers the listing): the
 * prefix is left out, so a world's API, listed under its own prefix, is read the same way.
 */
function offers(path) {
  for (const route of view.routes) if (route.startsWith("GET /") && route.endsWith(path) && !route.slice(4, -path.length).includes(":")) return true;
  return false;
}

/** A control API request, the token in its header when there is one; 401 asks for the token. */
async function api(path, init = {}) {
  const headers = new Headers(init.headers);
  if (view.token !== "") headers.set(TOKEN_HEADER, view.token);
  const response = await fetch(new URL(path, API), { ...init, headers, cache: "no-store", credentials: "same-origin", redirect: "error" });
  if (response.status === 401) {
    askForToken(view.token === "" ? "" : "The server refused this token.");
    throw new NeedsToken();
  }
  if (!response.ok) {
    let message = `${response.status}`;
    try {
      message = (await response.json()).error?.message ?? message;
    } catch {
      // not the control API's JSON error
    }
    throw new Error(`${init.method ?? "GET"} ${path}: ${message}`);
  }
  return response;
}

const json = async (path, init) => (await api(path, init)).json();

function query(values) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== "" && value !== false && value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

function showError(error) {
  if (error instanceof NeedsToken) return;
  const box = $("error");
  box.textContent = String(error instanceof Error ? error.message : error);
  box.hidden = false;
}

function clearError() {
  $("error").hidden = true;
}

// ---- the control token ---------------------------------------------------------------------

function askForToken(message) {
  stopPolling();
  const form = $("token-form");
  form.hidden = false;
  $("token-error").textContent = message;
  $("token-error").hidden = message === "";
  $("token-input").focus();
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  view.token = $("token-input").value.trim();
  $("token-input").value = "";
  sessionStorage.setItem(TOKEN_KEY, view.token);
  $("token-form").hidden = true;
  start();
});

// ---- formatting ----------------------------------------------------------------------------

/** ms as a Go duration (`1h2m3s`, `450ms`). */
function duration(ms) {
  if (ms === 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  let rest = Math.floor(ms / 1000);
  const hours = Math.floor(rest / 3600);
  rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  const seconds = rest - minutes * 60;
  return `${hours > 0 ? `${hours}h` : ""}${hours > 0 || minutes > 0 ? `${minutes}m` : ""}${seconds}s`;
}

/** `2024-01-01T00:10:00.000Z` as `2024-01-01 00:10:00` (the full instant in the title). */
function shortTime(iso) {
  return iso.replace("T", " ").replace(/\.000Z$/, "").replace(/Z$/, "");
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
}

/** A table cell for `value` of a column of `kind` (the kinds of GET /_sim/tables). */
function cell(value, kind) {
  const td = document.createElement("td");
  if (value === null || value === undefined) {
    td.textContent = "-";
    td.className = "none";
    return td;
  }
  switch (kind) {
    case "time":
      td.textContent = shortTime(String(value));
      td.title = String(value);
      break;
    case "duration":
      td.textContent = duration(Number(value));
      break;
    case "list":
      for (const item of Array.isArray(value) ? value : [value]) td.append(element("div", String(item)));
      break;
    case "secret":
      td.append(element("code", String(value)));
      break;
    case "status":
      td.append(element("span", String(value), `status status-${String(value).replace(/[^a-z_-]/gi, "")}`));
      break;
    default:
      td.textContent = typeof value === "boolean" ? (value ? "yes" : "no") : Array.isArray(value) ? value.join(", ") : String(value);
  }
  return td;
}

/** Replaces `table`'s rows: a header of `columns` and one row per item of `rows`. */
function fillTable(table, columns, rows, onRow) {
  const head = document.createElement("thead");
  const headRow = document.createElement("tr");
  for (const column of columns) headRow.append(element("th", column.title));
  head.append(headRow);
  const body = document.createElement("tbody");
  for (const row of rows) {
    const tr = document.createElement("tr");
    for (const column of columns) tr.append(cell(row[column.key], column.kind));
    if (onRow !== undefined) onRow(tr, row);
    body.append(tr);
  }
  if (rows.length === 0) {
    const tr = document.createElement("tr");
    const td = element("td", "nothing here", "none");
    td.colSpan = Math.max(1, columns.length);
    tr.append(td);
    body.append(tr);
  }
  table.replaceChildren(head, body);
}

/** Previous / next buttons and "page x of y (n rows)" for a paged answer. */
function fillPager(pager, answer, go) {
  const pages = Math.max(1, Math.ceil(answer.total / answer.size));
  const previous = element("button", "<", "page-previous");
  previous.type = "button";
  previous.disabled = answer.page <= 1;
  previous.setAttribute("aria-label", "previous page");
  previous.addEventListener("click", () => go(answer.page - 1));
  const next = element("button", ">", "page-next");
  next.type = "button";
  next.disabled = answer.page >= pages;
  next.setAttribute("aria-label", "next page");
  next.addEventListener("click", () => go(answer.page + 1));
  pager.replaceChildren(previous, element("span", `page ${answer.page} of ${pages} (${answer.total} rows)`), next);
}

/** Reads `node`'s height: the browser lays the page out now, so a render's measure includes style and layout. */
function layout(node) {
  return node.offsetHeight;
}

function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

// ---- the clock -----------------------------------------------------------------------------

function renderClock(clock) {
  view.clock = clock;
  const now = $("clock-now");
  now.textContent = shortTime(clock.now);
  now.dateTime = clock.now;
  now.dataset.epochMs = String(clock.epochMs);
  $("clock-mode").textContent = clock.mode ?? (clock.advanceable ? "advanceable" : "fixed");
  for (const button of document.querySelectorAll("[data-advance]")) {
    button.disabled = !clock.advanceable;
    button.title = clock.advanceable ? `POST /_sim/clock/advance {"by": "${button.dataset.advance}"}` : "this clock cannot be advanced";
  }
}

for (const button of document.querySelectorAll("[data-advance]")) {
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      renderClock(await json("clock/advance", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ by: button.dataset.advance }) }));
      clearError();
      await refresh(true);
    } catch (error) {
      showError(error);
    } finally {
      button.disabled = !view.clock?.advanceable;
    }
  });
}

// ---- the state tables ----------------------------------------------------------------------

function renderServices() {
  const services = $("services");
  services.replaceChildren(
    ...view.services.map((service) => {
      const button = element("button", service.key, service.key === view.service ? "selected" : undefined);
      button.type = "button";
      button.dataset.service = service.key;
      button.setAttribute("aria-pressed", String(service.key === view.service));
      button.addEventListener("click", () => selectTable(service.key, service.tables[0]?.name ?? ""));
      return button;
    }),
  );
  const current = view.services.find((service) => service.key === view.service);
  $("tables").replaceChildren(
    ...(current?.tables ?? []).map((table) => {
      const button = element("button", table.title, table.name === view.table ? "selected" : undefined);
      button.type = "button";
      button.dataset.table = table.name;
      button.setAttribute("aria-pressed", String(table.name === view.table));
      button.addEventListener("click", () => selectTable(view.service, table.name));
      return button;
    }),
  );
}

function selectTable(service, table) {
  view.service = service;
  view.table = table;
  view.tablePage = 1;
  renderServices();
  loadTable().catch(showError);
}

async function loadTable() {
  if (view.service === "" || view.table === "") return;
  const answer = await json(
    `tables/${encodeURIComponent(view.service)}/${encodeURIComponent(view.table)}${query({ page: view.tablePage, size: view.tableSize, q: view.tableQuery, reveal: view.reveal })}`,
  );
  const started = performance.now();
  const table = $("table");
  fillTable(table, answer.columns, answer.rows);
  table.dataset.service = answer.service;
  table.dataset.table = answer.table;
  fillPager($("table-pager"), answer, (page) => {
    view.tablePage = page;
    loadTable().catch(showError);
  });
  layout(table);
  performance.measure("dashboard:render:table", { start: started });
}

$("table-search").addEventListener(
  "input",
  debounce(() => {
    view.tableQuery = $("table-search").value;
    view.tablePage = 1;
    loadTable().catch(showError);
  }, 200),
);

$("table-reveal").addEventListener("change", () => {
  view.reveal = $("table-reveal").checked;
  loadTable().catch(showError);
});

// ---- the journal ---------------------------------------------------------------------------

async function loadJournal() {
  const answer = await json(`journal/rows${query({ page: view.journalPage, size: view.journalSize, q: view.journalQuery })}`);
  const started = performance.now();
  const changed = answer.last !== view.journalLast;
  view.journalLast = answer.last;
  const table = $("journal-table");
  const columns = [
    { key: "seq", title: "#" },
    { key: "at", title: "At", kind: "time" },
    { key: "service", title: "Service" },
    { key: "method", title: "Method" },
    { key: "url", title: "URL" },
    { key: "status", title: "Status" },
    { key: "route", title: "Route" },
    { key: "fault", title: "Fault" },
    { key: "durationMs", title: "ms" },
  ];
  fillTable(table, columns, answer.rows, (tr, row) => {
    tr.dataset.seq = String(row.seq);
    tr.tabIndex = 0;
    tr.className = `clickable${row.status >= 500 ? " status-5xx" : row.status >= 400 ? " status-4xx" : ""}${row.seq === view.journalSeq ? " selected" : ""}`;
    const open = () => showEntry(row.seq).catch(showError);
    tr.addEventListener("click", open);
    tr.addEventListener("keydown", (event) => {
      if (event.key === "Enter") open();
    });
  });
  table.dataset.last = String(answer.last ?? "");
  fillPager($("journal-pager"), answer, (page) => {
    view.journalPage = page;
    loadJournal().catch(showError);
  });
  layout(table);
  performance.measure("dashboard:render:journal", { start: started });
  return changed;
}

/** One entry with its headers and bodies (GET /_sim/journal?after=SEQ-1&limit=1), masked unless revealed. */
async function showEntry(seq) {
  view.journalSeq = seq;
  for (const row of $("journal-table").querySelectorAll("tr.selected")) row.classList.remove("selected");
  $("journal-table").querySelector(`tr[data-seq="${seq}"]`)?.classList.add("selected");
  const answer = await json(`journal${query({ after: seq - 1, limit: 1, reveal: view.journalReveal })}`);
  const entry = answer.entries[0];
  const box = $("journal-entry");
  box.hidden = false;
  if (entry === undefined || entry.seq !== seq) {
    box.replaceChildren(element("p", `entry #${seq} is no longer in the journal`, "none"));
    return;
  }
  const part = (title, headers, body) => {
    const section = element("section");
    section.append(element("h3", title));
    section.append(element("pre", Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join("\n"), "headers"));
    const text = body.text ?? (body.base64 === undefined ? "" : `(${body.size} bytes, base64) ${body.base64}`);
    if (text !== "") section.append(element("pre", prettyBody(text) + (body.truncated ? `\n... (${body.size} bytes in all)` : ""), "body"));
    return section;
  };
  const close = element("button", "close", "close");
  close.type = "button";
  close.addEventListener("click", () => {
    box.hidden = true;
    view.journalSeq = undefined;
    for (const row of $("journal-table").querySelectorAll("tr.selected")) row.classList.remove("selected");
  });
  box.replaceChildren(
    element("h3", `#${entry.seq} ${entry.method} ${entry.url} -> ${entry.status}${entry.operation ? ` (${entry.operation})` : ""}${entry.fault ? ` fault ${entry.fault}` : ""}`),
    part("Request", entry.headers, entry.requestBody),
    part("Response", entry.responseHeaders, entry.responseBody),
    close,
  );
}

function prettyBody(text) {
  if (text === "" || (text[0] !== "{" && text[0] !== "[")) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

$("journal-search").addEventListener(
  "input",
  debounce(() => {
    view.journalQuery = $("journal-search").value;
    view.journalPage = 1;
    loadJournal().catch(showError);
  }, 200),
);

$("journal-reveal").addEventListener("change", () => {
  view.journalReveal = $("journal-reveal").checked;
  if (view.journalSeq !== undefined) showEntry(view.journalSeq).catch(showError);
});

// ---- faults and coverage -------------------------------------------------------------------

async function loadFaults() {
  if (!offers("/faults")) return;
  const { faults } = await json("faults");
  const started = performance.now();
  fillTable(
    $("faults-table"),
    [
      { key: "id", title: "Id" },
      { key: "service", title: "Service" },
      { key: "target", title: "Route or operation" },
      { key: "effect", title: "Effect" },
      { key: "times", title: "Times" },
      { key: "seen", title: "Seen" },
      { key: "applied", title: "Fired" },
      { key: "exhausted", title: "Used up" },
      { key: "window", title: "Window" },
    ],
    faults.map((fault) => ({
      id: fault.id,
      service: fault.service ?? "any",
      target: fault.route ?? fault.operation ?? "every request",
      effect: fault.answer !== undefined ? `answer ${typeof fault.answer === "string" ? fault.answer : JSON.stringify(fault.answer)}` : fault.connection !== undefined ? `connection ${fault.connection}` : fault.latency !== undefined ? `latency ${JSON.stringify(fault.latency)}` : "-",
      times: fault.times ?? "always",
      seen: fault.seen,
      applied: fault.applied,
      exhausted: fault.exhausted,
      window: fault.from === undefined && fault.until === undefined ? null : `${fault.from ?? "start"} .. ${fault.until ?? "end"}`,
    })),
  );
  layout($("faults-table"));
  performance.measure("dashboard:render:faults", { start: started });
}

async function loadCoverage() {
  if (!offers("/coverage")) return;
  const report = await json("coverage");
  const started = performance.now();
  $("coverage").hidden = false;
  const rows = [];
  const tally = (t) => (t === undefined ? null : `${t.exercised} of ${t.total}`);
  for (const [service, coverage] of Object.entries(report.services ?? {})) {
    rows.push({ service, what: "endpoints", reached: tally(coverage.endpoints), never: coverage.endpoints?.never ?? [] });
    for (const [machine, tallies] of Object.entries(coverage.machines ?? {})) {
      rows.push({ service, what: `${machine} states`, reached: tally(tallies.states), never: tallies.states?.never ?? [] });
      rows.push({ service, what: `${machine} transitions`, reached: tally(tallies.transitions), never: tallies.transitions?.never ?? [] });
    }
  }
  fillTable(
    $("coverage-table"),
    [
      { key: "service", title: "Service" },
      { key: "what", title: "What" },
      { key: "reached", title: "Reached" },
      { key: "never", title: "Never reached", kind: "list" },
    ],
    rows.map((row) => ({ ...row, never: row.never.length > 8 ? [...row.never.slice(0, 8), `+${row.never.length - 8} more`] : row.never })),
  );
  layout($("coverage-table"));
  performance.measure("dashboard:render:coverage", { start: started });
}

// ---- state diagrams (issue 28 item 2) ----------------------------------------
// Shown only when the server lists GET /_sim/diagrams/:table (and GET /_sim/diagrams for the
// names): an SVG answer is shown as an image (a blob: URL, allowed by the page's CSP), any other
// answer (Mermaid text) as text.

async function showDiagrams() {
  if (![...view.routes].some((route) => /^GET \S*\/diagrams\/:\w+$/.test(route))) return;
  let names = ["runs", "configurationVersions", "tokens", "leases", "nodeStates"];
  if (offers("/diagrams")) {
    const listing = await json("diagrams");
    const listed = Array.isArray(listing) ? listing : (listing.diagrams ?? listing.tables ?? []);
    names = listed.map((entry) => (typeof entry === "string" ? entry : (entry.name ?? entry.table))).filter((name) => typeof name === "string");
  }
  $("diagrams").hidden = names.length === 0;
  const pick = async (name) => {
    const response = await api(`diagrams/${encodeURIComponent(name)}`);
    const type = response.headers.get("content-type") ?? "";
    const box = $("diagram");
    if (type.startsWith("image/svg+xml")) {
      const image = element("img");
      image.alt = `state diagram of ${name}`;
      image.src = URL.createObjectURL(new Blob([await response.text()], { type: "image/svg+xml" }));
      box.replaceChildren(image);
    } else {
      box.replaceChildren(element("pre", await response.text()));
    }
  };
  $("diagram-tables").replaceChildren(
    ...names.map((name) => {
      const button = element("button", name);
      button.type = "button";
      button.addEventListener("click", () => pick(name).catch(showError));
      return button;
    }),
  );
}

// ---- start and live updates ----------------------------------------------------------------

/** Reads everything shown; `all` also refreshes faults and coverage (else only when the journal moved). */
async function refresh(all) {
  const [clock, moved] = await Promise.all([json("clock"), loadJournal()]);
  const clockMoved = view.clock === undefined || clock.epochMs !== view.clock.epochMs;
  renderClock(clock);
  if (all || moved || clockMoved) await Promise.all([loadTable(), loadFaults(), loadCoverage()]);
}

function stopPolling() {
  clearTimeout(view.timer);
  view.timer = undefined;
}

function schedule() {
  stopPolling();
  if (!$("live").checked) return;
  view.timer = setTimeout(async () => {
    try {
      if (!document.hidden) await refresh(false);
      schedule();
    } catch (error) {
      showError(error);
      if (!(error instanceof NeedsToken)) schedule();
    }
  }, POLL_MS);
}

$("live").addEventListener("change", schedule);

async function start() {
  try {
    // Two rounds of requests before the first render: what the API offers, the tables, the clock
    // and the journal at once; then the table shown, faults and coverage.
    const [listing, tables, clock] = await Promise.all([json(""), json("tables").catch(() => undefined), json("clock"), loadJournal()]);
    view.routes = new Set(listing.routes.map((entry) => entry.route));
    view.services = tables?.services ?? [];
    if (view.service === "") {
      view.service = view.services[0]?.key ?? "";
      view.table = view.services[0]?.tables[0]?.name ?? "";
    }
    renderServices();
    renderClock(clock);
    await Promise.all([loadTable(), loadFaults(), loadCoverage()]);
    clearError();
    if (!view.started) {
      view.started = true;
      performance.mark("dashboard:rendered");
      performance.measure("dashboard:first-render", "dashboard:boot", "dashboard:rendered");
      document.body.dataset.ready = "true";
    }
    await showDiagrams();
    schedule();
  } catch (error) {
    showError(error);
  }
}

start();
