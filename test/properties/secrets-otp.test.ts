/**
 * Property: a one-time password verifies at most once, and only while its lease lives - for any
 * sequence of issuing, verifying, revoking and time travel (model-based, fast-check commands). The
 * real secrets core runs underneath (lease table, expiry moves on the simulator clock).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isDomainError } from "../../src/simulator/kernel/errors.js";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import type { SecretsScenario } from "../../src/scenarios/secrets/secrets-scenario.js";
import { sshScenario, type SshScenario } from "../../src/scenarios/secrets/ssh/ssh-scenario.js";
import { verifyOtp } from "../../src/simulator/secrets/ssh/ssh-credentials.js";
import type { SshMountState } from "../../src/simulator/secrets/ssh/ssh-state.js";
import { sshOnlyPlugin } from "../interceptors/secrets/ssh/ssh-harness.js";

interface Model {
  now: number;
  /** Issued OTPs in order: when their lease ends, and whether they were used or revoked. */
  otps: { expiresAt: number; used: boolean; revoked: boolean }[];
}

interface Real {
  doubles: DoublesCore;
  secrets: SecretsScenario;
  ssh: SshScenario;
  issued: { otp: string; leaseId: string }[];
}

const TTL_MS = 10 * 60_000;

function verify(real: Real, otp: string): "ok" | "refused" {
  try {
    const answer = real.secrets.updateMount<SshMountState, ReturnType<typeof verifyOtp>>("ssh", (ctx) => verifyOtp(ctx, otp));
    expect(answer).toMatchObject({ role_name: "otp-role", username: "ubuntu" });
    return "ok";
  } catch (error) {
    const detail = isDomainError(error) ? error.detail : String((error as Error).message);
    expect(detail).toContain("OTP not found");
    return "refused";
  }
}

class Issue implements fc.Command<Model, Real> {
  constructor(readonly host: number) {}
  check = (): boolean => true;
  run(model: Model, real: Real): void {
    real.issued.push(real.ssh.issueOtp("otp-role", `10.0.0.${this.host}`));
    model.otps.push({ expiresAt: model.now + TTL_MS, used: false, revoked: false });
  }
  toString = (): string => `issue(10.0.0.${this.host})`;
}

class Verify implements fc.Command<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Model): boolean => model.otps.length > 0;
  run(model: Model, real: Real): void {
    const index = this.pick % model.otps.length;
    const entry = model.otps[index]!;
    const expected = !entry.used && !entry.revoked && model.now < entry.expiresAt ? "ok" : "refused";
    expect(verify(real, real.issued[index]!.otp)).toBe(expected);
    if (expected === "ok") entry.used = true;
  }
  toString = (): string => `verify(#${this.pick})`;
}

class VerifyUnknown implements fc.Command<Model, Real> {
  constructor(readonly otp: string) {}
  check = (): boolean => true;
  run(_model: Model, real: Real): void {
    expect(verify(real, this.otp)).toBe("refused");
  }
  toString = (): string => `verify(${this.otp})`;
}

class Revoke implements fc.Command<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Model): boolean => model.otps.length > 0;
  run(model: Model, real: Real): void {
    const index = this.pick % model.otps.length;
    const entry = model.otps[index]!;
    const alive = !entry.revoked && model.now < entry.expiresAt;
    expect(real.secrets.revokeLease(real.issued[index]!.leaseId)).toBe(alive);
    entry.revoked = true;
  }
  toString = (): string => `revoke(#${this.pick})`;
}

class Advance implements fc.Command<Model, Real> {
  constructor(readonly ms: number) {}
  check = (): boolean => true;
  run(model: Model, real: Real): void {
    real.doubles.advance(this.ms);
    model.now += this.ms;
    const live = model.otps.filter((o) => !o.used && !o.revoked && model.now < o.expiresAt).length;
    expect(real.ssh.liveOtps()).toHaveLength(live);
  }
  toString = (): string => `advance(${this.ms}ms)`;
}

const commands = [
  fc.integer({ min: 1, max: 254 }).map((h) => new Issue(h)),
  fc.nat().map((p) => new Verify(p)),
  fc.nat().map((p) => new Verify(p)),
  fc.uuid().map((u) => new VerifyUnknown(u)),
  fc.nat().map((p) => new Revoke(p)),
  fc.oneof(fc.integer({ min: 1, max: TTL_MS * 2 }), fc.constant(TTL_MS), fc.constant(TTL_MS - 1)).map((ms) => new Advance(ms)),
];

describe("secrets ssh: one-time password property", () => {
  it("an OTP verifies at most once, and never after its lease ended or was revoked", () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 40 }), (cmds) => {
        const doubles = new DoublesCore([sshOnlyPlugin()], { seed: "otp-property" });
        const secrets = doubles.controlsOf<SecretsScenario>("secrets");
        const ssh = sshScenario(secrets);
        ssh.addOtpRole("otp-role", { cidrList: "10.0.0.0/8" });
        ssh.setOtpTtl(TTL_MS);
        const start = doubles.now();
        fc.modelRun(() => ({ model: { now: start, otps: [] }, real: { doubles, secrets, ssh, issued: [] } }), cmds);
      }),
      { numRuns: 60 },
    );
  });
});
