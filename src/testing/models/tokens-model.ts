/**
 * Model commands of the access-control service's tokens (`fc.commands`): create (a body from
 * {@link tokenBody}, with or without `ExpirationTTL`), clone, update, delete, log in and out
 * through an auth method, use a token, advance the clock, and your own client's step. Every
 * command goes through HTTP; after every command the model checks that every token it knows
 * authorises (`GET /acl/token/self`) exactly while it lives: an expired, deleted or logged-out
 * token never authorises.
 *
 * The model is a simplified picture: per token its secret, its expiry (ms) and whether it is gone.
 * Spec: access-control.md "Token endpoints", "Login", "Token expiry".
 */
import fc from "fast-check";
import { parseGoDuration } from "../../interceptors/access-control/go-json.js";
import { tokenBody, type TokenBody } from "../access-control-bodies.js";
import { commandFault, describeFault, expectModel, jsonOf, resolveTarget, sendFaulted, storyDuration, type ClientHook, type CommandFault, type ModelTarget, type ResolvedTarget } from "./common.js";

/** One token as the model pictures it. */
export interface ModelToken {
  readonly accessorId: string;
  readonly secretId: string;
  /** ms since the epoch, or `null` (never expires). */
  readonly expiresAt: number | null;
  /** Made by `POST /acl/login` (cannot be cloned; can log out). */
  readonly login: boolean;
  gone: boolean;
}

/** The model: the tokens made so far, oldest first, and the clock. */
export interface TokensModel {
  readonly tokens: ModelToken[];
  now: number;
}

/** The real side the commands act on (also what your {@link ClientHook} receives). */
export interface TokensWorld extends ResolvedTarget {
  /** The bootstrap token's SecretID (`global-management`). */
  readonly root: string;
  /** The auth method the login commands use, and a bearer token it accepts. */
  readonly authMethod: string;
  readonly bearerToken: string;
  /** How long a login token lives, in ms. */
  readonly loginTtlMs: number;
  /** Moves the doubles' clock (ms). */
  advance(ms: number): void;
  /** A request to the access-control API (path relative to `urls.accessControl.api`) as `token` (default the root). */
  request(method: string, path: string, body?: unknown, token?: string | null): Promise<Response>;
}

/** One command of the tokens model: a fast-check `AsyncCommand` checked against the model and run against the doubles (see tokensCommands). */
export type TokensCommand = fc.AsyncCommand<TokensModel, TokensWorld>;

const lives = (model: Readonly<TokensModel>, token: ModelToken): boolean => !token.gone && (token.expiresAt === null || model.now < token.expiresAt);

/** The invariant after every command: each known token authorises exactly while it lives. */
async function checkInvariants(model: TokensModel, world: TokensWorld): Promise<void> {
  for (const token of model.tokens) {
    const response = await world.request("GET", "/acl/token/self", undefined, token.secretId);
    if (lives(model, token)) {
      expectModel(response.status === 200, `live token ${token.accessorId} (expires ${String(token.expiresAt)}, now ${model.now}) answered ${response.status}`);
    } else {
      const why = token.gone ? "gone" : "expired";
      expectModel(response.status === 403, `an ${why} token never authorises: ${token.accessorId} answered ${response.status}`);
    }
  }
}

interface TokenAnswer {
  readonly AccessorID: string;
  readonly SecretID: string;
  readonly ExpirationTime?: string;
}

const pick = (model: Readonly<TokensModel>, index: number): ModelToken | undefined => model.tokens[index % Math.max(1, model.tokens.length)];

class CreateToken implements TokensCommand {
  constructor(readonly body: TokenBody) {}
  check = (): boolean => true;
  async run(model: TokensModel, world: TokensWorld): Promise<void> {
    const response = await world.request("PUT", "/acl/token", this.body);
    expectModel(response.status === 200, `create token answered ${response.status}: ${await response.clone().text()}`);
    const answer = await jsonOf<TokenAnswer>(response, "create token");
    const ttl = typeof this.body.ExpirationTTL === "string" ? parseGoDuration(this.body.ExpirationTTL) : undefined;
    const expiresAt = ttl === undefined ? null : model.now + ttl;
    expectModel((answer.ExpirationTime === undefined ? null : Date.parse(answer.ExpirationTime)) === expiresAt, `token expiry ${String(answer.ExpirationTime)}, the model expected ${String(expiresAt)}`);
    model.tokens.push({ accessorId: answer.AccessorID, secretId: answer.SecretID, expiresAt, login: false, gone: false });
    await checkInvariants(model, world);
  }
  toString = (): string => `create token${typeof this.body.ExpirationTTL === "string" ? ` (ttl ${this.body.ExpirationTTL})` : ""}`;
}

