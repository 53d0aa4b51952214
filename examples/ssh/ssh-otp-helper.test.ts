import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../src/index.js";
import { installSshDefaults, sshScenario } from "../../src/scenarios/secrets/ssh/index.js";
import { checkConnection, requestOtp, verifyOtp, type SecretsConnection } from "./ssh-otp-helper.js";

describe("example: SSH one-time-password helper", () => {
  let doubles: Doubles;
  let stop: () => void;
  let connection: SecretsConnection;

  beforeEach(() => {
    doubles = createDoubles({ seed: 7 });
    stop = doubles.intercept().stop;
    installSshDefaults(doubles.secrets, { keyType: "ed25519" });
    doubles.secrets.createPolicy("ssh-otp", { "ssh/creds/otp-role": ["update"] });
    const { token } = doubles.secrets.createToken({ policies: ["ssh-otp"] });
    connection = { baseUrl: doubles.baseUrls().secrets!.api!, token };
  });
  afterEach(() => stop());

  it("logs a user in once with the OTP the client got", async () => {
    expect(await checkConnection(connection)).toBe(true);
    const issued = await requestOtp(connection, "otp-role", "10.20.30.40");
    expect(issued).toMatchObject({ username: "ubuntu", ip: "10.20.30.40", port: 22 });
    expect(await verifyOtp(connection, issued.otp, "ubuntu")).toEqual({ ok: true, username: "ubuntu", ip: "10.20.30.40" });
    expect(await verifyOtp(connection, issued.otp, "ubuntu")).toEqual({ ok: false, reason: "OTP not found" });
  });

  it("refuses an OTP typed after its lease ended (time travel)", async () => {
    sshScenario(doubles.secrets).setOtpTtl("2m");
    const issued = await requestOtp(connection, "otp-role", "10.0.0.8");
    expect(issued.leaseSeconds).toBe(120);
    doubles.advance("2m");
    expect(await verifyOtp(connection, issued.otp, "ubuntu")).toEqual({ ok: false, reason: "OTP not found" });
  });

  it("surfaces the service's refusal for hosts outside the role", async () => {
    await expect(requestOtp(connection, "otp-role", "192.168.1.10")).rejects.toThrow("OTP refused (400): Error validating IP: IP does not belong to role");
  });
});
