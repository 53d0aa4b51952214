// ESLint flat config: typescript-eslint's recommended rules, plus the simulator's purity rules.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const hiddenTime = [
  { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: "src/simulator reads time only through its Clock (ctx.now)." },
  { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: "src/simulator reads time only through its Clock (ctx.now)." },
  { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: "src/simulator draws randomness only from its IdSource (ctx.ids)." },
  { selector: "CallExpression[callee.property.name='randomUUID']", message: "src/simulator draws ids only from its IdSource (ctx.ids.uuid())." },
  { selector: "CallExpression[callee.property.name='randomBytes']", message: "src/simulator draws randomness only from its IdSource (ctx.ids.bytes())." },
];

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", "bench/.build/", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: "readonly", process: "readonly", Buffer: "readonly", URL: "readonly", URLSearchParams: "readonly", TextDecoder: "readonly", TextEncoder: "readonly", AbortController: "readonly", AbortSignal: "readonly", fetch: "readonly", performance: "readonly", setTimeout: "readonly", clearTimeout: "readonly", structuredClone: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/simulator/**/*.ts"],
    ignores: ["src/simulator/kernel/clock.ts"],
    rules: {
      "no-restricted-syntax": ["error", ...hiddenTime, { selector: "Property[key.name='status'][value.type='Literal'][value.raw=/^[1-5][0-9][0-9]$/]", message: "src/simulator raises a DomainError code; src/interceptors maps it to an HTTP status." }],
      "no-restricted-imports": ["error", {
        paths: [
          { name: "nock", message: "src/simulator knows nothing of HTTP." },
          { name: "node:http", message: "src/simulator knows nothing of HTTP." },
          { name: "node:https", message: "src/simulator knows nothing of HTTP." },
          { name: "http", message: "src/simulator knows nothing of HTTP." },
          { name: "https", message: "src/simulator knows nothing of HTTP." },
          { name: "axios", message: "src/simulator knows nothing of HTTP." },
          { name: "undici", message: "src/simulator knows nothing of HTTP." },
        ],
        patterns: [{ group: ["**/interceptors/**"], message: "src/simulator knows nothing of HTTP." }],
      }],
      "no-restricted-globals": ["error", { name: "fetch", message: "src/simulator knows nothing of HTTP." }, { name: "setTimeout", message: "The simulator schedules moves; it never uses timers." }, { name: "setInterval", message: "The simulator schedules moves; it never uses timers." }],
    },
  },
);
