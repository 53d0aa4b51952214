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
  const requireHere = createRequire(import.meta.url);
  const found: T[] = [];
  let entry: string;
  try {
    entry = requireHere.resolve("@mswjs/interceptors");
  } catch {
    return found;
  }
  for (const path of [entry, entry.replace(/index\.cjs$/, "index.mjs")]) {
    try {
      const picked = pick(requireHere(path));
      if (picked !== undefined && !found.includes(picked)) found.push(picked);
    } catch {
      // No such build, or an ES module this Node cannot require.
    }
  }
  return found;
}
