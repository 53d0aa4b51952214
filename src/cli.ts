#!/usr/bin/env node
/** The `infra-doubles` command line: `infra-doubles serve [--port 8080] [--host 127.0.0.1] [--seed N] [--json]`. */
console.error("infra-doubles: the serve command arrives with the run orchestration service");
process.exitCode = 1;
