// The ESM build, run by tsup.config.ts after tsup's own build (whose split ESM output it replaces).
//
// Why (issue 9 item 6, docs/decisions/import-cost.md): tsup's code splitting gave `import
// "infra-doubles"` 19 files to resolve, open, read, decode and link, one by one, through Node's ESM
// loader; one file costs about 40 ms less CPU per cold import. So the whole main entry is one
// internal file, `dist/core.js`, and `dist/index.js` re-exports the main entry's names from it, and
// only those. Every other ESM entry (`simulator`, `nock`, `server`, `msw`, `testing`, `coverage`,
// `vitest`, the CLI) takes each module that the main entry also contains from `./core.js`
// (exported there under `__infra_<n>_<name>` aliases), never from a copy of its own: one instance
// of every class and every piece of module state, whichever entries a test imports, as with
// splitting. The aliases stay in core.js, which no `exports` condition names: no entry a user can
// import shows them (issue 22 item 11). The entries split what only they share among themselves as
// before. The CommonJS build stays tsup's.
import { build } from "esbuild";
import { chmodSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");

/** esbuild options the ESM outputs share (tsup's: node 20, every package external, source maps). */
const common = { bundle: true, platform: "node", format: "esm", target: "node20", packages: "external", sourcemap: true, logLevel: "error" };

/** Source files, absolute, in the main entry's bundle. */
async function graphOf(entry) {
  const result = await build({ ...common, entryPoints: [entry], write: false, outdir: dist, metafile: true, sourcemap: false });
  return new Set(Object.keys(result.metafile.inputs).map((input) => resolve(root, input)));
}

/** The export names of a source module (its bundle's, so `export *` is followed). */
async function exportsOf(file) {
  const result = await build({ ...common, entryPoints: [file], write: false, outdir: dist, metafile: true, sourcemap: false });
  return Object.values(result.metafile.outputs)[0].exports;
}

/**
 * @param {Record<string, string>} entries - tsup's entry map (name -> source path), `index` among them.
 */
export async function buildEsm(entries) {
  const { index, ...others } = entries;
  const indexFile = resolve(root, index);
  const inIndex = await graphOf(indexFile);
  /** Modules of the main entry the other entries import: file -> { id, names (a promise until all are read) }. */
  const shared = new Map();
  const aliasOf = (file, name) => `__infra_${shared.get(file).id}_${name}`;

  // The other entries first (not written yet): they say which modules of the main entry they need.
  const fromIndex = {
    name: "from-index",
    setup(plugin) {
      plugin.onResolve({ filter: /^\./ }, async (args) => {
        if (args.pluginData?.skip || args.kind === "entry-point" || args.namespace !== "file") return undefined;
        const resolved = await plugin.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, namespace: "file", pluginData: { skip: true } });
        if (resolved.errors.length > 0 || !inIndex.has(resolved.path)) return undefined;
        // Claimed before any await: two imports of one module resolved at once share one entry, and
        // two modules resolved at once never draw the same id (their aliases would collide).
        if (!shared.has(resolved.path)) shared.set(resolved.path, { id: shared.size, names: exportsOf(resolved.path) });
        return { path: resolved.path, namespace: "from-index" };
      });
      plugin.onLoad({ filter: /.*/, namespace: "from-index" }, async (args) => {
        const names = await shared.get(args.path).names;
        const list = names.map((name) => `${aliasOf(args.path, name)} as ${name === "default" ? "default" : name}`).join(", ");
        return { contents: `export { ${list} } from "./core.js";\n`, loader: "js" };
      });
      plugin.onResolve({ filter: /^\.\/core\.js$/, namespace: "from-index" }, () => ({ path: "./core.js", external: true }));
    },
  };
  for (const file of readdirSync(dist)) if (file.endsWith(".js") || file.endsWith(".js.map")) rmSync(join(dist, file));
  const rest = await build({
    ...common,
    entryPoints: Object.fromEntries(Object.entries(others).map(([name, path]) => [name, resolve(root, path)])),
    outdir: dist,
    splitting: true,
    chunkNames: "chunk-[hash]",
    plugins: [fromIndex],
    write: false,
  });

  for (const entry of shared.values()) entry.names = await entry.names;
  // The main entry's modules, one file: the main entry's exports, and the aliases the other entries import.
  const aliases = [...shared]
    .sort(([, a], [, b]) => a.id - b.id)
    .map(([file, { names }]) => `export { ${names.map((name) => `${name} as ${aliasOf(file, name)}`).join(", ")} } from ${JSON.stringify(`./${relative(root, file)}`)};`);
  await build({
    ...common,
    stdin: { contents: [`export * from ${JSON.stringify(`./${relative(root, indexFile)}`)};`, ...aliases].join("\n"), resolveDir: root, sourcefile: "core.ts", loader: "ts" },
    banner: { js: "// infra-doubles internal: the main entry's modules, shared by every ESM entry. Not an entry point: import \"infra-doubles\"." },
    outfile: join(dist, "core.js"),
  });
  // The main entry: its own names, exactly (the CommonJS entry's, the API reference's), from core.js.
  const names = (await exportsOf(indexFile)).filter((name) => name !== "default").sort();
  writeFileSync(join(dist, "index.js"), `export {\n${names.map((name) => `  ${name},\n`).join("")}} from "./core.js";\n`);
  for (const output of rest.outputFiles) {
    writeFileSync(output.path, output.contents);
    if (output.text.startsWith("#!")) chmodSync(output.path, 0o755);
  }
}
