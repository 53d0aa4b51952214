/**
 * What both test files of the example share: the world the deploy client runs in (an
 * organization, a workspace, a user who may apply runs) and the configuration it uploads.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Doubles } from "../../src/index.js";
import type { DeployTarget } from "./deploy-client.js";

/** A real .tar.gz, made with the system's tar, as a user's build would. */
function makeArchive(files: Record<string, string>): Uint8Array<ArrayBuffer> {
  const dir = mkdtempSync(join(tmpdir(), "mutants-example-"));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    execFileSync("tar", ["-czf", join(dir, "config.tar.gz"), "-C", dir, ...Object.keys(files)]);
    return new Uint8Array(readFileSync(join(dir, "config.tar.gz")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The configuration every test deploys. */
export const archive = makeArchive({ "main.tf": 'resource "null_resource" "app" {}\n' });

/**
 * Adds the organization `acme`, its workspace `prod` and the user `deployer` (write: may apply and
 * discard runs) to `doubles`, and returns where and as whom the client talks.
 */
export function world(doubles: Doubles): DeployTarget {
  const runs = doubles.runs;
  const workspace = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
  const user = runs.addUser({ username: "deployer", permissions: { [workspace.id]: "write" } });
  return { baseUrl: doubles.baseUrls().runs?.api ?? "", token: runs.issueUserToken(user.id), workspaceId: workspace.id };
}
