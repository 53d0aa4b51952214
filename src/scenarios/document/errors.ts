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
  /** 1-based line of the field in the document's text (documents read from text or a file). */
  readonly line?: number;
  /** 1-based column of the field in the document's text. */
  readonly column?: number;
}

/**
 * Where a problem is, as a compiler says it: `world.yaml:12:5: ` with a file, `line 12, column
 * 5: ` without, `world.yaml: ` without a position.
 */
function locationOf(problem: ScenarioProblem, file: string | undefined): string {
  const position = problem.line === undefined ? undefined : `${problem.line}:${problem.column ?? 1}`;
  if (file !== undefined) return position === undefined ? `${file}: ` : `${file}:${position}: `;
  return problem.line === undefined ? "" : `line ${problem.line}, column ${problem.column ?? 1}: `;
}

/**
 * A scenario document that does not fit the schema, names something it does not define, or asks
 * for a fixture the service refuses. Nothing of the document is kept when it is raised. The message
 * lists every problem as `<file>:<line>:<column>: <pointer>: <what was expected>` (the file when
 * the document was read from one, the line and column when it was read from text), e.g.
 * `world.yaml:12:5: /runs/workspaces/0/organisation: unknown property (did you mean "organization"?); allowed here: ...`.
 *
 * - `problems`: each problem's JSON pointer, expectation and position (the first is `path` /
 *   `expected` / `line` / `column`).
 * - `kind`: `syntax` (not JSON/YAML), `schema` (does not fit the schema), `reference` (a name the
 *   document and the simulator do not know), `fixture` (the service refused the fixture).
 * - `file`: the document's file, when it was read from one.
 *
 * @example
 * try { doubles.load({ runs: { workspaces: [{ name: "prod" }] } }); }
 * catch (error) { if (error instanceof ScenarioDocumentError) console.log(error.path); } // "/runs/workspaces/0"
 */
export class ScenarioDocumentError extends UsageError {
  readonly kind: "syntax" | "schema" | "reference" | "fixture";
  readonly problems: readonly ScenarioProblem[];
  /** The document's file, when it was read from one. */
  readonly file: string | undefined;

  constructor(kind: ScenarioDocumentError["kind"], problems: readonly ScenarioProblem[], file?: string) {
    const lines = problems.map((p) => `${locationOf(p, file)}${p.path === "" ? "(document)" : p.path}: ${p.expected}`);
    const head = file === undefined ? "scenario document: " : "";
    super(lines.length === 1 ? `${head}${lines[0] ?? ""}` : `${file ?? "scenario document"}: ${lines.length} problems\n  ${lines.join("\n  ")}`);
    this.name = "ScenarioDocumentError";
    this.kind = kind;
    this.problems = problems;
    this.file = file;
  }

  /** 1-based line of the first problem in the document's text, when known. */
  get line(): number | undefined {
    return this.problems[0]?.line;
  }

  /** 1-based column of the first problem in the document's text, when known. */
  get column(): number | undefined {
    return this.problems[0]?.column;
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
