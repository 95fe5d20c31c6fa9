/**
 * Support for the multi-instance suite: a fresh PostgreSQL database, two `next start`
 * processes of this checkout's ONE build on it, the scripted model server, and HTTP helpers
 * that drive the app the way a browser does (Auth.js credentials sign-in, a server action to
 * create chats, `POST /api/chat`).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";

export const root = path.resolve(import.meta.dirname, "..");
export const ADMIN_URL =
  process.env.CAIRN_TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
export const PORTS = [
  Number(process.env.MULTI_PORT_A ?? 3130),
  Number(process.env.MULTI_PORT_B ?? 3131),
] as const;
export const MODEL_PORT = Number(process.env.MULTI_MODEL_PORT ?? 3139);
export const MODEL_URL = `http://127.0.0.1:${MODEL_PORT}`;
/** A distinctive phrase of the planner's system prompt (lib/harness/refine/prompts.ts). */
export const PLANNER = "You refine an agent's continual harness";

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it returns something truthy (or throws after `timeoutMs`). */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** A fresh database on the shared server; `drop()` removes it. */
export async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `cairn_multi_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: ADMIN_URL });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/** Runs the `cairn` CLI against a database (migrations, users). */
export function cairn(databaseUrl: string, args: string[]): string {
  return execFileSync(process.execPath, ["bin/cairn.mjs", ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, CAIRN_BCRYPT_COST: "4" },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A child process with its output kept (printed when a test fails). */
export class Proc {
  readonly output: string[] = [];
  exited: Promise<number | null>;
  constructor(
    readonly label: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output.push(chunk.toString());
      if (this.output.length > 400) this.output.splice(0, 100);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    this.exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  }
  /** Stops the process: SIGKILL is a crash (no cleanup), SIGTERM a normal stop. */
  async kill(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill(signal);
    await this.exited;
  }
  tail(lines = 40): string {
    return this.output.join("").split("\n").slice(-lines).join("\n");
  }
}

/** The scripted OpenAI-compatible model server (e2e/support/scripted-model-server.ts). */
export async function startModelServer(): Promise<Proc> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "e2e/support/scripted-model-server.ts", "--port", String(MODEL_PORT)],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  const proc = new Proc("model", child);
  await waitFor("the scripted model server", async () => (await fetch(`${MODEL_URL}/__health`)).ok);
  return proc;
}

/** One app instance: `next start` of this checkout's build, on the shared database. */
export async function startInstance(options: {
  port: number;
  databaseUrl: string;
  env?: Record<string, string>;
}): Promise<Proc> {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
    throw new Error("No build: run `npx next build` once before `npm run test:multi`.");
  }
  const child = spawn(
    process.execPath,
    [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(options.port)],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        DATABASE_URL: options.databaseUrl,
        AUTH_SECRET: "multi-instance-secret-not-for-production-0123456789",
        AUTH_TRUST_HOST: "true",
        AI_PROVIDER: "openai-compatible",
        AI_BASE_URL: `${MODEL_URL}/v1`,
        AI_MODEL: "scripted-model",
        AI_API_KEY: "multi-not-a-secret",
        CAIRN_BCRYPT_COST: "4",
        // One address sends every request here: test the per-email limit, not the per-address one.
        CAIRN_SIGNIN_LIMIT_IP: "100000",
        // A killed instance's job is handed on after 5 s instead of 5 minutes.
        CAIRN_JOB_EXPIRE_SECONDS: "5",
        // One person drives 40 chats at once here; the per-person turn limit has its own tests.
        CAIRN_MAX_TURNS_PER_USER: "100",
        ...options.env,
      },
    },
  );
  const proc = new Proc(`app:${options.port}`, child);
  await waitFor(
    `the app on port ${options.port}`,
    async () => {
      if (proc.child.exitCode !== null) throw new Error(proc.tail());
      return (await fetch(`http://127.0.0.1:${options.port}/api/health`)).ok;
    },
    120_000,
  );
  return proc;
}