/** The status of each of the service's own fault answers (the model's own list). */
const FAULT_STATUS: Readonly<Record<string, number>> = { "no-cluster-leader": 500, "acl-not-found": 403, "rate-limited": 429 };

async function accessorIds(world: TokensWorld): Promise<string[]> {
  const response = await world.request("GET", "/acl/tokens");
  expectModel(response.status === 200, `list tokens answered ${response.status}`);
  return (await jsonOf<{ AccessorID: string }[]>(response, "list tokens")).map((t) => t.AccessorID);
}

/**
 * Create token with a fault on that request: not committed, no token appears; committed, exactly
 * one new token exists (the client saw a failure), the model adopts it (read back with the root
 * token) and, from then on, checks it authorises exactly while it lives.
 */
class FaultedCreateToken implements TokensCommand {
  constructor(
    readonly body: TokenBody,
    readonly fault: CommandFault,
  ) {}
  check = (): boolean => true;
  async run(model: TokensModel, world: TokensWorld): Promise<void> {
    const before = new Set(await accessorIds(world));
    await sendFaulted(world, { service: "accessControl", operation: "create token" }, this.fault, FAULT_STATUS[this.fault.answer ?? ""], () => world.request("PUT", "/acl/token", this.body));
    const created = (await accessorIds(world)).filter((id) => !before.has(id));
    const expected = this.fault.commit ? 1 : 0;
    expectModel(created.length === expected, `a create token faulted with ${describeFault(this.fault)} left ${created.length} new token(s), the model expected ${expected}`);
    for (const id of created) {
      const read = await world.request("GET", `/acl/token/${id}`);
      expectModel(read.status === 200, `reading the committed token ${id} answered ${read.status}`);
      const answer = await jsonOf<TokenAnswer>(read, "read token");
      const ttl = typeof this.body.ExpirationTTL === "string" ? parseGoDuration(this.body.ExpirationTTL) : undefined;
      const expiresAt = ttl === undefined ? null : model.now + ttl;
      expectModel((answer.ExpirationTime === undefined ? null : Date.parse(answer.ExpirationTime)) === expiresAt, `committed token expiry ${String(answer.ExpirationTime)}, the model expected ${String(expiresAt)}`);
      model.tokens.push({ accessorId: answer.AccessorID, secretId: answer.SecretID, expiresAt, login: false, gone: false });
    }
    await checkInvariants(model, world);
  }
  toString = (): string => `create token${typeof this.body.ExpirationTTL === "string" ? ` (ttl ${this.body.ExpirationTTL})` : ""} fails: ${describeFault(this.fault)}`;
}

class Clone implements TokensCommand {
  constructor(readonly index: number) {}
  check = (model: Readonly<TokensModel>): boolean => model.tokens.length > 0;
  async run(model: TokensModel, world: TokensWorld): Promise<void> {
    const source = pick(model, this.index);
    if (source === undefined) return;
    const response = await world.request("PUT", `/acl/token/${source.accessorId}/clone`, { Description: "clone" });
    if (!lives(model, source)) expectModel(response.status === 403, `cloning a dead token answered ${response.status}`);
    else if (source.login) expectModel(response.status === 500, `cloning a login token answered ${response.status}`);
    else if (source.expiresAt !== null && source.expiresAt - model.now < 60_000) expectModel(response.status === 500, `cloning a token expiring in under a minute answered ${response.status}`);
    else {
      expectModel(response.status === 200, `cloning a live token answered ${response.status}`);
      const answer = await jsonOf<TokenAnswer>(response, "clone token");
      model.tokens.push({ accessorId: answer.AccessorID, secretId: answer.SecretID, expiresAt: source.expiresAt, login: false, gone: false });
    }
    await checkInvariants(model, world);
  }
  toString = (): string => `clone token ${this.index + 1}`;
}

