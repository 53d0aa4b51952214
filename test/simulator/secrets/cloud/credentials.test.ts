import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdSource } from "../../../../src/simulator/kernel/ids.js";
import {
  CloudApiError,
  STS_DURATION_LIMITS,
  ambientCredentialSource,
  assumeRole,
  authenticate,
  createAccessKey,
  createUser,
  credentialStatus,
  currentUser,
  deleteAccessKey,
  deleteUser,
  findKeyOwner,
  getFederationToken,
  wasDeleted,
} from "../../../../src/simulator/secrets/cloud/cloud-account.js";
import { issueCredentials } from "../../../../src/simulator/secrets/cloud/credentials.js";
import { longTermAccessKeyId, secretAccessKey, sessionToken, temporaryAccessKeyId } from "../../../../src/simulator/secrets/cloud/key-formats.js";
import { providerRegion, writeRootConfig } from "../../../../src/simulator/secrets/cloud/root-config.js";
import { writeRole } from "../../../../src/simulator/secrets/cloud/roles.js";
import { initialCloudMountState } from "../../../../src/simulator/secrets/cloud/state.js";
import { START, cloudHarness } from "./harness.js";

const caller = { source: "static" as const, arn: "arn:aws:iam::123456789012:user/root" };

function configured() {
  const h = cloudHarness();
  writeRootConfig(h.context(), { accessKey: "AKIAROOTROOTROOTROOT", secretKey: "s" });
  writeRole(h.context(), "u", { credentialType: "iam_user", policyArns: ["arn:aws:iam::aws:policy/P"] });
  writeRole(h.context(), "a", { credentialType: "assumed_role", roleArns: ["arn:aws:iam::123456789012:role/R"] });
  return h;
}

describe("credential formats", () => {
  it("draw 20-character key ids, 40-character secrets and long session tokens from the id source", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const ids = new IdSource(seed);
        expect(longTermAccessKeyId(ids)).toMatch(/^AKIA[A-Z2-7]{16}$/);
        expect(temporaryAccessKeyId(ids)).toMatch(/^ASIA[A-Z2-7]{16}$/);
        expect(secretAccessKey(ids)).toMatch(/^[A-Za-z0-9+/]{40}$/);
        expect(sessionToken(ids).length).toBeGreaterThan(300);
      }),
      { numRuns: 50 },
    );
  });
});

