/**
 * Every fenced code block of docs/guides/*.md runs as printed, or says why it does not.
 *
 * - A `ts`/`js` block runs as a module (its own vitest test file when it calls `it()`/`test()`);
 *   `"infra-doubles"` and its subpaths resolve to this repository's sources, as the README's tests
 *   do (test/readme/). A block marked `<!-- continues -->` on the line before its fence runs after
 *   the blocks it continues (the runnable block before it in the same guide, and that block's own
 *   predecessors), in one module, so it may use their names.
 * - A `yaml` block is a scenario document: it is written to a file and run with the CLI
 *   (`node dist/cli.cjs run <file>`), which must exit 0.
 * - A `sh` block runs in bash against a dev server of its own (see {@link runShell}); one marked
 *   `<!-- continues -->` runs after the shell blocks it continues, on the same fresh server.
 * - Every other block (servers started in a shell, program output, JSON shapes, fragments) carries `<!-- not-runnable: why -->` on the line before its fence, and shows here as
 *   a skipped test naming the reason. An unmarked block that is not runnable fails.
 *
 * Blocks that fail because of a product bug another part of issue 22 fixes are listed in
 * {@link KNOWN_FAILING}: their test passes while they fail, and fails once they run (empty the
 * entry then).
 *
 * All the modules of one run go to one temporary directory inside the repository and run in one
 * vitest child process (about 15 s); each block is then one test here, named
 * `<guide>.md block N (line L)`.
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Blocks that fail because of a product bug owned by another slice of issue 22 (the lead empties
 * this list as the fixes merge): `"<guide>.md block N"` -> the issue item and what goes wrong.
 */
const KNOWN_FAILING: Readonly<Record<string, string>> = {};

/** Where `infra-doubles` and its subpaths resolve (the sources behind package.json's exports, as tsup builds them). */
const ENTRIES: Readonly<Record<string, string>> = {
  "infra-doubles": "src/index.ts",
  "infra-doubles/simulator": "src/simulator/index.ts",
  "infra-doubles/nock": "src/interceptors/nock-entry.ts",
  "infra-doubles/server": "src/interceptors/server-entry.ts",
  "infra-doubles/msw": "src/interceptors/msw-entry.ts",
  "infra-doubles/testing": "src/testing/index.ts",
  "infra-doubles/coverage": "src/vitest/coverage.ts",
  "infra-doubles/vitest": "src/scenarios/vitest-entry.ts",
};

/** One fenced block of a guide. */
interface Block {
  readonly guide: string;
  /** 1-based position among the guide's blocks. */
  readonly index: number;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  /** The marker on the line before the fence: `not-runnable` (with its reason), `continues`, or none. */
  readonly marker: { readonly kind: "not-runnable"; readonly reason: string } | { readonly kind: "continues" } | { readonly kind: "file"; readonly name: string } | undefined;
}

/** The fenced blocks of `text`, in order. */
export function blocksOf(guide: string, text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\S*)/.exec(lines[i] ?? "");
    if (open === null) continue;
    const fence = open[1] ?? "```";
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? "").startsWith(fence); i++) body.push(lines[i] ?? "");
    const before = (lines[start - 1] ?? "").trim();
    const m = /^<!--\s*(not-runnable|continues|file)\s*(?::\s*([\s\S]*?))?\s*-->$/.exec(before);
    const marker =
      m === null
        ? undefined
        : m[1] === "continues"
          ? ({ kind: "continues" } as const)
          : m[1] === "file"
            ? ({ kind: "file", name: (m[2] ?? "").trim() } as const)
            : ({ kind: "not-runnable", reason: m[2] ?? "" } as const);
    blocks.push({ guide, index: blocks.length + 1, line: start + 1, lang: open[2] ?? "", code: `${body.join("\n")}\n`, marker });
  }
  return blocks;
}

const nameOf = (block: Block): string => `${block.guide} block ${block.index}`;

