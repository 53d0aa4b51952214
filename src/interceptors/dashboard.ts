/**
 * The dashboard of the dev server (`GET /_sim/ui`, issue 28): one page, its script and its style
 * sheet, shipped as files in the package (`src/interceptors/dashboard/`, copied to
 * `dist/dashboard/` by the build; no build step for users, nothing from another origin). The page
 * reads the control API's read routes (`/_sim/clock`, `/_sim/tables/...`, `/_sim/journal/rows`,
 * `/_sim/faults`, `/_sim/coverage`) and writes only through `POST /_sim/clock/advance`; it never
 * holds the control token in a URL (docs/decisions/security.md, "The dashboard").
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Route, SimResponse } from "./http.js";

/**
 * The dashboard's Content-Security-Policy: its own script and style sheet only (no inline script
 * or style, no `eval`), requests to its own origin only, images from its own origin or `blob:` (a
 * state diagram fetched with the control token), no forms posted anywhere, never framed.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The dashboard's files: route path (under `/_sim`), file name in `dashboard/`, content type. */
const FILES: readonly { readonly path: string; readonly file: string; readonly type: string }[] = [
  { path: "/ui", file: "index.html", type: "text/html; charset=utf-8" },
  { path: "/ui/app.js", file: "app.js", type: "text/javascript; charset=utf-8" },
  { path: "/ui/app.css", file: "app.css", type: "text/css; charset=utf-8" },
  { path: "/ui/favicon.svg", file: "favicon.svg", type: "image/svg+xml" },
];

/** The dashboard's paths on the server (`/_sim/ui`, `/_sim/ui/app.js`, `/_sim/ui/app.css`, `/_sim/ui/favicon.svg`). */
const ASSET_PATHS: ReadonlySet<string> = new Set(FILES.map(({ path }) => `/_sim${path}`));

/**
 * Whether `pathname` is one of the dashboard's own files: the control API's guard lets a `GET` of
 * them through without the control token (they are the same bytes for everyone and hold no state;
 * a browser's navigation cannot send a header), never past its Host and Origin checks.
 * @example isDashboardAsset("/_sim/ui") // true; isDashboardAsset("/_sim/clock") // false
 */
export function isDashboardAsset(pathname: string): boolean {
  return ASSET_PATHS.has(pathname);
}

/** Files read once, on the first request for them. */
const cache = new Map<string, string>();

function fileText(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    // Beside this module in src/, beside the bundles in dist/ (tsup.config.ts copies the folder;
    // tsup shims import.meta.url in the CommonJS build).
    text = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "dashboard", name), "utf8");
    cache.set(name, text);
  }
  return text;
}

function answer(file: string, type: string): SimResponse {
  return {
    status: 200,
    headers: {
      "content-type": type,
      "content-security-policy": DASHBOARD_CSP,
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-resource-policy": "same-origin",
      "cache-control": "no-cache",
    },
    body: fileText(file),
  };
}

/**
 * The dashboard's routes, relative to `/_sim`: `GET /ui` (the page), `GET /ui/app.js`, `GET /ui/app.css`,
 * `GET /ui/favicon.svg` (else the browser asks the services for `/favicon.ico`).
 * @example dashboardRoutes().map((r) => r.path) // ["/ui", "/ui/app.js", "/ui/app.css", "/ui/favicon.svg"]
 */
export function dashboardRoutes(): Route[] {
  return FILES.map(({ path, file, type }) => ({
    method: "GET",
    path,
    doc: { answer: path === "/ui" ? "200 the dashboard page (HTML): clock, tables, journal, faults, coverage" : `200 the dashboard's ${file}` },
    handler: () => answer(file, type),
  }));
}
