import { encode } from "next-auth/jwt";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { createDb, migrateDatabase, type DatabaseTarget, type Db } from "@/lib/db";

/** The `AUTH_SECRET` every integration server runs with. */
export const INTEGRATION_AUTH_SECRET = "integration-secret-not-for-production-0123456789";

/** A session cookie as Auth.js issues it (a JWE keyed by AUTH_SECRET and the cookie's name). */
export async function sessionCookieFor(person: {
  userId: string;
  workspaceId: string;
  role: "admin" | "editor" | "member";
}): Promise<string> {
  const session = await encode({
    secret: INTEGRATION_AUTH_SECRET,
    salt: "authjs.session-token",
    token: { sub: person.userId, ...person, sessionVersion: 0 },
  });
  return `authjs.session-token=${session}`;
}

/** A running `next start` on a fresh SQLite database, for tests that talk to the real app. */
export interface AppServer {
  baseUrl: string;
  /** A client on the server's database, for setting up people and checking what was stored. */
  db: Db;
  target: DatabaseTarget;
  /** The pid of scripts/start.mjs; `next start` runs below it (see process-memory.ts). */
  pid: number;
  stop(): Promise<void>;
}

const root = path.resolve(import.meta.dirname, "../..");

/**
 * Starts the app like `npm start` does (scripts/start.mjs: migrate, build only when the sources
 * are newer than the last build, `next start`) on `port` with a fresh database, and waits until
 * `/api/health` answers. The first run builds; later runs reuse the build.
 */
export async function startAppServer(options: {
  port: number;
  /** Extra environment for the server (e.g. CAIRN_MAX_TURNS_PER_USER). */
  env?: Record<string, string>;
}): Promise<AppServer> {
  const directory = mkdtempSync(path.join(tmpdir(), "cairn-integration-"));
  const filePath = path.join(directory, "cairn.db");
  const target: DatabaseTarget = { provider: "sqlite", url: `file:${filePath}`, filePath };
  await migrateDatabase({ target });
  const baseUrl = `http://127.0.0.1:${options.port}`;
  let output = "";
  const child: ChildProcess = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PORT: String(options.port),
      DATABASE_URL: target.url,
      CAIRN_DATA_DIR: directory,
      AUTH_SECRET: INTEGRATION_AUTH_SECRET,
      AUTH_TRUST_HOST: "true",
      CAIRN_BCRYPT_COST: "4",
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
      ...options.env,
    },
  });
  child.stdout?.on(
    "data",
    (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)),
  );
  child.stderr?.on(
    "data",
    (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)),
  );
  let exited: number | null = null;
  child.on("exit", (code) => (exited = code ?? -1));

  const stop = async () => {
    if (exited === null && child.pid) {
      // The whole group: start.mjs, and the `next start` it spawned.
      process.kill(-child.pid, "SIGTERM");
      await new Promise<void>((resolve) => {
        if (exited !== null) return resolve();
        child.once("exit", () => resolve());
        setTimeout(resolve, 10_000).unref();
      });
    }
    rmSync(directory, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20 * 60 * 1000;
  for (;;) {
    if (exited !== null) {
      await stop();
      throw new Error(`The app exited (${exited}) before it was ready:\n${output}`);
    }
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The app did not become ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { baseUrl, db: createDb(target), target, pid: child.pid!, stop };
}
