/**
 * Modules loaded on first use rather than at import: a test that never touches archives, the local
 * server or real time pays nothing for `node:zlib`, `nanotar`, `node:http` or `node:perf_hooks`
 * (cold import cost, issue 9 item 6; see docs/decisions/import-cost.md). Synchronous, so the APIs
 * that use them stay synchronous; tsup shims `import.meta.url` in the CommonJS build.
 */
import { createRequire } from "node:module";

/**
 * A loader of module `id` that requires it on its first call and returns the same exports after.
 * @param id - a built-in (`"node:zlib"`) or a runtime dependency (`"nanotar"`).
 * @example
 * const zlib = lazyRequire<typeof import("node:zlib")>("node:zlib");
 * zlib().gzipSync(bytes);
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= createRequire(import.meta.url)(id) as T);
}
