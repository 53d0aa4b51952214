#!/usr/bin/env node
/** The `infra-doubles` command line: `infra-doubles serve [--port 8080] [--host 127.0.0.1] [--seed N] [--json]`. */
import { runCli } from "./cli/main.js";

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, signals: process }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`infra-doubles: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
