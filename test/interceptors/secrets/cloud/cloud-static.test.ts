import { expect, it } from "vitest";
import { describeEachTransport } from "../../../support/transports.js";
import { errorsOf, startCloud } from "./support.js";

describeEachTransport("cloud engine: static roles", (t) => {
  const start = async () => {
    const started = await startCloud(t);
    started.cloud.configureRoot();
    started.cloud.createIamUser("app-user");
    return started;
  };

  it("creates a static role with a new access key of the existing user and reads it back", async () => {
    const { call, cloud } = await start();
    const write = await call("POST", "/cloud/static-roles/app", { body: { username: "app-user", rotation_period: "24h" } });
    expect(write.status).toBe(200);
    expect(write.body.data).toEqual({ name: "app", username: "app-user", rotation_period: "24h0m0s" });
    expect((await call("GET", "/cloud/static-roles/app")).body.data).toEqual({ name: "app", username: "app-user", rotation_period: "24h0m0s" });
    const creds = await call("GET", "/cloud/static-creds/app");
    expect(creds.status).toBe(200);
    expect(Object.keys(creds.body.data).sort()).toEqual(["access_key", "secret_key"]);
    expect(creds.body.data.access_key).toMatch(/^AKIA[A-Z2-7]{16}$/);
    expect(creds.body.data.secret_key).toHaveLength(40);
    expect(cloud.iamUser("app-user")?.accessKeyIds).toEqual([creds.body.data.access_key]);
  });

  it("accepts rotation_period as an integer, an integer string, a duration string or days", async () => {
    const { call, cloud } = await start();
    const cases = [["a", 86_400, "24h0m0s"], ["b", "3600", "1h0m0s"], ["c", "90m", "1h30m0s"], ["d", "1d", "24h0m0s"]] as const;
    for (const [name, period, expected] of cases) {
      cloud.createIamUser(`user-${name}`);
      const reply = await call("POST", `/cloud/static-roles/${name}`, { body: { username: `user-${name}`, rotation_period: period } });
      expect(reply.status, String(period)).toBe(200);
      expect(reply.body.data.rotation_period, String(period)).toBe(expected);
    }
  });

  it("rotates the static credential every rotation_period on the simulator clock, replacing the oldest key", async () => {
    const { call, cloud, doubles } = await start();
    await call("POST", "/cloud/static-roles/app", { body: { username: "app-user", rotation_period: "1h" } });
    const first = (await call("GET", "/cloud/static-creds/app")).body.data;
    doubles.advance("59m");
    expect((await call("GET", "/cloud/static-creds/app")).body.data).toEqual(first);
    doubles.advance("1m");
    const second = (await call("GET", "/cloud/static-creds/app")).body.data;
    expect(second.access_key).not.toBe(first.access_key);
    expect(cloud.iamUser("app-user")?.accessKeyIds).toEqual([first.access_key, second.access_key]);
    doubles.advance("1h");
    const third = (await call("GET", "/cloud/static-creds/app")).body.data;
    expect(cloud.iamUser("app-user")?.accessKeyIds).toEqual([second.access_key, third.access_key]);
    doubles.advance("3h");
    expect(cloud.iamUser("app-user")?.accessKeyIds).toHaveLength(2);
    expect(cloud.staticRole("app")?.rotatesAt).toBe(Date.UTC(2024, 0, 1, 6));
  });

  it("deletes the oldest key on creation when the user already has two", async () => {
    const { call, cloud } = await start();
    const { keys } = cloud.createIamUser("busy", { accessKeys: 2 });
    await call("POST", "/cloud/static-roles/busy", { body: { username: "busy", rotation_period: "1h" } });
    const created = (await call("GET", "/cloud/static-creds/busy")).body.data.access_key;
    expect(cloud.iamUser("busy")?.accessKeyIds).toEqual([keys[1]?.accessKeyId, created]);
  });

  it("refuses static roles with the real service's statuses: 400 for missing fields, 500 for bad values", async () => {
    const { call } = await start();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ rotation_period: "1h" }, 400, 'missing "username" parameter'],
      [{ username: "app-user" }, 400, 'missing "rotation_period" parameter'],
      [{ username: "app-user", rotation_period: "59s" }, 500, "role rotation period out of range: must be greater than 60.00 seconds"],
      [{ username: "nobody", rotation_period: "1h" }, 500, 'unable to validate username "nobody": NoSuchEntity: The user with name nobody cannot be found.'],
      [{ username: "app-user", rotation_period: "often" }, 400, 'Field validation failed: error converting input often for field "rotation_period": time: invalid duration "often"'],
    ];
    for (const [body, status, message] of cases) {
      const reply = await call("POST", "/cloud/static-roles/app", { body });
      expect(reply.status, JSON.stringify(body)).toBe(status);
      expect(errorsOf(reply)).toEqual([message]);
    }
    expect((await call("GET", "/cloud/static-roles/app")).status).toBe(404);
  });

  it("accepts exactly one minute as the shortest rotation period", async () => {
    const { call, doubles } = await start();
    expect((await call("POST", "/cloud/static-roles/app", { body: { username: "app-user", rotation_period: 60 } })).status).toBe(200);
    const first = (await call("GET", "/cloud/static-creds/app")).body.data.access_key;
    doubles.advance("1m");
    expect((await call("GET", "/cloud/static-creds/app")).body.data.access_key).not.toBe(first);
  });

  it("reschedules the next rotation to now plus the new period when the period is updated", async () => {
    const { call, cloud, doubles } = await start();
    await call("POST", "/cloud/static-roles/app", { body: { username: "app-user", rotation_period: "24h" } });
    const first = (await call("GET", "/cloud/static-creds/app")).body.data.access_key;
    doubles.advance("1h");
    const update = await call("POST", "/cloud/static-roles/app", { body: { rotation_period: "2h" } });
    expect(update.body.data).toEqual({ name: "app", username: "app-user", rotation_period: "2h0m0s" });
    expect(cloud.staticRole("app")?.rotatesAt).toBe(Date.UTC(2024, 0, 1, 3));
    expect((await call("GET", "/cloud/static-creds/app")).body.data.access_key).toBe(first);
    doubles.advance("2h");
    expect((await call("GET", "/cloud/static-creds/app")).body.data.access_key).not.toBe(first);
  });

  it("refuses to switch a static role to another IAM user", async () => {
    const { call, cloud } = await start();
    cloud.createIamUser("other-user");
    await call("POST", "/cloud/static-roles/app", { body: { username: "app-user", rotation_period: "1h" } });
    const reply = await call("POST", "/cloud/static-roles/app", { body: { username: "other-user" } });
    expect(reply.status).toBe(500);
    expect(errorsOf(reply)[0]).toMatch(/^AWS GetUser returned a user, but the ID did not match: "AIDA[A-Z2-7]{17}" was requested, but "AIDA[A-Z2-7]{17}" was returned$/);
  });

  it("deletes a static role and its key but not the user; deleting a missing one succeeds", async () => {
    const { call, cloud } = await start();
    await call("POST", "/cloud/static-roles/app", { body: { username: "app-user", rotation_period: "1h" } });
    expect((await call("DELETE", "/cloud/static-roles/app")).status).toBe(204);
    expect((await call("GET", "/cloud/static-roles/app")).status).toBe(404);
    expect((await call("GET", "/cloud/static-creds/app")).status).toBe(404);
    expect(cloud.iamUser("app-user")?.accessKeyIds).toEqual([]);
    expect((await call("DELETE", "/cloud/static-roles/app")).status).toBe(204);
  });

  it("keeps serving the old credential and retries every 10 s when a rotation fails", async () => {
    const { call, cloud, doubles } = await start();
    await call("POST", "/cloud/static-roles/app", { body: { username: "app-user", rotation_period: "1h" } });
    const first = (await call("GET", "/cloud/static-creds/app")).body.data.access_key;
    cloud.deleteIamUser("app-user");
    doubles.advance("1h");
    expect((await call("GET", "/cloud/static-creds/app")).body.data.access_key).toBe(first);
    expect(cloud.staticRole("app")?.lastRotationError).toBe('iam user didn\'t exist, or username/userid didn\'t match: unable to validate username "app-user": NoSuchEntity: The user with name app-user cannot be found.');
    expect(cloud.staticRole("app")?.rotatesAt).toBe(Date.UTC(2024, 0, 1, 1));
    doubles.advance("30s");
    expect(cloud.staticRole("app")?.lastRotationError).not.toBe("");
  });

  it("answers 404 for a read of a missing static role or its credentials", async () => {
    const { call } = await start();
    expect(await call("GET", "/cloud/static-roles/ghost")).toMatchObject({ status: 404, body: { errors: [] } });
    expect(await call("GET", "/cloud/static-creds/ghost")).toMatchObject({ status: 404, body: { errors: [] } });
  });
});