/** The block's module text: imports of `infra-doubles...` point at the sources. */
function resolved(code: string): string {
  return code.replace(/(from\s+|import\s+|require\()(["'])(infra-doubles(?:\/[a-z]+)?)\2/g, (all, head: string, quote: string, spec: string) => {
    const entry = ENTRIES[spec];
    return entry === undefined ? all : `${head}${quote}${join(root, entry)}${quote}`;
  });
}

const callsTest = (code: string): boolean => /(^|[^.\w])(it|test)(\.\w+)?\(/m.test(code);

/** What runs for one block, and how its result is read. */
type Plan =
  /** In the guide's module: a test file of its own (`describe("block N")` around it), or a step of a script chain (`it("chain N")`). */
  | { readonly kind: "module"; readonly file: string; readonly chain?: number }
  | { readonly kind: "yaml"; readonly file: string }
  /** A shell session against a fresh dev server: the chain's blocks so far, in order. */
  | { readonly kind: "sh"; readonly code: string }
  | { readonly kind: "skip"; readonly reason: string }
  | { readonly kind: "unrunnable"; readonly reason: string };

const guidesDir = join(root, "docs", "guides");
const guides = readdirSync(guidesDir).filter((f) => f.endsWith(".md")).sort();
const allBlocks = guides.flatMap((guide) => blocksOf(guide, readFileSync(join(guidesDir, guide), "utf8")));

let work = "";
const plans = new Map<Block, Plan>();
/** Per guide module: per test name (`block N`, `chain N`), passed or the failure. */
const moduleResults = new Map<string, { collected: { ok: boolean; message: string }; tests: Map<string, { ok: boolean; message: string }> }>();
const yamlResults = new Map<string, { ok: boolean; message: string }>();
const shResults = new Map<Block, { ok: boolean; message: string }>();

/** The import statements of `code` (each whole, up to its `;`), and the code without them. */
function splitImports(code: string): { imports: string[]; rest: string } {
  const imports: string[] = [];
  const rest = code.replace(/^import\s[^;]*;[ \t]*$/gm, (statement) => {
    imports.push(statement);
    return "";
  });
  return { imports, rest };
}

/**
 * One import section for the whole module: named imports merged per module (so two blocks may
 * both import `createDoubles`), default, namespace and bare imports each once.
 */
function mergeImports(statements: readonly string[]): string {
  const named = new Map<string, Set<string>>();
  const others = new Set<string>();
  for (const statement of statements) {
    const m = /^import\s+(type\s+)?\{([^}]*)\}\s*from\s*(["'][^"']+["']);$/.exec(statement.replace(/\s+/g, " ").trim());
    if (m === null) {
      others.add(statement.trim());
      continue;
    }
    const specs = named.get(m[3] ?? "") ?? new Set<string>();
    for (const spec of (m[2] ?? "").split(",").map((x) => x.trim()).filter(Boolean)) specs.add(m[1] ? `type ${spec}` : spec);
    named.set(m[3] ?? "", specs);
  }
  return [...others, ...[...named].map(([from, specs]) => `import { ${[...specs].join(", ")} } from ${from};`)].join("\n");
}

/** Writes one module per guide and a file per scenario block, and decides what each block is. */
function prepare(): void {
  work = mkdtempSync(join(root, "test", "guides", ".run-"));
  for (const guide of guides) {
    const blocks = allBlocks.filter((b) => b.guide === guide);
    const file = join(work, `${guide.replace(/\.md$/, "")}.guide.ts`);
    const imports: string[] = [];
    const parts: string[] = [];
    /** The script chain a `continues` block extends: its number and its steps so far. */
    let chain: { id: number; steps: string[] } | undefined;
    let lastWasTestFile = false;
    /** The shell session a `continues` sh block extends. */
    let shell: string[] | undefined;
    const closeChain = (): void => {
      if (chain === undefined) return;
      parts.push(`__guideIt("chain ${chain.id}", async () => {\n${chain.steps.join("\n")}\n});`);
      chain = undefined;
    };
    for (const block of blocks) {
      if (block.marker?.kind === "not-runnable") {
        plans.set(block, block.marker.reason.trim() === "" ? { kind: "unrunnable", reason: "a not-runnable marker must say why" } : { kind: "skip", reason: block.marker.reason.trim() });
        continue;
      }
      if (block.lang === "ts" || block.lang === "js") {
        const { imports: own, rest } = splitImports(resolved(block.code));
        imports.push(...own);
        const continues = block.marker?.kind === "continues";
        if (continues && chain === undefined) {
          plans.set(block, {
            kind: "unrunnable",
            reason: lastWasTestFile ? "marked `continues`, but the block before it is a test file of its own (it calls it()/test())" : "marked `continues`, but no runnable block comes before it in this guide",
          });
          continue;
        }
        if (!continues) closeChain();
        if (callsTest(rest) && !continues) {
          parts.push(`__guideDescribe("block ${block.index}", () => {\n${rest}\n});`);
          plans.set(block, { kind: "module", file });
          lastWasTestFile = true;
          continue;
        }
        lastWasTestFile = false;
        chain ??= { id: block.index, steps: [] };
        chain.steps.push(`__guideStep(${block.index});\n${rest}`);
        plans.set(block, { kind: "module", file, chain: chain.id });
        continue;
      }
      closeChain();
      lastWasTestFile = false;
      if (block.lang === "sh" || block.lang === "bash") {
        shell = block.marker?.kind === "continues" && shell !== undefined ? [...shell, block.code] : [block.code];
        plans.set(block, { kind: "sh", code: shell.join("\n") });
        continue;
      }
      if (block.lang === "yaml" || block.lang === "yml") {
        const scenario = join(work, `${guide.replace(/\.md$/, "")}-${block.index}.yaml`);
        writeFileSync(scenario, block.code);
        // `<!-- file: world.yaml -->`: the name shell blocks (of any guide) use for it.
        if (block.marker?.kind === "file" && /^[\w.-]+$/.test(block.marker.name)) writeFileSync(join(work, block.marker.name), block.code);
        plans.set(block, { kind: "yaml", file: scenario });
        continue;
      }
      plans.set(block, {
        kind: "unrunnable",
        reason: `a \`${block.lang || "(no language)"}\` block is not run: mark it \`<!-- not-runnable: why -->\` on the line before its fence, or make it a runnable ts/js/yaml block`,
      });
    }
    closeChain();
    if (parts.length === 0) continue;
    const harness = [
      'import { describe as __guideDescribe, it as __guideIt } from "vitest";',
      "let __guideBlock = 0;",
      "const __guideStep = (n: number): void => { __guideBlock = n; };",
    ];
    // A chain's failure names the block it stopped in.
    const body = parts.map((part) => (part.startsWith("__guideIt(") ? part.replace(/^(__guideIt\("chain \d+", async \(\) => \{\n)([\s\S]*)(\n\}\);)$/, "$1try {\n$2\n} catch (error) { throw new Error(`in block ${__guideBlock}: ${String((error as Error)?.stack ?? error)}`); }$3") : part));
    writeFileSync(file, `${mergeImports(imports)}\n${harness.join("\n")}\n\n${body.join("\n\n")}\n`);
  }
}

/** Runs `file` with node, resolving with its exit status and output (never rejects). */
function node(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout: number }): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { ...options, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr });
    });
  });
}

