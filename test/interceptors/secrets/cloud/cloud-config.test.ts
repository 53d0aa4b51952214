import { expect, it } from "vitest";
import { describeEachTransport } from "../../../support/transports.js";
import { errorsOf, startCloud } from "./support.js";

describeEachTransport("cloud engine: root and lease configuration", (t) => {
  it("writes the root configuration and reads it back without the secret key", async () => {
    const { call } = await startCloud(t);
    const write = await call("POST", "/cloud/config/root", {
      body: { access_key: "AKIAEXAMPLEEXAMPLE12", secret_key: "s".repeat(40), region: "eu-west-1", iam_endpoint: "https://iam.example", sts_endpoint: "https://sts.example", max_retries: 3 },
    });
    expect(write.status).toBe(204);
    const read = await call("GET", "/cloud/config/root");
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ access_key: "AKIAEXAMPLEEXAMPLE12", region: "eu-west-1", iam_endpoint: "https://iam.example", sts_endpoint: "https://sts.example", max_retries: 3 });
    expect(read.text).not.toContain("s".repeat(40));
  });

  it("overwrites the whole root configuration, defaulting max_retries to -1 and the rest to empty", async () => {
    const { call } = await startCloud(t);
    await call("POST", "/cloud/config/root", { body: { access_key: "AKIAAAAAAAAAAAAAAAAA", secret_key: "x", region: "eu-west-1", max_retries: 5 } });
    await call("POST", "/cloud/config/root", { body: { access_key: "AKIABBBBBBBBBBBBBBBB", secret_key: "y" } });
    expect((await call("GET", "/cloud/config/root")).body.data).toEqual({ access_key: "AKIABBBBBBBBBBBBBBBB", region: "", iam_endpoint: "", sts_endpoint: "", max_retries: -1 });
  });

  it("answers 404 with an empty errors list before any root configuration is written", async () => {
    const { call } = await startCloud(t);
    const read = await call("GET", "/cloud/config/root");
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ errors: [] });
  });

  it("requires access_key and secret_key together unless the server environment has credentials", async () => {
    const { call, cloud } = await startCloud(t);
    const none = await call("POST", "/cloud/config/root", { body: { region: "us-east-1" } });
    expect(none.status).toBe(400);
    expect(errorsOf(none)[0]).toMatch(/access_key and secret_key are required/);
    const half = await call("POST", "/cloud/config/root", { body: { access_key: "AKIAAAAAAAAAAAAAAAAA" } });
    expect(half.status).toBe(400);
    expect(errorsOf(half)).toEqual(["access_key and secret_key must be supplied together"]);
    expect((await call("GET", "/cloud/config/root")).status).toBe(404);
    cloud.setServerCredentials("instance_role");
    expect((await call("POST", "/cloud/config/root", { body: { region: "us-west-2" } })).status).toBe(204);
    expect((await call("GET", "/cloud/config/root")).body.data).toMatchObject({ access_key: "", region: "us-west-2" });
  });

  it("refuses a max_retries that is not an integer with a field validation error", async () => {
    const { call } = await startCloud(t);
    const reply = await call("POST", "/cloud/config/root", { body: { access_key: "AKIAAAAAAAAAAAAAAAAA", secret_key: "x", max_retries: "many" } });
    expect(reply.status).toBe(400);
    expect(errorsOf(reply)).toEqual([`Field validation failed: error converting input many for field "max_retries": cannot parse '' as int: strconv.ParseInt: parsing "many": invalid syntax`]);
  });

  it("rotates the root credentials to a new key of the same IAM user and deletes the old key", async () => {
    const { call, cloud } = await startCloud(t);
    const root = cloud.configureRoot();
    const reply = await call("POST", "/cloud/config/rotate-root");
    expect(reply.status).toBe(200);
    const newKey = reply.body.data.access_key as string;
    expect(newKey).toMatch(/^AKIA[A-Z2-7]{16}$/);
    expect(newKey).not.toBe(root.accessKeyId);
    expect((await call("GET", "/cloud/config/root")).body.data.access_key).toBe(newKey);
    expect(cloud.rootUser()?.accessKeyIds).toEqual([newKey]);
    expect(cloud.credential(root.accessKeyId)).toBeUndefined();
    await call("POST", "/cloud/roles/deploy", { body: { credential_type: "iam_user", policy_arns: "arn:aws:iam::aws:policy/ReadOnlyAccess" } });
    expect((await call("GET", "/cloud/creds/deploy")).status).toBe(200);
  });

  it("adopts root keys the account has never seen into its root user and rotates them", async () => {
    const { call, cloud } = await startCloud(t);
    await call("POST", "/cloud/config/root", { body: { access_key: "AKIAUNKNOWNUNKNOWN12", secret_key: "z".repeat(40) } });
    const reply = await call("POST", "/cloud/config/rotate-root");
    expect(reply.status).toBe(200);
    expect(cloud.iamUser(cloud.rootUserName())?.accessKeyIds).toEqual([reply.body.data.access_key]);
  });

  it("fails rotate-root with 500 when the IAM user has another access key, and changes nothing", async () => {
    const { call, cloud } = await startCloud(t);
    const root = cloud.configureRoot();
    cloud.createAccessKey(cloud.rootUserName());
    const reply = await call("POST", "/cloud/config/rotate-root");
    expect(reply.status).toBe(500);
    expect(errorsOf(reply)).toEqual(["error calling CreateAccessKey: LimitExceeded: Cannot exceed quota for AccessKeysPerUser: 2"]);
    expect((await call("GET", "/cloud/config/root")).body.data.access_key).toBe(root.accessKeyId);
    expect(cloud.rootUser()?.accessKeyIds).toHaveLength(2);
  });

  it("refuses rotate-root without a configuration (500) or with only ambient credentials (400)", async () => {
    const { call, cloud } = await startCloud(t);
    const none = await call("POST", "/cloud/config/rotate-root");
    expect(none.status).toBe(500);
    expect(errorsOf(none)).toEqual(["no configuration found for config/root"]);
    cloud.setServerCredentials("environment");
    await call("POST", "/cloud/config/root", { body: {} });
    const ambient = await call("POST", "/cloud/config/rotate-root");
    expect(ambient.status).toBe(400);
    expect(errorsOf(ambient)).toEqual(["Cannot call config/rotate-root when either access_key or secret_key is empty"]);
  });

  it("refuses rotate-root when the configured secret does not match the key", async () => {
    const { call, cloud } = await startCloud(t);
    const root = cloud.configureRoot();
    await call("POST", "/cloud/config/root", { body: { access_key: root.accessKeyId, secret_key: "wrong" } });
    const reply = await call("POST", "/cloud/config/rotate-root");
    expect(reply.status).toBe(500);
    expect(errorsOf(reply)[0]).toMatch(/^error calling GetUser: SignatureDoesNotMatch: /);
  });

  it("lets provider calls fail for the propagation delay after rotation, then work", async () => {
    const { call, cloud, doubles } = await startCloud(t);
    cloud.configureRoot();
    cloud.setRootKeyPropagation("10s");
    await call("POST", "/cloud/roles/deploy", { body: { credential_type: "iam_user", policy_arns: "arn:aws:iam::aws:policy/ReadOnlyAccess" } });
    expect((await call("POST", "/cloud/config/rotate-root")).status).toBe(200);
    const early = await call("GET", "/cloud/creds/deploy");
    expect(early.status).toBe(400);
    expect(errorsOf(early)).toEqual(["Error creating IAM user: InvalidClientTokenId: The security token included in the request is invalid."]);
    doubles.advance("10s");
    expect((await call("GET", "/cloud/creds/deploy")).status).toBe(200);
  });

  it("writes the lease configuration and reads it back in normalised form", async () => {
    const { call } = await startCloud(t);
    expect((await call("POST", "/cloud/config/lease", { body: { lease: "90m", lease_max: "24h" } })).status).toBe(204);
    const read = await call("GET", "/cloud/config/lease");
    expect(read.body.data).toEqual({ lease: "1h30m0s", lease_max: "24h0m0s" });
    await call("POST", "/cloud/config/lease", { body: { lease: "45s", lease_max: "1500ms" } });
    expect((await call("GET", "/cloud/config/lease")).body.data).toEqual({ lease: "45s", lease_max: "1.5s" });
  });

  it("refuses lease settings that are missing or not Go durations with hours as the largest unit", async () => {
    const { call } = await startCloud(t);
    expect((await call("GET", "/cloud/config/lease")).status).toBe(404);
    const cases: [Record<string, unknown>, string][] = [
      [{ lease_max: "1h" }, "'lease' is a required parameter"],
      [{ lease: "1h" }, "'lease_max' is a required parameter"],
      [{ lease: "1d", lease_max: "1h" }, 'Invalid lease: time: unknown unit "d" in duration "1d"'],
      [{ lease: "1h", lease_max: "3600" }, 'Invalid lease_max: time: missing unit in duration "3600"'],
      [{ lease: "soon", lease_max: "1h" }, 'Invalid lease: time: invalid duration "soon"'],
    ];
    for (const [body, message] of cases) {
      const reply = await call("POST", "/cloud/config/lease", { body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(errorsOf(reply)).toEqual([message]);
    }
    expect((await call("GET", "/cloud/config/lease")).status).toBe(404);
  });

  it("answers 405 for operations a configuration path does not have", async () => {
    const { call } = await startCloud(t);
    expect((await call("DELETE", "/cloud/config/root")).status).toBe(405);
    expect((await call("GET", "/cloud/config/rotate-root")).status).toBe(405);
  });

  it("needs the update capability for configuration writes and read for reads", async () => {
    const { call, secrets } = await startCloud(t);
    secrets.createPolicy("creator", { "cloud/config/*": ["create", "read"] });
    secrets.createPolicy("updater", { "cloud/config/*": ["update"] });
    const creator = secrets.createToken({ policies: ["creator"] }).token;
    const updater = secrets.createToken({ policies: ["updater"] }).token;
    const body = { access_key: "AKIAAAAAAAAAAAAAAAAA", secret_key: "x" };
    const refused = await call("POST", "/cloud/config/root", { body, token: creator });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ errors: ["permission denied"] });
    expect((await call("POST", "/cloud/config/root", { body, token: updater })).status).toBe(204);
    expect((await call("GET", "/cloud/config/root", { token: updater })).status).toBe(403);
    expect((await call("GET", "/cloud/config/root", { token: creator })).status).toBe(200);
    expect((await call("GET", "/cloud/config/root", { token: null })).status).toBe(403);
  });
});
