/**
 * `configurationArchive()` keeps its bytes: the figures below were computed with the hand-written
 * ustar encoder of 0.1.0, before the archive writer moved to nanotar (issue 12 item 2). Same on
 * Node 20.12, 20, 22 and 24 (one bundled zlib output for level 9).
 */
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../../src/simulator/kernel/errors.js";
import { configurationArchive } from "../../../src/scenarios/runs/archive.js";

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

const MIXED = {
  "main.tf": 'resource "null_resource" "a" {}\n',
  "modules/x/main.tf": "# x\n",
  "empty.tf": "",
  "ünïcode/ß.tf": 'variable "é" {}\n',
  ["p".repeat(97) + ".tf"]: "x".repeat(512),
  "big.tf": "y".repeat(10_000),
};

describe("configurationArchive keeps the bytes of the 0.1.0 encoder", () => {
  it("writes the default archive byte for byte", () => {
    const archive = configurationArchive();
    expect(Buffer.from(archive).toString("base64")).toBe(
      "H4sIAAAAAAACA8tNzMzTK0ljoCUwMDAwMDMxAdMGBgbotIGBiRmCDRY3NzIyYVAwYKADKC0uSSxiMKCLXYMQFKUW55cWJacqKOWV5uTEw7hKCkqpFYm5BTmpSgrVtVwMo2AUjIJRMAqGGQAAW+ynPAAIAAA=",
    );
    expect(sha256(gunzipSync(archive))).toBe("9044d48c203755d827ea3b8a68d0ef0b7deddfe126737a8ccf591289f02a58e3");
  });

  it("writes empty files, nested and non-ASCII paths, a 100-byte path, a full block and several blocks byte for byte", () => {
    const archive = configurationArchive(MIXED);
    const tar = gunzipSync(archive);
    expect(tar.length).toBe(16_384);
    expect(sha256(tar)).toBe("d81585771bc95ad1184868e25aedbe73fdfa3342fe2560aa782d4df91ab8a381");
    expect(sha256(archive)).toBe("9a3a34e69369bc795fd7506e4f22d3f03c80d2a2bbd15e6cb0d7de4f07ebb8c1");
  });

  it("ends with two zero blocks also when the entries fill a 10 KiB record exactly", () => {
    const files = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}.tf`, String(i).repeat(512)]));
    const archive = configurationArchive(files);
    expect(gunzipSync(archive).length).toBe(10 * 1024 + 1024);
    expect(sha256(archive)).toBe("3c83bf862da509d022166f2095c30a7eb03b64cbd7604ca64cf489ed8e6bb963");
  });

  it("refuses paths it cannot write and content that is not a string", () => {
    expect(() => configurationArchive({ ["a".repeat(101)]: "" })).toThrow(UsageError);
    expect(() => configurationArchive({ "": "" })).toThrow(UsageError);
    expect(() => configurationArchive({ "main.tf": 1 as unknown as string })).toThrow(UsageError);
    expect(() => configurationArchive(null as unknown as Record<string, string>)).toThrow(UsageError);
  });
});
