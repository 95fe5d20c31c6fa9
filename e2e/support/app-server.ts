/**
 * A second `next start` of the suite's build, configured otherwise than the suite's own server
 * (playwright.config.ts), on a database of its own that starts empty: e2e/model-settings.spec.ts
 * runs one with no model, e2e/oidc-settings.spec.ts one with no single sign-on in its
 * environment. Specs start it from a worker-scoped fixture, once per worker, and stop it there.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";

export interface AppServer {
  /** `http://127.0.0.1:<port>`: what the spec's tests take for `baseURL`. */
  base: string;
  /** Its data folder (under data/), emptied when it starts. */
  dataDir: string;
  /** Its SQLite database, for the `cairn` CLI (`databaseUrl` in e2e/support/fixtures.ts). */
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts the build on 127.0.0.1:`port` with the suite's environment and `env` over it, its data
 * in data/`name`, and waits (up to 3 minutes) until /api/health answers.
 */
export async function startAppServer(options: {
  name: string;
  port: number;
  env: Record<string, string>;
}): Promise<AppServer> {
  const base = `http://127.0.0.1:${options.port}`;
  const dataDir = path.join(process.cwd(), "data", options.name);
  const databaseUrl = `file:${path.join(dataDir, "cairn.db")}`;
  rmSync(dataDir, { recursive: true, force: true });
  const server = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      PORT: String(options.port),
      DATABASE_URL: databaseUrl,
      CAIRN_DATA_DIR: dataDir,
      CAIRN_BCRYPT_COST: "4",
      // Built already by the suite's own server; only serve.
      CAIRN_SKIP_BUILD: "1",
      ...options.env,
    },
    stdio: "ignore",
  });
  const stop = async () => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  };
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (server.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the ${options.name} server on ${options.port} did not start`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { base, dataDir, databaseUrl, stop };
}
