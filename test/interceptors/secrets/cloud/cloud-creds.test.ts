import { expect, it } from "vitest";
import { describeEachTransport } from "../../../support/transports.js";
import { errorsOf, startCloud } from "./support.js";

const READ_ONLY = "arn:aws:iam::aws:policy/ReadOnlyAccess";
const DEPLOYER = "arn:aws:iam::123456789012:role/Deployer";
const AUDITOR = "arn:aws:iam::210987654321:role/team/Auditor";
const UNIX = 1_704_067_200; // the default manual clock start, 2024-01-01T00:00:00Z
const SYSTEM_MAX_TTL = 768 * 3600;

describeEachTransport("cloud engine: dynamic credentials", (t) => {
  it("issues an IAM user with a 20-character AKIA key, a 40-character secret and a null security token", async () => {
    const { call, cloud, withRoles } = await startCloud(t);
    await withRoles();
    await call("POST", "/cloud/roles/deploy", { body: { policy_document: '{"Statement":[]}', iam_groups: "developers", iam_tags: { team: "infra" }, user_path: "/ci/", permissions_boundary_arn: "arn:aws:iam::123456789012:policy/Boundary" } });
    const reply = await call("GET", "/cloud/creds/deploy");
    expect(reply.status).toBe(200);
    const { data } = reply.body;
    expect(Object.keys(data).sort()).toEqual(["access_key", "arn", "secret_key", "security_token"]);
    expect(data.access_key).toMatch(/^AKIA[A-Z2-7]{16}$/);
    expect(data.secret_key).toMatch(/^[A-Za-z0-9+/]{40}$/);
    expect(data.security_token).toBeNull();
    const userName = (data.arn as string).replace("arn:aws:iam::123456789012:user/ci/", "");
    expect(userName).toMatch(new RegExp(`^secrets-root-deploy-${UNIX}-[0-9A-Za-z]{20}$`));
    expect(reply.body.lease_id).toMatch(/^cloud\/creds\/deploy\/.+/);
    expect(reply.body.renewable).toBe(true);
    expect(reply.body.lease_duration).toBe(SYSTEM_MAX_TTL);
    expect(cloud.iamUser(userName)).toMatchObject({
      path: "/ci/",
      accessKeyIds: [data.access_key],
      attachedPolicyArns: [READ_ONLY],
      inlinePolicies: { deploy: '{"Statement":[]}' },
      groups: ["developers"],
      tags: { team: "infra" },
      permissionsBoundaryArn: "arn:aws:iam::123456789012:policy/Boundary",
    });
    expect(cloud.credential(data.access_key)).toEqual({ kind: "iam_user", userName, usable: true });
  });

  it("leases IAM users per config/lease, ignores the request's ttl, and deletes the user when the lease ends", async () => {
    const { call, cloud, doubles, withRoles } = await startCloud(t);
    await withRoles();
    await call("POST", "/cloud/config/lease", { body: { lease: "2h", lease_max: "1h" } });
    const reply = await call("POST", "/cloud/creds/deploy", { body: { ttl: "5m" } });
    expect(reply.body.lease_duration).toBe(3600);
    const key = reply.body.data.access_key as string;
    doubles.advance("59m");
    expect(cloud.credential(key)?.kind).toBe("iam_user");
    doubles.advance("1m");
    expect(cloud.credential(key)).toBeUndefined();
    expect(cloud.iamUserNames()).toEqual([cloud.rootUserName()]);
  });

  it("caps renewals of an IAM user's lease at config/lease's lease_max, counted from issue", async () => {
    const { call, cloud, doubles, withRoles } = await startCloud(t);
    await withRoles();
    await call("POST", "/cloud/config/lease", { body: { lease: "1h", lease_max: "2h" } });
    const reply = await call("POST", "/cloud/creds/deploy");
    const key = reply.body.data.access_key as string;
    doubles.advance("30m");
    const renewed = await call("PUT", "/sys/leases/renew", { body: { lease_id: reply.body.lease_id, increment: "10h" } });
    expect(renewed.status).toBe(200);
    expect(renewed.body.lease_duration).toBe(90 * 60); // 2h from issue, 30m already gone
    doubles.advance(90 * 60_000 - 1);
    expect(cloud.credential(key)?.kind).toBe("iam_user");
    doubles.advance(1);
    expect(cloud.credential(key)).toBeUndefined();
  });

  it("deletes the IAM user when its lease is revoked early", async () => {
    const { call, cloud, withRoles } = await startCloud(t);
    await withRoles();
    const reply = await call("GET", "/cloud/creds/deploy");
    expect((await call("PUT", "/sys/leases/revoke", { body: { lease_id: reply.body.lease_id } })).status).toBe(204);
    expect(cloud.credential(reply.body.data.access_key)).toBeUndefined();
  });

  it("assumes a role: ASIA key, session token, assumed-role ARN, 3600 s by default, not renewable", async () => {
    const { call, cloud, withRoles } = await startCloud(t);
    await withRoles();
    const reply = await call("POST", "/cloud/sts/assume");
    expect(reply.status).toBe(200);
    const { data } = reply.body;
    expect(data.access_key).toMatch(/^ASIA[A-Z2-7]{16}$/);
    expect(data.secret_key).toHaveLength(40);
    expect(typeof data.security_token).toBe("string");
    expect((data.security_token as string).length).toBeGreaterThan(100);
    expect(data.arn).toMatch(new RegExp(`^arn:aws:sts::123456789012:assumed-role/Deployer/secrets-root-assume-${UNIX}-[0-9A-Za-z]{20}$`));
    expect(reply.body).toMatchObject({ lease_duration: 3600, renewable: false });
    expect(reply.body.lease_id).toMatch(/^cloud\/sts\/assume\//);
    expect(cloud.credential(data.access_key)).toMatchObject({ kind: "assumed_role", arn: data.arn });
  });

  it("takes the ttl from the request, else default_sts_ttl, else 3600 s, capped by max_sts_ttl", async () => {
    const { call, withRoles } = await startCloud(t);
    await withRoles();
    expect((await call("POST", "/cloud/sts/assume", { body: { ttl: "2h" } })).body.lease_duration).toBe(7200);
    expect((await call("GET", "/cloud/creds/assume?ttl=1200")).body.lease_duration).toBe(1200);
    await call("POST", "/cloud/roles/assume", { body: { default_sts_ttl: "45m" } });
    expect((await call("POST", "/cloud/sts/assume")).body.lease_duration).toBe(2700);
    await call("POST", "/cloud/roles/assume", { body: { max_sts_ttl: "1h" } });
    expect((await call("POST", "/cloud/sts/assume", { body: { ttl: "3h" } })).body.lease_duration).toBe(3600);
    expect((await call("POST", "/cloud/sts/federate", { body: { ttl: 5400 } })).body.lease_duration).toBe(5400);
  });

  it("passes on the provider's STS duration limits", async () => {
    const { call, cloud, withRoles } = await startCloud(t);
    await withRoles();
    const short = await call("POST", "/cloud/sts/assume", { body: { ttl: "60s" } });
    expect(short.status).toBe(400);
    expect(errorsOf(short)).toEqual(["Error assuming role: ValidationError: 1 validation error detected: Value '60' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900"]);
    const long = await call("POST", "/cloud/sts/federate", { body: { ttl: "48h" } });
    expect(errorsOf(long)).toEqual(["Error generating STS keys: ValidationError: 1 validation error detected: Value '172800' at 'durationSeconds' failed to satisfy constraint: Member must have value less than or equal to 129600"]);
    cloud.declareRole(DEPLOYER, { maxSessionDuration: "1h" });
    const overRole = await call("POST", "/cloud/sts/assume", { body: { ttl: "2h" } });
    expect(errorsOf(overRole)).toEqual(["Error assuming role: ValidationError: The requested DurationSeconds exceeds the MaxSessionDuration set for this role."]);
    cloud.declareRole(DEPLOYER, { assumable: false });
    const denied = await call("POST", "/cloud/sts/assume");
    expect(errorsOf(denied)[0]).toMatch(/^Error assuming role: AccessDenied: User: arn:aws:iam::123456789012:user\/secrets-root is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role\/Deployer$/);
  });

  it("chooses the role ARN: the only one by default, a listed one on request, nothing else", async () => {
    const { call, withRoles } = await startCloud(t);
    await withRoles();
    expect((await call("POST", "/cloud/sts/assume", { body: { role_arn: DEPLOYER } })).status).toBe(200);
    const other = await call("POST", "/cloud/sts/assume", { body: { role_arn: AUDITOR } });
    expect(other.status).toBe(400);
    expect(errorsOf(other)).toEqual([`role_arn "${AUDITOR}" not in allowed role arns for role "assume"`]);
    await call("POST", "/cloud/roles/assume", { body: { role_arns: [DEPLOYER, AUDITOR] } });
    const ambiguous = await call("POST", "/cloud/sts/assume");
    expect(errorsOf(ambiguous)).toEqual(["did not supply a role_arn parameter and unable to determine one"]);
    const chosen = await call("POST", "/cloud/sts/assume", { body: { role_arn: AUDITOR, role_session_name: "nightly" } });
    expect(chosen.body.data.arn).toBe("arn:aws:sts::210987654321:assumed-role/Auditor/nightly");
  });

  it("normalises role_session_name and cuts it to 64 characters", async () => {
    const { call, withRoles } = await startCloud(t);
    await withRoles();
    const name = `job ${"x".repeat(80)}`;
    const reply = await call("POST", "/cloud/sts/assume", { body: { role_session_name: name } });
    const session = (reply.body.data.arn as string).split("/").pop() as string;
    expect(session).toBe(`job_${"x".repeat(60)}`);
    expect(session).toHaveLength(64);
    const tooShort = await call("POST", "/cloud/sts/assume", { body: { role_session_name: "a" } });
    expect(errorsOf(tooShort)[0]).toMatch(/^Error assuming role: ValidationError: .*'roleSessionName'.*greater than or equal to 2$/);
  });

  it("issues federation tokens named by the STS template and cut to 32 characters", async () => {
    const { call, cloud, withRoles } = await startCloud(t);
    await withRoles();
    const reply = await call("GET", "/cloud/creds/federate");
    expect(reply.status).toBe(200);
    const { data } = reply.body;
    expect(data.access_key).toMatch(/^ASIA[A-Z2-7]{16}$/);
    const name = (data.arn as string).replace("arn:aws:sts::123456789012:federated-user/", "");
    expect(name).toMatch(new RegExp(`^secrets-${UNIX}-[0-9A-Za-z]{13}$`));
    expect(name).toHaveLength(32);
    expect(reply.body).toMatchObject({ lease_duration: 3600, renewable: false });
    expect(cloud.credential(data.access_key)).toMatchObject({ kind: "federation_token" });
  });

  it("keeps STS credentials valid at the provider after an early revocation, until they expire", async () => {
    const { call, cloud, doubles, withRoles } = await startCloud(t);
    await withRoles();
    const reply = await call("POST", "/cloud/sts/assume", { body: { ttl: "15m" } });
    const key = reply.body.data.access_key as string;
    await call("PUT", "/sys/leases/revoke", { body: { lease_id: reply.body.lease_id } });
    expect(cloud.credential(key)?.kind).toBe("assumed_role");
    doubles.advance("15m");
    expect(cloud.credential(key)).toBeUndefined();
  });

  it("gives legacy roles iam_user credentials only through creds and STS ones only through sts", async () => {
    const { call, cloud } = await startCloud(t);
    cloud.configureRoot();
    await call("POST", "/cloud/roles/inline", { body: { policy: '{"Statement":[]}' } });
    await call("POST", "/cloud/roles/by-role", { body: { arn: DEPLOYER } });
    await call("POST", "/cloud/roles/by-policy", { body: { arn: READ_ONLY } });
    expect((await call("GET", "/cloud/creds/inline")).body.data.access_key).toMatch(/^AKIA/);
    expect((await call("POST", "/cloud/sts/inline")).body.data.arn).toMatch(/:federated-user\//);
    const viaCreds = await call("GET", "/cloud/creds/by-role");
    expect(viaCreds.status).toBe(400);
    expect(errorsOf(viaCreds)).toEqual(["attempted to retrieve assumed_role credentials through the creds path; this is not allowed for legacy roles"]);
    expect((await call("POST", "/cloud/sts/by-role")).status).toBe(200);
    const viaSts = await call("POST", "/cloud/sts/by-policy");
    expect(errorsOf(viaSts)).toEqual(["attempted to retrieve iam_user credentials through the sts path; this is not allowed for legacy roles"]);
    await call("POST", "/cloud/roles/by-role", { body: { credential_type: "assumed_role", role_arns: DEPLOYER, arn: "" } });
    expect((await call("GET", "/cloud/creds/by-role")).status).toBe(200);
  });

  it("keeps nothing of an IAM user whose creation fails half way", async () => {
    const { call, cloud } = await startCloud(t);
    cloud.configureRoot();
    await call("POST", "/cloud/roles/bad", { body: { credential_type: "iam_user", policy_arns: [READ_ONLY, "not-an-arn"] } });
    const reply = await call("GET", "/cloud/creds/bad");
    expect(reply.status).toBe(400);
    expect(errorsOf(reply)).toEqual(["Error attaching user policy: InvalidInput: ARN not-an-arn is not valid."]);
    expect(cloud.iamUserNames()).toEqual([cloud.rootUserName()]);
  });

  it("refuses credentials of a missing role or a role holding invalid data", async () => {
    const { call, cloud } = await startCloud(t);
    cloud.configureRoot();
    const missing = await call("GET", "/cloud/creds/ghost");
    expect(missing.status).toBe(400);
    expect(errorsOf(missing)).toEqual(['Role "ghost" not found']);
    cloud.seedLegacyRole("broken", "garbage");
    expect(errorsOf(await call("GET", "/cloud/creds/broken"))).toEqual(['unknown credential_type: ""']);
  });

  it("answers 500 when the username template makes names over 64 (IAM) or 32 (STS) characters, or does not parse", async () => {
    const { call, cloud, withRoles } = await startCloud(t);
    await withRoles();
    cloud.configureRoot({ usernameTemplate: '{{ if eq .Type "STS" }}{{ random 33 }}{{ else }}{{ random 65 }}{{ end }}' });
    const iam = await call("GET", "/cloud/creds/deploy");
    expect(iam.status).toBe(500);
    expect(errorsOf(iam)).toEqual(["the username generated by the template exceeds the IAM username length limits of 64 chars"]);
    const session = await call("POST", "/cloud/sts/assume");
    expect(errorsOf(session)).toEqual(["the username generated by the template exceeds the IAM username length limits of 64 chars"]);
    const sts = await call("POST", "/cloud/sts/federate");
    expect(sts.status).toBe(500);
    expect(errorsOf(sts)).toEqual(["the username generated by the template exceeds the STS username length limits of 32 chars"]);
    cloud.configureRoot({ usernameTemplate: "{{ if }}" });
    const broken = await call("GET", "/cloud/creds/deploy");
    expect(broken.status).toBe(500);
    expect(errorsOf(broken)).toEqual(["unable to initialize username template: unable to parse template: template: template:1: missing value for if"]);
    expect(cloud.iamUserNames()).toEqual([cloud.rootUserName()]);
  });

  it("names users with a custom template using the template functions", async () => {
    const { call, cloud, withRoles } = await startCloud(t);
    await withRoles();
    cloud.configureRoot({ usernameTemplate: '{{ printf "app-%s-%s" (.PolicyName | uppercase) (unix_time) | truncate 30 }}-{{ random 4 | lowercase }}' });
    const reply = await call("GET", "/cloud/creds/deploy");
    expect(reply.body.data.arn).toMatch(new RegExp(`^arn:aws:iam::123456789012:user/app-DEPLOY-${UNIX}-[0-9a-z]{4}$`));
  });

  it("refuses a generated name the provider would not accept", async () => {
    const { call, cloud, withRoles } = await startCloud(t);
    await withRoles();
    cloud.configureRoot({ usernameTemplate: "user name with spaces" });
    const reply = await call("GET", "/cloud/creds/deploy");
    expect(reply.status).toBe(400);
    expect(errorsOf(reply)[0]).toMatch(/^Error creating IAM user: ValidationError: /);
  });

  it("reports a missing credential source as the provider would", async () => {
    const { call } = await startCloud(t);
    await call("POST", "/cloud/roles/deploy", { body: { credential_type: "iam_user", policy_arns: READ_ONLY } });
    const reply = await call("GET", "/cloud/creds/deploy");
    expect(reply.status).toBe(400);
    expect(errorsOf(reply)).toEqual(["Error creating IAM user: NoCredentialProviders: no valid providers in chain. Deprecated.\n\tFor verbose messaging see aws.Config.CredentialsChainVerboseErrors"]);
  });

  it("refuses an unparseable ttl with a field validation error", async () => {
    const { call, withRoles } = await startCloud(t);
    await withRoles();
    const reply = await call("POST", "/cloud/sts/assume", { body: { ttl: "1x" } });
    expect(reply.status).toBe(400);
    expect(errorsOf(reply)).toEqual(['Field validation failed: error converting input 1x for field "ttl": time: unknown unit "x" in duration "1x"']);
  });

  it("combines group policies into STS credentials' policy", async () => {
    const { call, cloud, withRoles } = await startCloud(t);
    await withRoles();
    cloud.createGroup("auditors", { policyDocuments: ['{"Statement":[{"Effect":"Allow","Action":"logs:Get*","Resource":"*"}]}'], policyArns: [READ_ONLY] });
    await call("POST", "/cloud/roles/federate", { body: { iam_groups: "auditors,unknown-group" } });
    const reply = await call("POST", "/cloud/sts/federate");
    expect(reply.status).toBe(200);
    expect(cloud.credential(reply.body.data.access_key)).toMatchObject({
      policyDocument: '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"logs:Get*","Resource":"*"}]}',
      policyArns: [READ_ONLY],
    });
    const plain = await call("POST", "/cloud/sts/assume");
    expect(cloud.credential(plain.body.data.access_key)).toMatchObject({ policyDocument: "", policyArns: [] });
  });

  it("needs read for GET and update for POST on the credential paths", async () => {
    const { call, secrets, withRoles } = await startCloud(t);
    await withRoles();
    secrets.createPolicy("reader", { "cloud/creds/deploy": ["read"] });
    const reader = secrets.createToken({ policies: ["reader"], displayName: "ci-bot" }).token;
    const reply = await call("GET", "/cloud/creds/deploy", { token: reader });
    expect(reply.status).toBe(200);
    expect(reply.body.data.arn).toMatch(new RegExp(`:user/secrets-ci-bot-deploy-${UNIX}-`));
    expect((await call("POST", "/cloud/creds/deploy", { token: reader })).status).toBe(403);
    expect((await call("POST", "/cloud/sts/assume", { token: reader })).status).toBe(403);
  });

  it("answers byte-identical credentials for the same seed and the same calls", async () => {
    const run = async () => {
      const { call, doubles, withRoles } = await startCloud(t, 99);
      await withRoles();
      const texts = [(await call("GET", "/cloud/creds/deploy")).text, (await call("POST", "/cloud/sts/assume")).text, (await call("POST", "/cloud/sts/federate")).text];
      await doubles.close();
      return texts.join("\n");
    };
    expect(await run()).toBe(await run());
  });
});
