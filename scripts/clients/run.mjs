#!/usr/bin/env node
// Runs the Go and Python clients (scripts/clients/go-tfe, scripts/clients/hvac, scripts/clients/consul2) and the
// worlds helpers' suites (scripts/clients/worlds: go-tfe tests in parallel with the Go helper, hvac tests under
// pytest-xdist with the pytest fixture, each test in a world of its own) against
// `node dist/cli.cjs serve`: starts the dev server on a free port, reads its credentials from
// `--json`, runs each client with them, stops the server. Needs `npm run build` first and, from
// Debian, golang-go, golang-github-hashicorp-go-tfe-dev, python3-hvac, python3-consul2, python3-pytest and
// python3-pytest-xdist.
// Usage: node scripts/clients/run.mjs [go-tfe] [hvac] [consul2] [worlds-go] [worlds-pytest]   (default: all).
// Exit 0 when all pass.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["go-tfe", "hvac", "consul2", "worlds-go", "worlds-pytest"];
const goEnv = { GO111MODULE: "off", GOPATH: "/usr/share/gocode", GOCACHE: process.env.GOCACHE ?? "/tmp/infra-doubles-gocache", GOFLAGS: "" };

const server = spawn(process.execPath, [join(root, "dist", "cli.cjs"), "serve", "--port", "0", "--json"], { stdio: ["ignore", "pipe", "inherit"] });
const [line] = await once(createInterface({ input: server.stdout }), "line");
const dev = JSON.parse(line);

const clients = {
  "go-tfe": () =>
    spawnSync("go", ["run", join(root, "scripts", "clients", "go-tfe", "main.go")], {
      stdio: "inherit",
      env: {
        ...process.env,
        GO111MODULE: "off",
        GOPATH: "/usr/share/gocode",
        GOCACHE: process.env.GOCACHE ?? "/tmp/infra-doubles-gocache",
        GOFLAGS: "",
        TFE_ADDRESS: dev.url,
        TFE_TOKEN: dev.runs.userToken,
        TFE_WORKSPACE: dev.runs.workspaceId,
        TFE_ORGANIZATION: dev.runs.organization,
      },
    }),
  hvac: () =>
    spawnSync("/usr/bin/python3", [join(root, "scripts", "clients", "hvac", "check.py")], {
      stdio: "inherit",
      env: { ...process.env, VAULT_ADDR: dev.url, VAULT_TOKEN: dev.secrets.rootToken },
    }),
  consul2: () =>
    spawnSync("/usr/bin/python3", [join(root, "scripts", "clients", "consul2", "check.py")], {
      stdio: "inherit",
      env: { ...process.env, CONSUL_HTTP_ADDR: dev.url, CONSUL_HTTP_TOKEN: dev.accessControl.bootstrapSecretId },
    }),
  // 50 go-tfe tests at once, each in its own world (docs/guides/run-parallel-suites-against-one-server.md).
  "worlds-go": () =>
    spawnSync("go", ["test", "-count=1", "-parallel", "50", "./scripts/clients/worlds/"], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, ...goEnv, INFRA_DOUBLES_URL: dev.url },
    }),
  "worlds-pytest": () =>
    spawnSync("/usr/bin/python3", ["-m", "pytest", "-n", "4", "-p", "no:cacheprovider", "-q", join(root, "scripts", "clients", "worlds")], {
      stdio: "inherit",
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", INFRA_DOUBLES_URL: dev.url },
    }),
};

let failed = 0;
try {
  for (const name of wanted) {
    const started = performance.now();
    const result = clients[name]?.();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const ok = result?.status === 0;
    if (!ok) failed++;
    console.log(`${name}: ${ok ? "ok" : `FAILED (${result?.error?.message ?? `exit ${result?.status}`})`} in ${seconds} s`);
  }
} finally {
  server.kill("SIGTERM");
}
process.exit(failed === 0 ? 0 : 1);
