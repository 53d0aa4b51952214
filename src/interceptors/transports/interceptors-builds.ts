/**
 * The builds of @mswjs/interceptors a process may hold at once: its CommonJS build (what this
 * package and nock 14 load) and its ES module build beside it (what msw imported from an ES module
 * loads: the same library, other classes), the latter where this Node can `require` an ES module
 * (20.19 and later). A guard that patches a class of the library patches it in each.
 */
import { createRequire } from "node:module";

/**
 * `pick` applied to each build of @mswjs/interceptors that loads here, without duplicates or
 * `undefined`s; none when the library is not installed.
 * @example const prototypes = interceptorsBuilds((m) => (m as { Interceptor?: { prototype: object } }).Interceptor?.prototype);
 */
export function interceptorsBuilds<T>(pick: (module: unknown) => T | undefined): T[] {
  const found: T[] = [];
  for (const module of loadedBuilds()) {
    const picked = pick(module);
    if (picked !== undefined && !found.includes(picked)) found.push(picked);
  }
  return found;
}

/** The builds' modules, loaded once per process (every intercept() asks, and a failed `require` throws). */
let builds: readonly unknown[] | undefined;

function loadedBuilds(): readonly unknown[] {
  if (builds !== undefined) return builds;
  const requireHere = createRequire(import.meta.url);
  const modules: unknown[] = [];
  let entry: string;
  try {
    entry = requireHere.resolve("@mswjs/interceptors");
  } catch {
    builds = modules;
    return builds;
  }
  for (const path of [entry, entry.replace(/index\.cjs$/, "index.mjs")]) {
    try {
      modules.push(requireHere(path));
    } catch {
      // No such build, or an ES module this Node cannot require.
    }
  }
  builds = modules;
  return builds;
}
