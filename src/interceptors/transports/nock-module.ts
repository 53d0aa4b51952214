/**
 * Where this package finds nock (a peer dependency, `^14 || ^15`), loaded on first use.
 *
 * nock 14 is a CommonJS module whose export is the `nock` function itself. nock 15 is an ES
 * module: `require("nock")` (Node 20.19 and later load ES modules with `require`) gives its
 * namespace, `{ default: nock }`. Both shapes are accepted here and the `nock` function returned;
 * the instance is the one the user's tests import (require and import share one module instance).
 *
 * nock 15.0.2's interception (its @mswjs/interceptors 0.44) calls `Promise.withResolvers`, which
 * Node 20 lacks (it came with Node 22): every request then fails with
 * `TypeError: Promise.withResolvers is not a function`. When nock 15 is loaded on such a Node, the
 * standard ES2024 `Promise.withResolvers` is installed (nothing else is changed, and nothing on a
 * Node that has it). See docs/decisions/transports.md "nock 14 and nock 15".
 */
import { createRequire } from "node:module";
import type nock from "nock";
import { UsageError } from "../../simulator/kernel/errors.js";

type Nock = typeof nock;

// tsup shims import.meta.url in the CommonJS build.
const requireHere = createRequire(import.meta.url);

/** The module name nock is loaded under (tests load an aliased nock 15 under another name). */
let specifier = "nock";

/**
 * For this package's own tests: load nock under another module name (an npm alias such as
 * `nock15`), before anything loads it. Not part of the public API.
 * @param name - a module name resolvable from this package, e.g. `"nock15"`.
 */
export function useNockModule(name: string): void {
  specifier = name;
}

/** The module name nock is loaded under (`"nock"` unless a test chose another). */
export function nockModuleName(): string {
  return specifier;
}

/**
 * The `nock` function of a loaded module, whatever its shape: nock 14's CommonJS export is the
 * function, nock 15's namespace (`require()` of an ES module) holds it as `default`.
 * @throws {UsageError} when neither shape holds a nock function.
 * @example nockExport({ default: nock }) // nock
 */
export function nockExport(loaded: unknown): Nock {
  const candidate = typeof loaded === "function" ? loaded : (loaded as { default?: unknown } | null | undefined)?.default;
  if (typeof candidate === "function" && typeof (candidate as Partial<Nock>).isActive === "function") return candidate as Nock;
  throw new UsageError(`the module "${specifier}" is not nock 14 or 15 (no nock function as its export or its default export)`);
}

/**
 * nock, loaded now if need be (loading nock activates its interception process-wide).
 * @throws {UsageError} when nock is not installed, or is an ES module this Node cannot `require`.
 */
export function loadNock(): Nock {
  let loaded: unknown;
  try {
    loaded = requireHere(specifier);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ERR_REQUIRE_ESM") {
      throw Object.assign(
        new UsageError(`nock 15 is an ES module, which Node ${process.versions.node} cannot load with require(); use Node 20.19 or later, or install nock 14 (npm install --save-dev nock@14)`),
        { cause: error },
      );
    }
    if (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") {
      throw Object.assign(new UsageError("the nock transport needs nock (a peer dependency): npm install --save-dev nock"), { cause: error });
    }
    throw error;
  }
  const instance = nockExport(loaded);
  if (loaded !== instance) installWithResolvers();
  return instance;
}

/**
 * Whether the nock loaded in this process runs interceptors of its own, apart from this package's
 * engine: nock 15 (an ES module, with @mswjs/interceptors 0.44 bundled as its own dependency),
 * where nock 14 shares the engine's running instances.
 */
export function nockBringsItsOwnEngine(): boolean {
  if (!nockLoaded()) return false;
  const loaded = requireHere(specifier) as unknown;
  return typeof loaded !== "function";
}

/** Whether nock is loaded in this process already, through `require` (by the user, or by {@link loadNock}). */
export function nockLoaded(): boolean {
  // The module's file, resolved once per specifier (a resolution reads the file system: every
  // intercept() asks).
  if (resolved?.specifier !== specifier) {
    let path: string | undefined;
    try {
      path = requireHere.resolve(specifier);
    } catch {
      path = undefined;
    }
    resolved = { specifier, path };
  }
  return resolved.path !== undefined && resolved.path in requireHere.cache;
}

/** Where {@link nockLoaded} found the module last (`path` undefined: not installed). */
let resolved: { readonly specifier: string; readonly path: string | undefined } | undefined;

/** The standard `Promise.withResolvers` (ES2024), on a Node that lacks it (Node 20), for nock 15. */
function installWithResolvers(): void {
  const promise = Promise as PromiseConstructor & { withResolvers?: unknown };
  if (typeof promise.withResolvers === "function") return;
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    enumerable: false,
    value: function withResolvers<T>(this: PromiseConstructor) {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const created = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise: created, resolve, reject };
    },
  });
}