/** Runs every guide's module in one vitest child process. */
async function runModules(): Promise<void> {
  const modules = [...new Set([...plans.values()].flatMap((p) => (p.kind === "module" ? [p.file] : [])))];
  if (modules.length > 0) {
    const config = join(work, "vitest.config.mjs");
    writeFileSync(config, `export default { test: { root: ${JSON.stringify(root)}, include: ${JSON.stringify(modules.map((f) => relative(root, f)))}, pool: "forks", testTimeout: 20000 } };\n`);
    const out = join(work, "results.json");
    const env: Record<string, string | undefined> = { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" };
    delete env.VITEST;
    delete env.VITEST_WORKER_ID;
    delete env.VITEST_POOL_ID;
    delete env.INFRA_DOUBLES_COVERAGE_DIR;
    const child = await node([join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--config", config, "--reporter=json", `--outputFile=${out}`], { cwd: root, env, timeout: 170_000 });
    type Report = { testResults?: { name: string; status: string; message?: string; assertionResults?: { ancestorTitles?: string[]; title: string; fullName: string; status: string; failureMessages?: string[] }[] }[] };
    let report: Report;
    try {
      report = JSON.parse(readFileSync(out, "utf8")) as Report;
    } catch {
      throw new Error(`the guides' vitest run wrote no report:\n${child.stdout}\n${child.stderr}`);
    }
    for (const result of report.testResults ?? []) {
      const tests = new Map<string, { ok: boolean; message: string }>();
      for (const a of result.assertionResults ?? []) {
        const key = a.ancestorTitles?.[0] ?? a.title;
        const previous = tests.get(key);
        const ok = a.status === "passed" && (previous?.ok ?? true);
        const message = [previous?.message ?? "", a.status === "passed" ? "" : `${a.fullName}: ${a.status} ${(a.failureMessages ?? []).join("\n")}`].filter(Boolean).join("\n");
        tests.set(key, { ok, message });
      }
      moduleResults.set(result.name, { collected: { ok: result.status === "passed" || (result.message ?? "") === "", message: result.message ?? "" }, tests });
    }
  }
}

/** Runs every scenario with the CLI, and every shell session against its server, two at a time. */
async function runCli(): Promise<void> {
  const jobs: (() => Promise<void>)[] = [];
  for (const [block, plan] of plans) {
    if (plan.kind === "yaml") {
      jobs.push(async () => {
        const child = await node([join(root, "dist", "cli.cjs"), "run", plan.file], { cwd: work, timeout: 30_000 });
        yamlResults.set(plan.file, { ok: child.status === 0, message: `exit ${String(child.status)}\n${child.stdout}${child.stderr}` });
      });
    } else if (plan.kind === "sh") jobs.push(async () => void shResults.set(block, await runShell(plan.code)));
  }
  const worker = async (): Promise<void> => {
    for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) await job();
  };
  await Promise.all([worker(), worker()]);
}

/**
 * Runs a shell block against a dev server of its own: the block's own `npx infra-doubles serve ...`
 * line when it has one (started with `--port 0 --json` instead of its port, the line then taken out
 * of the script), else `serve` with no option. `http://127.0.0.1:8080` in the block is that
 * server's address, `$URL` and `$ROOT_TOKEN` (the secrets root token) are set, `npx infra-doubles`
 * is the package's bin (dist/cli.cjs), and curl fails on an HTTP error (a `.curlrc` with
 * `--fail-with-body`), as does any command (`set -eo pipefail`). Files named by a
 * `<!-- file: NAME -->` block are in the working directory.
 */
async function runShell(code: string): Promise<{ ok: boolean; message: string }> {
  const serveLine = /^npx infra-doubles serve\b(.*)$/m.exec(code);
  const args = (serveLine?.[1] ?? "").replace(/#.*$/, "").trim().split(/\s+/).filter(Boolean);
  const port = args.indexOf("--port");
  if (port >= 0) args.splice(port, 2);
  const server = spawn(process.execPath, [join(root, "dist", "cli.cjs"), "serve", ...args, "--port", "0", "--json"], { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  server.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const first = await Promise.race([
      once(createInterface({ input: server.stdout }), "line").then(([line]) => String(line)),
      once(server, "exit").then(([status]) => {
        throw new Error(`\`serve${args.length > 0 ? ` ${args.join(" ")}` : ""}\` exited ${String(status)}: ${stderr.trim()}`);
      }),
    ]);
    const started = JSON.parse(first) as { url: string; secrets?: { rootToken?: string } };
    const body = serveLine === null ? code : code.replace(serveLine[0], "");
    const bin = `npx() { if [ "$1" = infra-doubles ]; then shift; node ${JSON.stringify(join(root, "dist", "cli.cjs"))} "$@"; else command npx "$@"; fi; }`;
    const script = `set -eo pipefail\n${bin}\n${body.replaceAll("http://127.0.0.1:8080", started.url)}`;
    writeFileSync(join(work, ".curlrc"), "fail-with-body\nshow-error\nsilent\n");
    const env = { ...process.env, CURL_HOME: work, URL: started.url, ROOT_TOKEN: started.secrets?.rootToken ?? "" };
    return await new Promise((resolve) => {
      execFile("bash", ["-c", script], { cwd: work, env, timeout: 20_000 }, (error, stdout, stderr) => {
        resolve({ ok: error === null, message: `${error === null ? "" : `${String(error.message).split("\n")[0]}\n`}${stdout}${stderr}` });
      });
    });
  } catch (error) {
    return { ok: false, message: `the dev server did not start: ${(error as Error).message}` };
  } finally {
    server.kill("SIGTERM");
  }
}

/** Whether `block` ran, and what went wrong if not. */
function outcome(block: Block): { ok: boolean; message: string } | undefined {
  const plan = plans.get(block);
  if (plan === undefined) return { ok: false, message: "not planned" };
  if (plan.kind === "yaml") return yamlResults.get(plan.file);
  if (plan.kind === "sh") return shResults.get(block);
  if (plan.kind === "unrunnable") return { ok: false, message: plan.reason };
  if (plan.kind === "skip") return undefined;
  const module = moduleResults.get(plan.file);
  if (module === undefined) return { ok: false, message: `no result for ${relative(root, plan.file)} (not run)` };
  if (!module.collected.ok) return { ok: false, message: `the guide's module failed to load: ${module.collected.message}` };
  if (plan.chain === undefined) return module.tests.get(`block ${block.index}`) ?? { ok: false, message: "its tests did not run" };
  const chain = module.tests.get(`chain ${plan.chain}`);
  if (chain === undefined) return { ok: false, message: "its chain did not run" };
  if (chain.ok) return chain;
  const stopped = Number(/in block (\d+):/.exec(chain.message)?.[1] ?? "0");
  if (stopped === 0 || stopped === block.index) return chain;
  return stopped > block.index ? { ok: true, message: "" } : { ok: false, message: `not reached: block ${stopped}, which it continues, failed` };
}

describe("every guide's code blocks", () => {
  beforeAll(async () => {
    prepare();
    await Promise.all([runModules(), runCli()]);
  }, 240_000);
  afterAll(() => {
    // INFRA_DOUBLES_GUIDES_SUMMARY=file: one line per block (status and first line of the error), for triage.
    const summaryFile = process.env.INFRA_DOUBLES_GUIDES_SUMMARY;
    if (summaryFile !== undefined) {
      const lines = allBlocks.map((block) => {
        const result = outcome(block);
        const status = result === undefined ? "skip" : result.ok ? "ok" : "FAIL";
        const why = result === undefined ? (block.marker?.kind === "not-runnable" ? block.marker.reason : "") : result.message.split("\n").find((l) => /Error|failed|exit|not /.test(l)) ?? result.message.split("\n")[0] ?? "";
        return `${status}\t${block.guide}:${block.line} #${block.index} [${block.lang}]\t${why.slice(0, 300)}`;
      });
      writeFileSync(summaryFile, `${lines.join("\n")}\n`);
    }
    if (work !== "" && process.env.INFRA_DOUBLES_KEEP_GUIDES === undefined) rmSync(work, { recursive: true, force: true });
  });

  it("finds the guides' blocks, and reads the markers on the line before a fence", () => {
    expect(allBlocks.length).toBeGreaterThan(50);
    const sample = ["text", "<!-- not-runnable: output -->", "```", "out", "```", "", "```ts", "a();", "```", "<!-- continues -->", "````ts", "b();", "````", "```sh", "x", "```"].join("\n");
    expect(blocksOf("g.md", sample).map((b) => [b.index, b.line, b.lang, b.code, b.marker])).toEqual([
      [1, 3, "", "out\n", { kind: "not-runnable", reason: "output" }],
      [2, 7, "ts", "a();\n", undefined],
      [3, 11, "ts", "b();\n", { kind: "continues" }],
      [4, 14, "sh", "x\n", undefined],
    ]);
    // An unmarked block of a language that is not run is a failure, not a skip.
    const unmarked = allBlocks.filter((b) => b.marker === undefined && !["ts", "js", "yaml", "yml", "sh", "bash"].includes(b.lang));
    for (const block of unmarked) expect(plans.get(block)?.kind, nameOf(block)).toBe("unrunnable");
  });

  for (const block of allBlocks) {
    const title = `${block.guide} block ${block.index} (line ${block.line})`;
    if (block.marker?.kind === "not-runnable" && block.marker.reason.trim() !== "") {
      it.skip(`${title}: not runnable: ${block.marker.reason.trim()}`, () => {});
      continue;
    }
    const known = KNOWN_FAILING[nameOf(block)];
    it(known === undefined ? title : `${title} (known failing: ${known})`, () => {
      const result = outcome(block);
      expect(result, title).toBeDefined();
      if (known !== undefined) {
        expect(result?.ok, `${title} runs now: remove it from KNOWN_FAILING`).toBe(false);
        return;
      }
      if (!result?.ok) throw new Error(`${title} does not run:\n${result?.message ?? ""}`);
    });
  }
});