/** The scripted model's script and recorded requests. */
export const model = {
  async setScript(rules: unknown[]): Promise<void> {
    const response = await fetch(`${MODEL_URL}/__script`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rules }),
    });
    if (!response.ok) throw new Error(`setScript: ${response.status} ${await response.text()}`);
  },
  async reset(): Promise<void> {
    await fetch(`${MODEL_URL}/__reset`, { method: "POST" });
  },
  async requests(): Promise<{ messages: { role: string; content: unknown }[] }[]> {
    return (await (await fetch(`${MODEL_URL}/__requests`)).json()) as {
      messages: { role: string; content: unknown }[];
    }[];
  },
};

/** Cookies as a client keeps them (name → value). */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const index = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, index).trim(), pair!.slice(index + 1).trim());
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
  has(prefix: string): boolean {
    return [...this.cookies.keys()].some((name) => name.includes(prefix));
  }
}

/** What a sign-in attempt got: a session, or the error code Auth.js redirected with. */
export interface SignInResult {
  ok: boolean;
  status: number;
  /** `invalid_credentials`, `rate_limited`, … (from the redirect), or null. */
  code: string | null;
  session: Session | null;
}

/** A signed-in person on one instance. */
export interface Session {
  base: string;
  cookie: string;
}

/** Signs in through Auth.js's own endpoints, as the sign-in form's request does. */
export async function signIn(
  base: string,
  person: { email: string; password: string },
): Promise<SignInResult> {
  const jar = new CookieJar();
  const csrf = await fetch(`${base}/api/auth/csrf`);
  jar.take(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: jar.header(),
      origin: base,
    },
    body: new URLSearchParams({
      csrfToken,
      email: person.email,
      password: person.password,
      callbackUrl: `${base}/chat`,
    }),
  });
  jar.take(response);
  const location = response.headers.get("location") ?? "";
  const params = location ? new URL(location, base).searchParams : new URLSearchParams();
  const ok = jar.has("session-token") && !params.get("error");
  return {
    ok,
    status: response.status,
    code: params.get("code") ?? params.get("error"),
    session: ok ? { base, cookie: jar.header() } : null,
  };
}

export async function signInOrThrow(base: string, person: { email: string; password: string }) {
  const result = await signIn(base, person);
  if (!result.session) throw new Error(`sign-in failed: ${result.status} ${result.code}`);
  return result.session;
}

/** Calls a server action of the build by file and export name (as a form's fetch does). */
export async function callServerAction(
  session: Session,
  options: { pagePath: string; file: string; name: string; args: unknown[] },
): Promise<string> {
  const manifest = JSON.parse(
    readFileSync(path.join(root, ".next/server/server-reference-manifest.json"), "utf8"),
  ) as { node: Record<string, { filename: string; exportedName: string }> };
  const id = Object.entries(manifest.node).find(
    ([, entry]) => entry.filename === options.file && entry.exportedName === options.name,
  )?.[0];
  if (!id) throw new Error(`server action ${options.file}#${options.name} not in the build`);
  const response = await fetch(`${session.base}${options.pagePath}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Next-Action": id,
      "Content-Type": "text/plain;charset=UTF-8",
      Accept: "text/x-component",
      cookie: session.cookie,
      origin: session.base,
    },
    body: JSON.stringify(options.args),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`server action ${options.name}: ${response.status} ${text}`);
  return text;
}

/** Creates a chat through the app's own server action; returns its id. */
export async function createChat(session: Session, title: string): Promise<string> {
  const text = await callServerAction(session, {
    pagePath: "/chat",
    file: "app/(app)/chat/actions.ts",
    name: "createChatAction",
    args: [{ title }],
  });
  const match = /"chatId":"([^"]+)"/.exec(text);
  if (!match) throw new Error(`createChatAction answered: ${text.slice(0, 300)}`);
  return match[1]!;
}

/** Sends one user message (`POST /api/chat`) and reads the whole streamed answer. */
export async function sendMessage(
  session: Session,
  chatId: string,
  text: string,
): Promise<{ status: number; body: string }> {
  const response = await fetch(`${session.base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: session.cookie, origin: session.base },
    body: JSON.stringify({
      chatId,
      message: { id: randomUUID(), role: "user", parts: [{ type: "text", text }] },
    }),
  });
  return { status: response.status, body: await response.text() };
}

/** A direct connection to the test database, for assertions only. */
export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}
