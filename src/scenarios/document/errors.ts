/**
 * The error a scenario document that cannot be loaded raises: where (a JSON pointer into the
 * document) and what was expected.
 */
import { UsageError } from "../../simulator/kernel/errors.js";

/** One problem of a document: where and what. */
export interface ScenarioProblem {
  /** JSON pointer into the document (`/runs/workspaces/0/organization`; `""` for the document itself). */
  readonly path: string;
  /** What was expected there, e.g. `must be string`, `must be one of "changes", "no-changes", "errors"`. */
  readonly expected: string;
}

/**
 * A scenario document that does not fit the schema, names something it does not define, or asks
 * for a fixture the service refuses. Nothing of the document is kept when it is raised. The message
 * lists every problem as `<pointer>: <what was expected>`.
 *
 * - `problems`: each problem's JSON pointer and expectation (the first is `path` / `expected`).
 * - `kind`: `syntax` (not JSON/YAML), `schema` (does not fit the schema), `reference` (a name the
 *   document and the simulator do not know), `fixture` (the service refused the fixture).
 *
 * @example
 * try { doubles.load({ runs: { workspaces: [{ name: "prod" }] } }); }
 * catch (error) { if (error instanceof ScenarioDocumentError) console.log(error.path); } // "/runs/workspaces/0"
 */
export class ScenarioDocumentError extends UsageError {
  readonly kind: "syntax" | "schema" | "reference" | "fixture";
  readonly problems: readonly ScenarioProblem[];

  constructor(kind: ScenarioDocumentError["kind"], problems: readonly ScenarioProblem[]) {
    const lines = problems.map((p) => `${p.path === "" ? "(document)" : p.path}: ${p.expected}`);
    super(`scenario document: ${lines.length === 1 ? lines[0] : `${lines.length} problems\n  ${lines.join("\n  ")}`}`);
    this.name = "ScenarioDocumentError";
    this.kind = kind;
    this.problems = problems;
  }

  /** JSON pointer of the first problem. */
  get path(): string {
    return this.problems[0]?.path ?? "";
  }

  /** What the first problem expected. */
  get expected(): string {
    return this.problems[0]?.expected ?? "";
  }
}

/**
 * A JSON pointer from path segments (`["runs", "workspaces", 0]` -> `/runs/workspaces/0`).
 * @example pointer(["a/b", 1]) // "/a~1b/1"
 */
export function pointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}
