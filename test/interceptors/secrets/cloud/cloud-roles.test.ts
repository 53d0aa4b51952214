import { expect, it } from "vitest";
import { describeEachTransport } from "../../../support/transports.js";
import { errorsOf, startCloud } from "./support.js";

const READ_ONLY = "arn:aws:iam::aws:policy/ReadOnlyAccess";
const DEPLOYER = "arn:aws:iam::123456789012:role/Deployer";
const DOCUMENT = '{ "Version": "2012-10-17",\n  "Statement": [ { "Effect": "Allow", "Action": "s3:*", "Resource": "*" } ] }';
const COMPACT = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}';

function validation(...messages: string[]): string {
  const head = messages.length === 1 ? "1 error occurred:" : `${messages.length} errors occurred:`;
  const text = `${head}\n${messages.map((m) => `\t* ${m}`).join("\n")}\n\n`;
  return `error(s) validating supplied role data: ${JSON.stringify(text)}`;
}

describeEachTransport("cloud engine: roles", (t) => {
  it("creates an iam_user role and reads every field back", async () => {
    const { call } = await startCloud(t);
    const write = await call("POST", "/cloud/roles/deploy", {
      body: {
        credential_type: "iam_user",
        policy_arns: `${READ_ONLY}, arn:aws:iam::123456789012:policy/Extra`,
        policy_document: DOCUMENT,
        iam_groups: "developers,auditors",
        iam_tags: ["team=infra", "env=test"],
        user_path: "/ci/",
        permissions_boundary_arn: "arn:aws:iam::123456789012:policy/Boundary",
      },
    });
    expect(write.status).toBe(204);
    const read = await call("GET", "/cloud/roles/deploy");
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      credential_type: "iam_user",
      credential_types: ["iam_user"],
      policy_arns: [READ_ONLY, "arn:aws:iam::123456789012:policy/Extra"],
      role_arns: [],
      policy_document: COMPACT,
      iam_groups: ["developers", "auditors"],
      iam_tags: { team: "infra", env: "test" },
      default_sts_ttl: 0,
      max_sts_ttl: 0,
      user_path: "/ci/",
      permissions_boundary_arn: "arn:aws:iam::123456789012:policy/Boundary",
    });
  });

  it("creates assumed_role and federation_token roles with STS TTLs as strings or seconds", async () => {
    const { call } = await startCloud(t);
    expect((await call("POST", "/cloud/roles/assume", { body: { credential_type: "assumed_role", role_arns: [DEPLOYER], default_sts_ttl: "30m", max_sts_ttl: 7200, iam_tags: { a: "b" } } })).status).toBe(204);
    expect((await call("POST", "/cloud/roles/federate", { body: { credential_type: "federation_token", policy_arns: [READ_ONLY], default_sts_ttl: "900", max_sts_ttl: "2h" } })).status).toBe(204);
    expect((await call("GET", "/cloud/roles/assume")).body.data).toMatchObject({ credential_types: ["assumed_role"], role_arns: [DEPLOYER], default_sts_ttl: 1800, max_sts_ttl: 7200, iam_tags: { a: "b" } });
    expect((await call("GET", "/cloud/roles/federate")).body.data).toMatchObject({ credential_types: ["federation_token"], policy_arns: [READ_ONLY], default_sts_ttl: 900, max_sts_ttl: 7200 });
  });

  it("refuses every invalid role with the real service's messages and stores nothing", async () => {
    const { call } = await startCloud(t);
    const cases: [Record<string, unknown>, string][] = [
      [{ policy_arns: READ_ONLY }, validation("did not supply credential_type")],
      [{ credential_type: "session", policy_arns: READ_ONLY }, validation("unrecognized credential type: session")],
      [{ credential_type: "iam_user", policy_arns: READ_ONLY, role_arns: DEPLOYER }, validation("cannot supply role_arns when credential_type isn't assumed_role")],
      [{ credential_type: "federation_token", policy_arns: READ_ONLY, role_arns: DEPLOYER }, validation("cannot supply role_arns when credential_type isn't assumed_role")],
      [{ credential_type: "iam_user" }, validation("must specify at least one of policy_arns or policy_document with iam_user credential_type")],
      [{ credential_type: "federation_token", iam_groups: "g" }, validation("must specify at least one of policy_arns or policy_document with federation_token credential_type")],
      [{ credential_type: "assumed_role" }, validation("must specify role_arns with assumed_role credential_type")],
      [{ credential_type: "iam_user", policy_arns: READ_ONLY, default_sts_ttl: "1h" }, validation("default_sts_ttl parameter only valid for assumed_role and federation_token credential types")],
      [{ credential_type: "iam_user", policy_arns: READ_ONLY, max_sts_ttl: 60 }, validation("max_sts_ttl parameter only valid for assumed_role and federation_token credential types")],
      [{ credential_type: "assumed_role", role_arns: DEPLOYER, default_sts_ttl: "2h", max_sts_ttl: "1h" }, validation('"default_sts_ttl" value must be less than or equal to "max_sts_ttl" value')],
      [{ credential_type: "assumed_role", role_arns: DEPLOYER, user_path: "/x/" }, validation("user_path parameter only valid for iam_user credential type")],
      [{ credential_type: "iam_user", policy_arns: READ_ONLY, user_path: "no-slashes" }, validation('the specified value for user_path is invalid. It must match "^\\\\/([\\\\x21-\\\\x7F]{0,510}\\\\/)?$" regexp')],
      [{ credential_type: "federation_token", policy_arns: READ_ONLY, permissions_boundary_arn: "arn:aws:iam::123456789012:policy/B" }, validation("cannot supply permissions_boundary_arn when credential_type isn't iam_user")],
      [{ credential_type: "iam_user", policy_arns: READ_ONLY, permissions_boundary_arn: "arn:aws:s3:::bucket/x" }, validation("invalid permissions_boundary_arn parameter: expected a service of iam but got s3")],
      [{ credential_type: "iam_user", policy_arns: READ_ONLY, permissions_boundary_arn: "boundary" }, validation("invalid permissions_boundary_arn parameter: arn: invalid prefix")],
      [{ credential_type: "iam_user", policy_document: "{not json" }, 'cannot parse policy document: "{not json"'],
      [{ credential_type: "assumed_role", role_arns: DEPLOYER, default_sts_ttl: "soon" }, 'Field validation failed: error converting input soon for field "default_sts_ttl": time: invalid duration "soon"'],
      [{ credential_type: "iam_user", policy_arns: READ_ONLY, iam_tags: ["novalue"] }, 'Field validation failed: error converting input [novalue] for field "iam_tags": invalid key pair "novalue"'],
      [{ credential_type: { nested: true } }, "Field validation failed: error converting input map[nested:true] for field \"credential_type\": '' expected type 'string', got unconvertible type 'map[string]interface {}', value: 'map[nested:true]'"],
    ];
    for (const [body, message] of cases) {
      const reply = await call("POST", "/cloud/roles/bad", { body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(errorsOf(reply), JSON.stringify(body)).toEqual([message]);
    }
    expect((await call("GET", "/cloud/roles/bad")).status).toBe(404);
  });

  it("refuses a deeply nested value with a field error, not a crash", async () => {
    const { call } = await startCloud(t);
    const deep = `${"[".repeat(3000)}1${"]".repeat(3000)}`;
    const reply = await call("POST", "/cloud/roles/deep", { body: `{"credential_type":${deep}}` });
    expect(reply.status).toBe(400);
    expect(errorsOf(reply)[0]).toMatch(/^Field validation failed: error converting input \[\[\[/);
  });

  it("lists several validation errors in one message", async () => {
    const { call } = await startCloud(t);
    const reply = await call("POST", "/cloud/roles/bad", { body: { credential_type: "iam_user", policy_arns: READ_ONLY, role_arns: DEPLOYER, max_sts_ttl: "1h" } });
    expect(errorsOf(reply)).toEqual([
      validation("max_sts_ttl parameter only valid for assumed_role and federation_token credential types", "cannot supply role_arns when credential_type isn't assumed_role"),
    ]);
  });

  it("updates only the supplied fields and keeps the role when an update is refused", async () => {
    const { call } = await startCloud(t);
    await call("POST", "/cloud/roles/assume", { body: { credential_type: "assumed_role", role_arns: DEPLOYER, policy_document: DOCUMENT } });
    expect((await call("POST", "/cloud/roles/assume", { body: { max_sts_ttl: "1h" } })).status).toBe(204);
    expect((await call("GET", "/cloud/roles/assume")).body.data).toMatchObject({ credential_types: ["assumed_role"], role_arns: [DEPLOYER], policy_document: COMPACT, max_sts_ttl: 3600 });
    const refused = await call("POST", "/cloud/roles/assume", { body: { credential_type: "iam_user" } });
    expect(refused.status).toBe(400);
    expect((await call("GET", "/cloud/roles/assume")).body.data.credential_types).toEqual(["assumed_role"]);
  });

  it("accepts the legacy policy and arn forms with a warning, as roles of the matching type", async () => {
    const { call } = await startCloud(t);
    const inline = await call("POST", "/cloud/roles/legacy-inline", { body: { policy: DOCUMENT } });
    expect(inline.status).toBe(200);
    expect(inline.body.warnings).toEqual(["Detected use of legacy role or policy parameter. Please upgrade to use the new parameters."]);
    expect((await call("GET", "/cloud/roles/legacy-inline")).body.data).toMatchObject({ credential_type: "iam_user,federation_token", credential_types: ["iam_user", "federation_token"], policy_document: COMPACT });
    await call("POST", "/cloud/roles/legacy-role", { body: { arn: DEPLOYER } });
    expect((await call("GET", "/cloud/roles/legacy-role")).body.data).toMatchObject({ credential_types: ["assumed_role"], role_arns: [DEPLOYER] });
    await call("POST", "/cloud/roles/legacy-policy", { body: { arn: READ_ONLY } });
    expect((await call("GET", "/cloud/roles/legacy-policy")).body.data).toMatchObject({ credential_types: ["iam_user"], policy_arns: [READ_ONLY] });
  });

  it("refuses legacy parameters mixed with the others, both at once, or unparseable", async () => {
    const { call } = await startCloud(t);
    const mixed: [Record<string, unknown>, string][] = [
      [{ policy: DOCUMENT, credential_type: "iam_user" }, "an explicit credential_type"],
      [{ arn: DEPLOYER, role_arns: DEPLOYER }, "role_arns"],
      [{ arn: READ_ONLY, policy_arns: READ_ONLY }, "policy_arns"],
      [{ policy: DOCUMENT, policy_document: DOCUMENT }, "policy_document"],
      [{ arn: DEPLOYER, default_sts_ttl: 900 }, "default_sts_ttl"],
      [{ arn: DEPLOYER, max_sts_ttl: 900 }, "max_sts_ttl"],
      [{ policy: DOCUMENT, user_path: "/" }, "user_path"],
      [{ policy: DOCUMENT, permissions_boundary_arn: READ_ONLY }, "permissions_boundary_arn"],
    ];
    for (const [body, parameter] of mixed) {
      const reply = await call("POST", "/cloud/roles/mixed", { body });
      expect(reply.status).toBe(400);
      expect(errorsOf(reply)).toEqual([`cannot supply deprecated role or policy parameters with ${parameter}`]);
    }
    const both = await call("POST", "/cloud/roles/mixed", { body: { policy: DOCUMENT, arn: DEPLOYER } });
    expect(both.status).toBe(500);
    expect(errorsOf(both)).toEqual(["only one of policy or arn should be provided"]);
    const garbage = await call("POST", "/cloud/roles/mixed", { body: { arn: "arn:aws:s3:::bucket" } });
    expect(garbage.status).toBe(400);
    expect(errorsOf(garbage)).toEqual(['unable to parse supplied data: "arn:aws:s3:::bucket"']);
    expect((await call("GET", "/cloud/roles/mixed")).status).toBe(404);
  });

  it("shows data an earlier version stored as invalid_data, and clears it on the next write", async () => {
    const { call, cloud } = await startCloud(t);
    cloud.seedLegacyRole("old", "not a policy");
    cloud.seedLegacyRole("older", DOCUMENT);
    expect((await call("GET", "/cloud/roles/old")).body.data).toMatchObject({ invalid_data: "not a policy", credential_types: [] });
    expect((await call("GET", "/cloud/roles/older")).body.data).toMatchObject({ credential_types: ["iam_user", "federation_token"], policy_document: COMPACT });
    const write = await call("POST", "/cloud/roles/old", { body: { credential_type: "iam_user", policy_arns: READ_ONLY } });
    expect(write.status).toBe(200);
    expect(write.body.warnings).toEqual(['Invalid data of "not a policy" cleared out of role']);
    const read = (await call("GET", "/cloud/roles/old")).body.data;
    expect(read.invalid_data).toBeUndefined();
    expect(read.credential_types).toEqual(["iam_user"]);
  });

  it("lists role names with LIST and GET ?list=true, and answers an empty list with 404", async () => {
    const { call, cloud } = await startCloud(t);
    expect((await call("LIST", "/cloud/roles")).status).toBe(404);
    await call("POST", "/cloud/roles/zeta", { body: { credential_type: "iam_user", policy_arns: READ_ONLY } });
    await call("POST", "/cloud/roles/alpha", { body: { credential_type: "iam_user", policy_arns: READ_ONLY } });
    cloud.seedLegacyRole("legacy", DOCUMENT);
    const listed = await call("LIST", "/cloud/roles");
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual({ keys: ["alpha", "zeta", "legacy"] });
    expect((await call("GET", "/cloud/roles?list=true")).body.data.keys).toEqual(["alpha", "zeta", "legacy"]);
    expect((await call("GET", "/cloud/roles/?list=1")).body.data.keys).toEqual(["alpha", "zeta", "legacy"]);
  });

  it("answers 404 for a read or delete of a missing role, and deletes an existing one", async () => {
    const { call, cloud } = await startCloud(t);
    const read = await call("GET", "/cloud/roles/ghost");
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ errors: [] });
    const remove = await call("DELETE", "/cloud/roles/ghost");
    expect(remove.status).toBe(404);
    expect(remove.body).toEqual({ errors: [] });
    await call("POST", "/cloud/roles/deploy", { body: { credential_type: "iam_user", policy_arns: READ_ONLY } });
    expect((await call("DELETE", "/cloud/roles/deploy")).status).toBe(204);
    expect((await call("GET", "/cloud/roles/deploy")).status).toBe(404);
    cloud.seedLegacyRole("legacy", DOCUMENT);
    expect((await call("DELETE", "/cloud/roles/legacy")).status).toBe(204);
    expect((await call("LIST", "/cloud/roles")).status).toBe(404);
  });

  it("treats a role name outside the name pattern as an unsupported path", async () => {
    const { call } = await startCloud(t);
    const reply = await call("POST", "/cloud/roles/-bad-", { body: { credential_type: "iam_user", policy_arns: READ_ONLY } });
    expect(reply.status).toBe(404);
    expect(errorsOf(reply)).toEqual(["1 error occurred:\n\t* unsupported path\n\n"]);
    expect((await call("POST", "/cloud/roles/a@b.c", { body: { credential_type: "iam_user", policy_arns: READ_ONLY } })).status).toBe(204);
  });

  it("needs update (not create) to write a role, and list to list", async () => {
    const { call, secrets } = await startCloud(t);
    secrets.createPolicy("create-only", { "cloud/roles/*": ["create"] });
    secrets.createPolicy("writer", { "cloud/roles/*": ["update", "read"], "cloud/roles/": ["list"] });
    const createOnly = secrets.createToken({ policies: ["create-only"] }).token;
    const writer = secrets.createToken({ policies: ["writer"] }).token;
    const body = { credential_type: "iam_user", policy_arns: READ_ONLY };
    expect((await call("POST", "/cloud/roles/a", { body, token: createOnly })).status).toBe(403);
    expect((await call("POST", "/cloud/roles/a", { body, token: writer })).status).toBe(204);
    expect((await call("LIST", "/cloud/roles", { token: writer })).body.data.keys).toEqual(["a"]);
    expect((await call("DELETE", "/cloud/roles/a", { token: writer })).status).toBe(403);
  });
});
