/**
 * Independent audit of the cloud-account engine: regression tests for the defects the audit found
 * (region fall-back, credential source precedence, out-of-range numbers), and HTTP proofs of spec
 * rows that were only covered by unit tests (name limits of the default template).
 */
import { expect, it } from "vitest";
import { describeEachTransport } from "../../../support/transports.js";
import { errorsOf, startCloud } from "./support.js";

const READ_ONLY = "arn:aws:iam::aws:policy/ReadOnlyAccess";
const UNIX = 1_704_067_200; // the default manual clock start, 2024-01-01T00:00:00Z

describeEachTransport("cloud engine audit", (t) => {
  it("sends provider calls to the configured region, else the server environment's, else us-east-1, while read root answers the region as written", async () => {
    const { call, cloud, withRoles } = await startCloud(t);
    const secret = await withRoles(); // root keys of a simulated IAM user, written without a region
    const regionOfNewSession = async () => {
      const reply = await call("POST", "/cloud/sts/assume");
      expect(reply.status).toBe(200);
      return cloud.credential(reply.body.data.access_key);
    };

    expect((await call("GET", "/cloud/config/root")).body.data.region).toBe("");
    expect(cloud.region()).toBe("us-east-1");
    expect(await regionOfNewSession()).toMatchObject({ kind: "assumed_role", region: "us-east-1" });

    cloud.setServerRegion("eu-central-1");
    expect((await call("GET", "/cloud/config/root")).body.data.region).toBe("");
    expect(await regionOfNewSession()).toMatchObject({ region: "eu-central-1" });

    await call("POST", "/cloud/config/root", { body: { access_key: secret.accessKeyId, secret_key: secret.secretAccessKey, region: "ap-south-1" } });
    expect((await call("GET", "/cloud/config/root")).body.data.region).toBe("ap-south-1");
    expect(cloud.region()).toBe("ap-south-1");
    const federated = await call("POST", "/cloud/sts/federate");
    expect(cloud.credential(federated.body.data.access_key)).toMatchObject({ kind: "federation_token", region: "ap-south-1" });

    cloud.setServerRegion(null);
    await call("POST", "/cloud/config/root", { body: { access_key: secret.accessKeyId, secret_key: secret.secretAccessKey } });
    expect(cloud.region()).toBe("us-east-1");
  });

  it("takes credentials by precedence: static config/root keys, then environment, shared credentials file, instance role", async () => {
    const { call, cloud } = await startCloud(t);
    await call("POST", "/cloud/roles/deploy", { body: { credential_type: "iam_user", policy_arns: READ_ONLY } });
    expect(cloud.credentialSource()).toBeNull();

    cloud.setServerCredentials(["instance_role", "shared_credentials_file", "environment"]);
    expect((await call("POST", "/cloud/config/root", { body: { region: "us-west-2" } })).status).toBe(204);
    expect(cloud.credentialSource()).toBe("environment");
    expect((await call("GET", "/cloud/creds/deploy")).status).toBe(200);
    cloud.setServerCredentials(["instance_role", "shared_credentials_file"]);
    expect(cloud.credentialSource()).toBe("shared_credentials_file");
    cloud.setServerCredentials("instance_role");
    expect(cloud.credentialSource()).toBe("instance_role");
    expect((await call("GET", "/cloud/creds/deploy")).status).toBe(200);

    // Static keys come first, and a refused static key does not fall back to the ambient sources.
    cloud.setServerCredentials(["environment", "instance_role"]);
    const root = cloud.configureRoot();
    expect(cloud.credentialSource()).toBe("static");
    cloud.deleteAccessKey(cloud.rootUserName(), root.accessKeyId);
    const refused = await call("GET", "/cloud/creds/deploy");
    expect(refused.status).toBe(400);
    expect(errorsOf(refused)).toEqual(["Error creating IAM user: InvalidClientTokenId: The security token included in the request is invalid."]);

    cloud.setServerCredentials(null);
    await call("POST", "/cloud/config/root", { body: {} }).then((reply) => expect(reply.status).toBe(400));
    expect(() => cloud.setServerCredentials(["environment", "vault" as never])).toThrow(/unknown server credential source "vault"/);
  });

  it("refuses durations beyond Go's range in every duration field instead of storing nonsense", async () => {
    const { call, cloud } = await startCloud(t);
    cloud.configureRoot();
    cloud.createIamUser("app-user");
    const cases: [string, Record<string, unknown>, string, string][] = [
      ["/cloud/static-roles/app", { username: "app-user", rotation_period: "99999999999999999999" }, "rotation_period", 'input 99999999999999999999 for field "rotation_period": strconv.ParseInt: parsing "99999999999999999999": value out of range'],
      ["/cloud/static-roles/app", { username: "app-user", rotation_period: 1e15 }, "rotation_period", 'input 1000000000000000 for field "rotation_period": time: invalid duration "1000000000000000"'],
      ["/cloud/static-roles/app", { username: "app-user", rotation_period: "9000000000000000000" }, "rotation_period", 'input 9000000000000000000 for field "rotation_period": time: invalid duration "9000000000000000000"'],
      ["/cloud/roles/assume", { credential_type: "assumed_role", role_arns: "arn:aws:iam::123456789012:role/R", max_sts_ttl: "9999999999999d" }, "max_sts_ttl", 'input 9999999999999d for field "max_sts_ttl": time: invalid duration "9999999999999d"'],
      ["/cloud/roles/assume", { credential_type: "assumed_role", role_arns: "arn:aws:iam::123456789012:role/R", default_sts_ttl: "99999999999999999999d" }, "default_sts_ttl", 'input 99999999999999999999d for field "default_sts_ttl": strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    ];
    for (const [path, body, field, message] of cases) {
      const reply = await call("POST", path, { body });
      expect(reply.status, `${field} ${JSON.stringify(body)}`).toBe(400);
      expect(errorsOf(reply)).toEqual([`Field validation failed: error converting ${message}`]);
    }
    expect((await call("GET", "/cloud/static-roles/app")).status).toBe(404);
    expect((await call("GET", "/cloud/roles/assume")).status).toBe(404);
    // The longest Go duration still works, and +/- signs parse like Go's ParseInt.
    expect((await call("POST", "/cloud/static-roles/app", { body: { username: "app-user", rotation_period: "9223372036" } })).body.data.rotation_period).toBe("2562047h47m16s");
    expect((await call("POST", "/cloud/roles/assume", { body: { credential_type: "assumed_role", role_arns: "arn:aws:iam::123456789012:role/R", default_sts_ttl: "+1d" } })).status).toBe(204);
    expect((await call("GET", "/cloud/roles/assume")).body.data.default_sts_ttl).toBe(86_400);
  });

  it("refuses a max_retries beyond Go's int range with a field validation error", async () => {
    const { call } = await startCloud(t);
    const reply = await call("POST", "/cloud/config/root", { body: { access_key: "AKIAAAAAAAAAAAAAAAAA", secret_key: "x", max_retries: "99999999999999999999" } });
    expect(reply.status).toBe(400);
    expect(errorsOf(reply)).toEqual([
      `Field validation failed: error converting input 99999999999999999999 for field "max_retries": cannot parse '' as int: strconv.ParseInt: parsing "99999999999999999999": value out of range`,
    ]);
    expect((await call("GET", "/cloud/config/root")).status).toBe(404);
    expect((await call("POST", "/cloud/config/root", { body: { access_key: "AKIAAAAAAAAAAAAAAAAA", secret_key: "x", max_retries: "+7" } })).status).toBe(204);
    expect((await call("GET", "/cloud/config/root")).body.data.max_retries).toBe(7);
  });

  it("cuts default-template IAM user and session names to 64 characters and federated names to 32, through HTTP", async () => {
    const { call, cloud, secrets } = await startCloud(t);
    cloud.configureRoot();
    const longRole = `r${"o".repeat(40)}le`;
    await call("POST", `/cloud/roles/${longRole}`, { body: { credential_type: "iam_user", policy_arns: READ_ONLY } });
    await call("POST", "/cloud/roles/session", { body: { credential_type: "assumed_role", role_arns: "arn:aws:iam::123456789012:role/Deployer" } });
    await call("POST", "/cloud/roles/federate", { body: { credential_type: "federation_token", policy_arns: READ_ONLY } });
    secrets.createPolicy("all", { "cloud/*": ["read", "update"] });
    const { token } = secrets.createToken({ policies: ["all"], displayName: "a-very-long-display-name-of-a-ci-pipeline" });

    const iam = await call("GET", `/cloud/creds/${longRole}`, { token });
    const userName = (iam.body.data.arn as string).replace("arn:aws:iam::123456789012:user/", "");
    // secrets-<display-role cut to 42>-<unix>-<random>, cut to 64.
    expect(userName).toHaveLength(64);
    expect(userName.startsWith(`secrets-${`a-very-long-display-name-of-a-ci-pipeline-${longRole}`.slice(0, 42)}-${UNIX}-`)).toBe(true);
    expect(cloud.iamUser(userName)?.accessKeyIds).toEqual([iam.body.data.access_key]);

    const session = await call("POST", "/cloud/sts/session", { token });
    const sessionName = (session.body.data.arn as string).split("/").pop() as string;
    expect(sessionName).toHaveLength(64);
    expect(sessionName.startsWith(`secrets-${"a-very-long-display-name-of-a-ci-pipeline-session".slice(0, 42)}-${UNIX}-`)).toBe(true);

    const federated = await call("POST", "/cloud/sts/federate", { token });
    const federatedName = (federated.body.data.arn as string).split("/").pop() as string;
    expect(federatedName).toMatch(new RegExp(`^secrets-${UNIX}-[0-9A-Za-z]{13}$`));
  });

  it("reads role_arn, role_session_name and ttl from the query string of GET creds", async () => {
    const { call, withRoles } = await startCloud(t);
    await withRoles();
    const auditor = "arn:aws:iam::210987654321:role/Auditor";
    await call("POST", "/cloud/roles/assume", { body: { role_arns: ["arn:aws:iam::123456789012:role/Deployer", auditor] } });
    const query = new URLSearchParams({ role_arn: auditor, role_session_name: "nightly job", ttl: "20m" });
    const reply = await call("GET", `/cloud/creds/assume?${query}`);
    expect(reply.status).toBe(200);
    expect(reply.body.data.arn).toBe("arn:aws:sts::210987654321:assumed-role/Auditor/nightly_job");
    expect(reply.body.lease_duration).toBe(1200);
    const ambiguous = await call("GET", "/cloud/creds/assume?ttl=20m");
    expect(errorsOf(ambiguous)).toEqual(["did not supply a role_arn parameter and unable to determine one"]);
    const twice = await call("GET", "/cloud/creds/assume?ttl=1h&ttl=2h");
    expect(twice.status).toBe(400);
    expect(errorsOf(twice)[0]).toMatch(/^Field validation failed: error converting input \[1h 2h\] for field "ttl": /);
  });

  it("refuses malformed bodies on every cloud write path with 400 and changes nothing", async () => {
    const { call, cloud, doubles, withRoles } = await startCloud(t);
    await withRoles();
    cloud.createIamUser("app-user");
    await call("POST", "/cloud/static-roles/app", { body: { username: "app-user", rotation_period: "1h" } });
    const stateOf = () => JSON.stringify(doubles.sim.read("secrets", (ctx) => (ctx.state as { mounts: Record<string, { engineState: unknown }> }).mounts.cloud?.engineState));
    const before = stateOf();
    const paths = ["config/root", "config/rotate-root", "config/lease", "roles/deploy", "creds/deploy", "sts/assume", "static-roles/app"];
    const bodies: [string, RegExp][] = [
      ["{bad", /^failed to parse JSON input: /],
      ["[1, 2]", /^failed to parse JSON input: json: cannot unmarshal array into Go value of type map\[string\]interface \{\}$/],
      ["null", /^failed to parse JSON input: json: cannot unmarshal null into Go value of type map\[string\]interface \{\}$/],
      ['"text"', /^failed to parse JSON input: json: cannot unmarshal string into Go value of type map\[string\]interface \{\}$/],
    ];
    for (const path of paths) {
      for (const [body, message] of bodies) {
        const reply = await call("POST", `/cloud/${path}`, { body });
        expect(reply.status, `${path} ${body}`).toBe(400);
        expect(errorsOf(reply)[0], `${path} ${body}`).toMatch(message);
      }
    }
    expect(stateOf()).toBe(before);
  });

  it("answers byte-identical responses for the same seed and calls across config, roles, static roles, rotation and time travel", async () => {
    const run = async () => {
      const { call, cloud, doubles } = await startCloud(t, 42);
      cloud.createIamUser("app-user");
      const texts: string[] = [];
      const record = async (method: string, path: string, body?: unknown) => texts.push((await call(method, path, body === undefined ? {} : { body })).text);
      await record("POST", "/cloud/config/root", { access_key: "AKIAUNKNOWNUNKNOWN12", secret_key: "z".repeat(40) });
      await record("POST", "/cloud/config/rotate-root");
      await record("POST", "/cloud/config/lease", { lease: "30m", lease_max: "1h" });
      await record("POST", "/cloud/roles/deploy", { credential_type: "iam_user", policy_arns: READ_ONLY });
      await record("GET", "/cloud/creds/deploy");
      await record("POST", "/cloud/static-roles/app", { username: "app-user", rotation_period: "1h" });
      await record("GET", "/cloud/static-creds/app");
      doubles.advance("90m");
      await record("GET", "/cloud/static-creds/app");
      await record("GET", "/cloud/config/root");
      await record("LIST", "/cloud/roles");
      const users = cloud.iamUserNames().join(",");
      await doubles.close();
      return `${texts.join("\n")}\n${users}`;
    };
    const first = await run();
    expect(first).toContain("AKIA");
    expect(await run()).toBe(first);
  });

  it("needs update to write static roles and rotate the root, read to read them and their credentials, delete to delete", async () => {
    const { call, cloud, secrets } = await startCloud(t);
    cloud.configureRoot();
    cloud.createIamUser("app-user");
    secrets.createPolicy("creator", { "cloud/static-roles/*": ["create", "read", "delete"], "cloud/config/rotate-root": ["create"] });
    secrets.createPolicy("operator", { "cloud/static-roles/*": ["update"], "cloud/config/rotate-root": ["update"] });
    secrets.createPolicy("reader", { "cloud/static-roles/*": ["read"], "cloud/static-creds/*": ["read"] });
    const creator = secrets.createToken({ policies: ["creator"] }).token;
    const operator = secrets.createToken({ policies: ["operator"] }).token;
    const reader = secrets.createToken({ policies: ["reader"] }).token;
    const body = { username: "app-user", rotation_period: "1h" };
    expect(await call("POST", "/cloud/static-roles/app", { body, token: creator })).toMatchObject({ status: 403, body: { errors: ["permission denied"] } });
    expect((await call("POST", "/cloud/config/rotate-root", { token: creator })).status).toBe(403);
    expect((await call("POST", "/cloud/static-roles/app", { body, token: operator })).status).toBe(200);
    expect((await call("GET", "/cloud/static-roles/app", { token: operator })).status).toBe(403);
    expect((await call("GET", "/cloud/static-roles/app", { token: reader })).status).toBe(200);
    expect((await call("GET", "/cloud/static-creds/app", { token: reader })).status).toBe(200);
    expect((await call("GET", "/cloud/static-creds/app", { token: creator })).status).toBe(403);
    expect((await call("DELETE", "/cloud/static-roles/app", { token: reader })).status).toBe(403);
    expect((await call("POST", "/cloud/config/rotate-root", { token: operator })).status).toBe(200);
    expect((await call("DELETE", "/cloud/static-roles/app", { token: creator })).status).toBe(204);
    expect((await call("GET", "/cloud/static-creds/app", { token: null })).status).toBe(403);
  });
});
