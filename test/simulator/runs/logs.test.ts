/**
 * The pieces behind plan and apply logs: resource blocks read from a configuration (HCL and JSON,
 * root module only, comments skipped) and the log text of each phase status (empty before it
 * starts, the banner while running, STX...ETX once over: finished, errored, canceled).
 */
import { describe, expect, it } from "vitest";
import { configurationArchive } from "../../../src/scenarios/runs/archive.js";
import { configurationResources, hclResources, jsonResources } from "../../../src/simulator/runs/configuration-resources.js";
import { logText } from "../../../src/simulator/runs/logs.js";
import type { Phase, Run } from "../../../src/simulator/runs/state.js";

describe("runs simulator: resource blocks of a configuration", () => {
  it("reads quoted and bare labels, skips comments, strings of other blocks and nested blocks' look-alikes", () => {
    const text = [
      'resource "null_resource" "foo" {}',
      "resource aws_instance web {",
      '  tags = { Name = "resource \\"x\\" \\"y\\" {" }',
      "}",
      '# resource "commented" "hash" {}',
      '// resource "commented" "slashes" {}',
      '/* resource "commented" "block" {}',
      'resource "commented" "block2" {} */',
      'data "aws_ami" "ubuntu" {}',
      'module "vpc" { source = "./vpc" }',
      '  resource "indented" "ok" {',
      "  }",
    ].join("\n");
    expect(hclResources(text)).toEqual(["null_resource.foo", "aws_instance.web", "indented.ok"]);
  });

  it("reads JSON configuration in its object and array forms, and ignores what is not JSON", () => {
    expect(jsonResources('{"resource":{"null_resource":{"a":{},"b":{}},"random_id":{"c":{}}}}')).toEqual(["null_resource.a", "null_resource.b", "random_id.c"]);
    expect(jsonResources('{"resource":[{"null_resource":[{"a":{}}]}]}')).toEqual(["null_resource.a"]);
    expect(jsonResources("{not json")).toEqual([]);
    expect(jsonResources('{"variable":{"x":{}}}')).toEqual([]);
  });

  it("counts the root module's .tf and .tf.json files only, and answers undefined for an unreadable archive", () => {
    const archive = configurationArchive({
      "main.tf": 'resource "null_resource" "a" {}\n',
      "b.tf.json": '{"resource":{"null_resource":{"b":{}}}}',
      "modules/x/main.tf": 'resource "null_resource" "nested" {}\n',
      "notes.txt": 'resource "null_resource" "text" {}\n',
      "override.tfvars": 'resource "null_resource" "vars" {}\n',
    });
    expect(configurationResources(archive)).toEqual(["null_resource.a", "null_resource.b"]);
    expect(configurationResources(configurationArchive({ "main.tf": 'output "x" { value = 1 }\n' }))).toEqual([]);
    expect(configurationResources(new Uint8Array([1, 2, 3]))).toBeUndefined();
  });
});

describe("runs simulator: log text", () => {
  const run = { id: "run-1", engineVersion: "1.9.8", isDestroy: false } as Run;
  const phase = (status: Phase["status"], extra: Partial<Phase> = {}): Phase => ({
    id: "plan-1",
    runId: "run-1",
    status,
    statusTimestamps: { pending: 0, ...(status === "pending" ? {} : { queued: 1_000, running: 2_000 }), [status]: 5_000 },
    hasChanges: true,
    resources: { add: 1, change: 0, destroy: 0, import: 0 },
    addresses: ["null_resource.foo"],
    ...extra,
  });

  it("is empty before the phase starts and for a phase that never ran", () => {
    expect(logText(run, phase("pending"), "plan")).toBe("");
    expect(logText(run, phase("queued"), "plan")).toBe("");
    expect(logText(run, { ...phase("unreachable"), statusTimestamps: { pending: 0, unreachable: 1 } }, "apply")).toBe("");
  });

  it("frames a phase that is over with STX and ETX, and leaves ETX out while it runs", () => {
    const running = logText(run, phase("running"), "plan");
    expect(running).toBe("\u0002Terraform v1.9.8\non linux_amd64\nInitializing plugins and modules...\n");
    for (const status of ["finished", "errored", "canceled"] as const) {
      const text = logText(run, phase(status), "plan");
      expect(text.startsWith(running), status).toBe(true);
      expect(text.endsWith("\u0003"), status).toBe(true);
    }
    expect(logText(run, phase("errored"), "plan")).toContain("Error: Simulated plan failure");
    expect(logText(run, phase("errored"), "apply")).toContain("Error: Simulated apply failure");
    expect(logText(run, phase("canceled"), "apply")).toContain("Interrupt received.");
  });

  it("says no changes for a plan without changes, and puts imports first when there are any", () => {
    expect(logText(run, phase("finished", { hasChanges: false, resources: { add: 0, change: 0, destroy: 0, import: 0 }, addresses: [] }), "plan")).toContain(
      "No changes. Your infrastructure matches the configuration.",
    );
    const imports = { add: 1, change: 0, destroy: 0, import: 2 };
    expect(logText(run, phase("finished", { resources: imports }), "plan")).toContain("Plan: 2 to import, 1 to add, 0 to change, 0 to destroy.");
    expect(logText(run, phase("finished", { resources: imports }), "apply")).toContain("Apply complete! Resources: 2 imported, 1 added, 0 changed, 0 destroyed.");
  });

  it("lists a destroy run's resources as destroyed", () => {
    const destroy = { ...run, isDestroy: true } as Run;
    const counts = { add: 0, change: 0, destroy: 1, import: 0 };
    expect(logText(destroy, phase("finished", { resources: counts }), "plan")).toContain("# null_resource.foo will be destroyed");
    expect(logText(destroy, phase("finished", { resources: counts }), "apply").endsWith("null_resource.foo: Destruction complete after 3s\n\nApply complete! Resources: 0 added, 0 changed, 1 destroyed.\n\u0003")).toBe(true);
  });
});
