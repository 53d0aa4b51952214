import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../../../../src/simulator/kernel/errors.js";
import { createDoubles, type Doubles } from "../../../../src/scenarios/doubles.js";
import { cloudScenario, installCloudDefaults } from "../../../../src/scenarios/secrets/cloud/index.js";

let doubles: Doubles | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

describe("cloud scenario controls", () => {
  it("install a ready mount that issues every credential type through createDoubles()", async () => {
    doubles = createDoubles({ seed: 3 });
    doubles.intercept();
    const defaults = installCloudDefaults(doubles.secrets);
    const token = doubles.secrets.rootToken;
    const ask = (path: string) => fetch(`https://secrets.test/v1/cloud/${path}`, { method: "POST", headers: { "x-secrets-token": token } }).then((r) => r.json());
    expect((await ask(`creds/${defaults.roles.iamUser}`)).data.access_key).toMatch(/^AKIA/);
    expect((await ask(`sts/${defaults.roles.assumedRole}`)).data.arn).toMatch(/^arn:aws:sts::123456789012:assumed-role\/Deployer\//);
    expect((await ask(`sts/${defaults.roles.federationToken}`)).data.arn).toMatch(/:federated-user\//);
  });

  it("work on other mounts of the cloud engine", async () => {
    doubles = createDoubles({ seed: 3 });
    doubles.secrets.mount("team-a/cloud", "cloud");
    const team = cloudScenario(doubles.secrets).at("team-a/cloud");
    team.setAccountId("210987654321");
    team.configureRoot();
    expect(team.rootUser()?.arn).toBe("arn:aws:iam::210987654321:user/secrets-root");
    expect(cloudScenario(doubles.secrets).rootUser()).toBeUndefined();
  });

  it("replace the previous root key when configuring the root again", () => {
    doubles = createDoubles();
    const cloud = cloudScenario(doubles.secrets);
    const first = cloud.configureRoot();
    const second = cloud.configureRoot();
    expect(cloud.rootUser()?.accessKeyIds).toEqual([second.accessKeyId]);
    expect(cloud.credential(first.accessKeyId)).toBeUndefined();
  });

  it("refuse misuse with a UsageError and change nothing", () => {
    doubles = createDoubles();
    const cloud = cloudScenario(doubles.secrets);
    cloud.createIamUser("u", { accessKeys: 2 });
    expect(() => cloud.createAccessKey("u")).toThrow(UsageError);
    expect(() => cloud.createIamUser("u")).toThrow(/EntityAlreadyExists/);
    expect(() => cloud.deleteIamUser("ghost")).toThrow(UsageError);
    expect(() => cloud.setAccountId("12")).toThrow(UsageError);
    expect(() => cloud.declareRole("arn:aws:iam::123456789012:role/R", { maxSessionDuration: "13h" })).toThrow(UsageError);
    expect(() => cloud.createGroup("g", { policyDocuments: ["{"] })).toThrow(UsageError);
    expect(() => cloudScenario(doubles!.secrets, "nowhere").iamUserNames()).toThrow(UsageError);
    expect(cloud.iamUser("u")?.accessKeyIds).toHaveLength(2);
  });

  it("take fixed key pairs for users, and make fresh unregistered pairs", () => {
    doubles = createDoubles();
    const cloud = cloudScenario(doubles.secrets);
    cloud.createIamUser("u");
    const pair = cloud.newKeyPair();
    expect(pair.accessKeyId).toMatch(/^AKIA[A-Z2-7]{16}$/);
    expect(cloud.credential(pair.accessKeyId)).toBeUndefined();
    cloud.createAccessKey("u", pair);
    expect(cloud.credential(pair.accessKeyId)).toEqual({ kind: "iam_user", userName: "u", usable: true });
    cloud.deleteAccessKey("u", pair.accessKeyId);
    expect(cloud.credential(pair.accessKeyId)).toBeUndefined();
  });

  it("refuse a fixed key pair whose id the account already has or once had", () => {
    doubles = createDoubles();
    const cloud = cloudScenario(doubles.secrets);
    cloud.createIamUser("a");
    cloud.createIamUser("b");
    const pair = cloud.newKeyPair();
    cloud.createAccessKey("a", pair);
    expect(() => cloud.createAccessKey("b", pair)).toThrow(/already exists or existed/);
    cloud.deleteAccessKey("a", pair.accessKeyId);
    expect(() => cloud.createAccessKey("a", pair)).toThrow(UsageError);
    expect(cloud.iamUser("b")?.accessKeyIds).toEqual([]);
  });

  it("say where provider calls go: credential source and region", () => {
    doubles = createDoubles();
    const cloud = cloudScenario(doubles.secrets);
    expect(cloud.credentialSource()).toBeNull();
    expect(cloud.region()).toBe("us-east-1");
    cloud.setServerCredentials("shared_credentials_file");
    cloud.setServerRegion("eu-west-3");
    expect(cloud.credentialSource()).toBe("shared_credentials_file");
    expect(cloud.region()).toBe("eu-west-3");
    cloud.configureRoot({ region: "us-west-1" });
    expect(cloud.credentialSource()).toBe("static");
    expect(cloud.region()).toBe("us-west-1");
    cloud.setServerRegion("");
    cloud.configureRoot();
    expect(cloud.region()).toBe("us-east-1");
  });
});