describe("the simulated provider", () => {
  it("allows at most two access keys per user", () => {
    const account = initialCloudMountState().account;
    const ids = new IdSource(1);
    createUser(account, { userName: "u", path: "/", permissionsBoundaryArn: "", origin: "scenario" }, 0, ids);
    createAccessKey(account, "u", 0, ids);
    createAccessKey(account, "u", 0, ids);
    expect(() => createAccessKey(account, "u", 0, ids)).toThrow(new CloudApiError("LimitExceeded", "Cannot exceed quota for AccessKeysPerUser: 2"));
  });

  it("finds every key's owner by its index, as a walk over the users finds it, through adds, deletes and user deletes", () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant("user" as const), user: fc.nat(4) }),
      fc.record({ kind: fc.constant("key" as const), user: fc.nat(4) }),
      fc.record({ kind: fc.constant("unseen" as const), n: fc.nat(3) }),
      fc.record({ kind: fc.constant("deleteKey" as const), user: fc.nat(4), which: fc.nat(1) }),
      fc.record({ kind: fc.constant("deleteUser" as const), user: fc.nat(4) }),
      fc.record({ kind: fc.constant("reindex" as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const account = initialCloudMountState().account;
        const ids = new IdSource(7);
        const seen: string[] = [];
        for (const s of steps) {
          const name = `u${"user" in s ? s.user : 0}`;
          const user = account.users[name];
          if (s.kind === "user" && user === undefined) createUser(account, { userName: name, path: "/", permissionsBoundaryArn: "", origin: "scenario" }, 0, ids);
          if (s.kind === "key" && user !== undefined && user.accessKeys.length < 2) seen.push(createAccessKey(account, name, 0, ids).accessKeyId);
          if (s.kind === "unseen") seen.push((currentUser(account, `AKIAUNSEEN${s.n}`, "s", 0, ids), `AKIAUNSEEN${s.n}`));
          if (s.kind === "deleteKey" && user?.accessKeys[s.which] !== undefined) deleteAccessKey(account, name, (user.accessKeys[s.which] as { accessKeyId: string }).accessKeyId);
          if (s.kind === "deleteUser") deleteUser(account, name);
          // A state without the index (from before it existed) builds it on first use.
          if (s.kind === "reindex") delete account.keyOwners;
          for (const id of seen) {
            const walked = Object.values(account.users).find((u) => u.accessKeys.some((k) => k.accessKeyId === id));
            expect(findKeyOwner(account, id)?.user).toBe(walked);
            expect(findKeyOwner(account, id)?.key.accessKeyId ?? id).toBe(id);
            if (walked === undefined) expect(wasDeleted(account, id)).toBe(true);
          }
        }
        expect(findKeyOwner(account, "AKIANEVERSEENANYWHERE")).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it("accepts STS durations exactly within the provider's ranges", () => {
    fc.assert(
      fc.property(fc.integer({ min: -10, max: 200_000 }), (seconds) => {
        const account = initialCloudMountState().account;
        const ids = new IdSource(seconds);
        const assume = () => assumeRole(account, caller, { roleArn: "arn:aws:iam::123456789012:role/R", sessionName: "ab", durationSeconds: seconds, policyDocument: "", policyArns: [], region: "us-east-1" }, 0, ids);
        const federate = () => getFederationToken(account, { name: "ab", durationSeconds: seconds, policyDocument: "", policyArns: [], region: "us-east-1" }, 0, ids);
        const inRange = (limits: { min: number; max: number }) => seconds >= limits.min && seconds <= limits.max;
        if (inRange(STS_DURATION_LIMITS.assumedRole)) expect(assume().expiresAt).toBe(seconds * 1000);
        else expect(assume).toThrow(CloudApiError);
        if (inRange(STS_DURATION_LIMITS.federationToken)) expect(federate().expiresAt).toBe(seconds * 1000);
        else expect(federate).toThrow(CloudApiError);
      }),
    );
  });
});

describe("dynamic credentials", () => {
  it("live exactly as long as their lease (IAM users) or their own expiry (STS)", () => {
    const h = configured();
    const iam = issueCredentials(h.context(), { path: "creds", roleName: "u" });
    const sts = issueCredentials(h.context(), { path: "sts", roleName: "a", ttlSeconds: 1800 });
    expect(iam.lease.expiresAt - iam.lease.issuedAt).toBe(768 * 3_600_000);
    expect(sts.lease.expiresAt - sts.lease.issuedAt).toBe(1_800_000);
    h.advance(1_800_000 - 1);
    expect(credentialStatus(h.mount.account, sts.accessKey, h.now())?.kind).toBe("assumed_role");
    h.advance(1);
    expect(credentialStatus(h.mount.account, sts.accessKey, h.now())).toBeUndefined();
    expect(h.mount.account.sessions).toEqual({});
    expect(credentialStatus(h.mount.account, iam.accessKey, h.now())?.kind).toBe("iam_user");
    h.context().revokeLease(iam.lease.id);
    expect(credentialStatus(h.mount.account, iam.accessKey, h.now())).toBeUndefined();
  });

  it("forget expired STS sessions in constant amortized time: the table holds at most twice the live ones, 64 at the least", () => {
    const h = configured();
    const issued = [];
    for (let round = 0; round < 6; round++) {
      // Leases revoked early: their sessions stay valid at the provider until they expire.
      for (let i = 0; i < 50; i++) {
        const sts = issueCredentials(h.context(), { path: "sts", roleName: "a", ttlSeconds: 900 });
        h.context().revokeLease(sts.lease.id);
        issued.push(sts.accessKey);
      }
      expect(credentialStatus(h.mount.account, issued.at(-1) ?? "", h.now())?.kind).toBe("assumed_role");
      h.advance(900_000);
      for (const key of issued) expect(credentialStatus(h.mount.account, key, h.now())).toBeUndefined();
      expect(Object.keys(h.mount.account.sessions).length).toBeLessThanOrEqual(Math.max(64, 2 * 50) + 1);
    }
    expect(h.mount.account.sessionCount).toBe(Object.keys(h.mount.account.sessions).length);
  });

  it("use the simulator clock for unix_time in names", () => {
    const h = configured();
    h.advance(60_000);
    const issued = issueCredentials(h.context(), { path: "creds", roleName: "u" });
    expect(issued.arn).toContain(`-${(START + 60_000) / 1000}-`);
  });
});

describe("provider credentials and region", () => {
  const SOURCES = ["environment", "shared_credentials_file", "instance_role"] as const;

  it("take static keys first, then the highest ambient source by the spec's precedence", () => {
    fc.assert(
      fc.property(fc.subarray([...SOURCES]), fc.boolean(), (sources, withStatic) => {
        const mount = initialCloudMountState();
        mount.account.serverCredentials = [...sources].reverse();
        if (withStatic) mount.root = { accessKey: "AKIAROOTROOTROOTROOT", secretKey: "s", region: "", iamEndpoint: "", stsEndpoint: "", maxRetries: -1, usernameTemplate: "" };
        const expected = withStatic ? "static" : SOURCES.find((source) => sources.includes(source));
        expect(ambientCredentialSource(mount.account)).toBe(SOURCES.find((source) => sources.includes(source)));
        if (expected === undefined) expect(() => authenticate(mount, 0)).toThrow(CloudApiError);
        else expect(authenticate(mount, 0).source).toBe(expected);
      }),
    );
  });

  it("go to the configured region, else the server's, else us-east-1", () => {
    fc.assert(
      fc.property(fc.constantFrom("", "eu-west-1"), fc.constantFrom("", "ap-south-1"), (configured, server) => {
        const mount = initialCloudMountState();
        mount.account.serverRegion = server;
        mount.root = { accessKey: "A", secretKey: "s", region: configured, iamEndpoint: "", stsEndpoint: "", maxRetries: -1, usernameTemplate: "" };
        expect(providerRegion(mount)).toBe(configured || server || "us-east-1");
      }),
    );
    const h = configured();
    h.mount.account.serverRegion = "eu-central-1";
    const issued = issueCredentials(h.context(), { path: "sts", roleName: "a" });
    expect(credentialStatus(h.mount.account, issued.accessKey, h.now())).toMatchObject({ region: "eu-central-1" });
  });
});