class Update implements TokensCommand {
  constructor(
    readonly index: number,
    readonly description: string,
  ) {}
  check = (model: Readonly<TokensModel>): boolean => model.tokens.length > 0;
  async run(model: TokensModel, world: TokensWorld): Promise<void> {
    const token = pick(model, this.index);
    if (token === undefined) return;
    const shown = await world.request("GET", `/acl/token/${token.accessorId}`);
    const local = shown.status === 200 ? ((await jsonOf<{ Local?: boolean }>(shown, "read token")).Local ?? false) : false;
    const response = await world.request("PUT", `/acl/token/${token.accessorId}`, { AccessorID: token.accessorId, Description: this.description, ...(local ? { Local: true } : {}) });
    expectModel(response.status === (lives(model, token) ? 200 : 500), `updating ${lives(model, token) ? "a live" : "a dead"} token answered ${response.status}`);
    await checkInvariants(model, world);
  }
  toString = (): string => `update token ${this.index + 1}`;
}

class Delete implements TokensCommand {
  constructor(readonly index: number) {}
  check = (model: Readonly<TokensModel>): boolean => model.tokens.length > 0;
  async run(model: TokensModel, world: TokensWorld): Promise<void> {
    const token = pick(model, this.index);
    if (token === undefined) return;
    const response = await world.request("DELETE", `/acl/token/${token.accessorId}`);
    expectModel(response.status === 200, `delete token answered ${response.status}`);
    token.gone = true;
    await checkInvariants(model, world);
  }
  toString = (): string => `delete token ${this.index + 1}`;
}

class Login implements TokensCommand {
  check = (): boolean => true;
  async run(model: TokensModel, world: TokensWorld): Promise<void> {
    const response = await world.request("POST", "/acl/login", { AuthMethod: world.authMethod, BearerToken: world.bearerToken }, null);
    expectModel(response.status === 200, `login answered ${response.status}`);
    const answer = await jsonOf<TokenAnswer>(response, "login");
    model.tokens.push({ accessorId: answer.AccessorID, secretId: answer.SecretID, expiresAt: model.now + world.loginTtlMs, login: true, gone: false });
    await checkInvariants(model, world);
  }
  toString = (): string => "log in";
}

class Logout implements TokensCommand {
  constructor(readonly index: number) {}
  check = (model: Readonly<TokensModel>): boolean => model.tokens.some((t) => t.login);
  async run(model: TokensModel, world: TokensWorld): Promise<void> {
    const logins = model.tokens.filter((t) => t.login);
    const token = logins[this.index % logins.length];
    if (token === undefined) return;
    const response = await world.request("POST", "/acl/logout", undefined, token.secretId);
    expectModel(response.status === (lives(model, token) ? 200 : 403), `logging out ${lives(model, token) ? "a live" : "a dead"} login token answered ${response.status}`);
    token.gone = true;
    await checkInvariants(model, world);
  }
  toString = (): string => `log out login ${this.index + 1}`;
}

class Advance implements TokensCommand {
  constructor(readonly ms: number) {}
  check = (): boolean => true;
  async run(model: TokensModel, world: TokensWorld): Promise<void> {
    world.advance(this.ms);
    model.now += this.ms;
    await checkInvariants(model, world);
  }
  toString = (): string => `advance ${storyDuration(this.ms)}`;
}

class ClientStep implements TokensCommand {
  constructor(readonly hook: ClientHook<TokensWorld>) {}
  check = (): boolean => true;
  async run(model: TokensModel, world: TokensWorld): Promise<void> {
    await this.hook.act(world);
    await checkInvariants(model, world);
  }
  toString = (): string => `${this.hook.name} (your client)`;
}

/** Options of {@link tokensCommands}. */
export interface TokensCommandsOptions {
  /** Your client's step, mixed in among the service's commands. */
  readonly client?: ClientHook<TokensWorld>;
  /** Longest scenario (default 20 commands). */
  readonly maxCommands?: number;
  /** fast-check's `replayPath` of a printed counterexample (`/*replayPath="..."*\/`), to replay its command choices. */
  readonly replayPath?: string;
  /** Whether faulted commands appear (a create token that fails with one of the service's answers or a dropped connection, committed or not; default true). */
  readonly faults?: boolean;
}

