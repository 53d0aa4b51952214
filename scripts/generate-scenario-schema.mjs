#!/usr/bin/env node
/**
 * Generates the JSON Schema of scenario documents from their TypeScript types
 * (src/scenarios/document/types.ts, type ScenarioDocument) with ts-json-schema-generator, and writes
 * it to src/scenarios/document/scenario.schema.json (the build copies it to
 * dist/scenario.schema.json, exported as `infra-doubles/scenario.schema.json`).
 *
 * `--check`: exits 1 when the committed file differs from what the types give.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createGenerator } from "ts-json-schema-generator";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const SCHEMA_FILE = join(root, "src/scenarios/document/scenario.schema.json");

/** The schema text (2-space JSON, trailing newline). */
export function generateScenarioSchema() {
  const schema = createGenerator({
    path: join(root, "src/scenarios/document/types.ts"),
    tsconfig: join(root, "tsconfig.json"),
    type: "ScenarioDocument",
    expose: "export",
    topRef: true,
    jsDoc: "extended",
    additionalProperties: false,
    sortProps: true,
    skipTypeCheck: true,
  }).createSchema("ScenarioDocument");
  schema.$id = "https://infra-doubles.dev/scenario.schema.json";
  schema.title = "infra-doubles scenario document";
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = generateScenarioSchema();
  if (process.argv.includes("--check")) {
    const committed = readFileSync(SCHEMA_FILE, "utf8");
    if (committed !== text) {
      process.stderr.write(`${SCHEMA_FILE} is out of step with src/scenarios/document/types.ts: run npm run schema\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(SCHEMA_FILE, text);
    process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
  }
}
