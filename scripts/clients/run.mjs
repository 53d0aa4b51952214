#!/usr/bin/env node
// Runs the Go and Python clients (scripts/clients/go-tfe, scripts/clients/hvac) against
// `node dist/cli.cjs serve`: starts the dev server on a free port, reads its credentials from
// `--json`, runs each client with them, stops the server. Needs `npm run build` first and, from
// Debian, golang-go, golang-github-hashicorp-go-tfe-dev and python3-hvac.
// Usage: node scripts/clients/run.mjs [go-tfe] [hvac]   (default: both). Exit 0 when all pass.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["go-tfe", "hvac"];

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