/**
 * Sequences of token commands for `fc.asyncModelRun`: create, clone, update, delete, log in, log
 * out, advance the clock (a minute to a day), a create token that fails (`doubles.faults`: the
 * service's 500/403/429 or a dropped connection, before or after the token is kept), and your
 * client's step. A shrunk failure reads
 * e.g. `create token (ttl 90s), advance 2m, clone token 1`.
 * @example
 * await fc.assert(fc.asyncProperty(tokensCommands(), (cmds) => fc.asyncModelRun(tokensModelSetup({ doubles }), cmds)));
 */
export function tokensCommands(options: TokensCommandsOptions = {}): fc.Arbitrary<Iterable<TokensCommand>> {
  const index = fc.nat({ max: 9 });
  const commands: fc.Arbitrary<TokensCommand>[] = [
    // Lifetimes on the advance steps' grid, so the clock lands exactly on an expiry.
    fc.tuple(tokenBody({ expiring: false }), fc.option(fc.constantFrom("60s", "90s", "10m", "1h", "2h"), { nil: undefined })).map(
      ([body, ttl]) => new CreateToken(ttl === undefined ? body : { ...body, ExpirationTTL: ttl }),
    ),
    index.map((i) => new Clone(i)),
    fc.tuple(index, fc.stringMatching(/^[a-z]{1,6}$/)).map(([i, d]) => new Update(i, d)),
    index.map((i) => new Delete(i)),
    fc.constant(null).map(() => new Login()),
    index.map((i) => new Logout(i)),
    fc.constantFrom(60_000, 90_000, 10 * 60_000, 3_600_000, 86_400_000).map((ms) => new Advance(ms)),
  ];
  if (options.faults !== false) {
    commands.push(
      fc.tuple(tokenBody({ expiring: false }), fc.option(fc.constantFrom("60s", "10m", "1h"), { nil: undefined }), commandFault(Object.keys(FAULT_STATUS))).map(
        ([body, ttl, fault]) => new FaultedCreateToken(ttl === undefined ? body : { ...body, ExpirationTTL: ttl }, fault),
      ),
    );
  }
  if (options.client !== undefined) commands.push(fc.constant(options.client).map((hook) => new ClientStep(hook)));
  return fc.commands(commands, { maxCommands: options.maxCommands ?? 20, ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}) });
}

/**
 * The setup of `fc.asyncModelRun` for {@link tokensCommands}: a Kubernetes auth method (`k8s`,
 * login tokens live 30 minutes) with a bearer token its binding rule accepts, and an empty model.
 * Call it on fresh doubles (or after `doubles.restore(snapshot)`).
 * @example
 * await fc.asyncModelRun(tokensModelSetup({ doubles, send: handlerFetch(doubles) }), cmds);
 */
export function tokensModelSetup(target: ModelTarget): () => Promise<{ model: TokensModel; real: TokensWorld }> {
  return async () => {
    const resolved = resolveTarget(target);
    const acl = resolved.doubles.accessControl;
    const loginTtlMs = 30 * 60_000;
    acl.createAuthMethod({ name: "k8s", type: "kubernetes", maxTokenTtl: loginTtlMs });
    acl.registerBearerToken("k8s", "jwt-model", { name: "web", namespace: "default", uid: "u-1" });
    acl.createBindingRule({ authMethod: "k8s", selector: "serviceaccount.namespace==default", bindType: "service", bindName: "${serviceaccount.name}" });
    const root = acl.bootstrapToken.secretId;
    const api = resolved.urls.accessControl.api;
    const world: TokensWorld = {
      ...resolved,
      root,
      authMethod: "k8s",
      bearerToken: "jwt-model",
      loginTtlMs,
      advance: (ms) => void resolved.doubles.advance(ms),
      request: (method, path, body, token = root) =>
        resolved.send(`${api}${path}`, { method, headers: token === null ? {} : { "x-acl-token": token }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
    };
    return { model: { tokens: [], now: resolved.doubles.now() }, real: world };
  };
}
