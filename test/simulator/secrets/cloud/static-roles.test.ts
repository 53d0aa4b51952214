import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createUser } from "../../../../src/simulator/secrets/cloud/cloud-account.js";
import { writeRootConfig } from "../../../../src/simulator/secrets/cloud/root-config.js";
import { ROTATION_RETRY_MS, deleteStaticRole, readStaticCredentials, writeStaticRole } from "../../../../src/simulator/secrets/cloud/static-roles.js";
import { START, cloudHarness } from "./harness.js";

function withUser(seed: number | string = 1) {
  const h = cloudHarness(seed);
  writeRootConfig(h.context(), { accessKey: "AKIAROOTROOTROOTROOT", secretKey: "s" });
  createUser(h.mount.account, { userName: "app", path: "/", permissionsBoundaryArn: "", origin: "scenario" }, h.now(), h.ids);
  return h;
}

describe("static role rotation", () => {
  it("rotates once per period, each at its own time, never holding more than two keys", () => {
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 7200 }), fc.array(fc.integer({ min: 0, max: 20_000_000 }), { maxLength: 12 }), (period, steps) => {
        const h = withUser(period);
        writeStaticRole(h.context(), "r", { username: "app", rotationPeriod: period });
        for (const step of steps) {
          h.advance(step);
          const credential = readStaticCredentials(h.mount, "r");
          const keys = h.mount.account.users.app?.accessKeys ?? [];
          expect(keys.length).toBeLessThanOrEqual(2);
          expect(keys.map((k) => k.accessKeyId)).toContain(credential?.accessKeyId);
          expect(credential?.rotatesAt).toBe(START + (Math.floor((h.now() - START) / (period * 1000)) + 1) * period * 1000);
        }
        const elapsed = h.now() - START;
        const created = (h.mount.account.users.app?.accessKeys.length ?? 0) + Object.keys(h.mount.account.deletedAccessKeys).length;
        expect(created).toBe(1 + Math.floor(elapsed / (period * 1000)));
      }),
      { numRuns: 60 },
    );
  });

  it("retries a failed rotation after 10 seconds and resumes the period once it succeeds", () => {
    const h = withUser();
    writeStaticRole(h.context(), "r", { username: "app", rotationPeriod: 3600 });
    const first = readStaticCredentials(h.mount, "r")?.accessKeyId;
    const user = h.mount.account.users.app;
    delete h.mount.account.users.app;
    h.advance(3_600_000 + 25_000);
    expect(readStaticCredentials(h.mount, "r")?.accessKeyId).toBe(first);
    expect(h.mount.staticRoles.r?.lastRotationError).toMatch(/NoSuchEntity/);
    expect(h.moves.map((m) => m.at)).toEqual([START + 3_600_000 + 3 * ROTATION_RETRY_MS]);
    if (user) h.mount.account.users.app = user;
    h.advance(5000);
    expect(readStaticCredentials(h.mount, "r")?.accessKeyId).not.toBe(first);
    expect(h.mount.staticRoles.r?.lastRotationError).toBe("");
    expect(readStaticCredentials(h.mount, "r")?.rotatesAt).toBe(START + 3_600_000 + 3 * ROTATION_RETRY_MS + 3_600_000);
  });

  it("cancels the rotation when the role is deleted", () => {
    const h = withUser();
    writeStaticRole(h.context(), "r", { username: "app", rotationPeriod: 60 });
    deleteStaticRole(h.context(), "r");
    expect(h.moves).toEqual([]);
    expect(h.mount.account.users.app?.accessKeys).toEqual([]);
  });
});
