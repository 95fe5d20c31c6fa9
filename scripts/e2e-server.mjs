#!/usr/bin/env node
// The app as the browser tests see it: a fresh SQLite database per run, then `npm start`
// (which builds when the sources changed). Playwright starts and stops this process.
//
// Observability is on as an operator would turn it on: metrics behind a token, traces to the
// loopback OTLP receiver, single sign-on against the loopback issuer, JSON logs at debug level.
// Everything the server prints is also written to data/e2e-server.log, so a test can check that
// no secret ever reached the logs (e2e/zz-secrets-in-logs.spec.ts).
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, rmSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const dataDir = path.join(root, "data", "e2e");
rmSync(dataDir, { recursive: true, force: true });
const oidcPort = process.env.E2E_OIDC_PORT ?? "3198";
const otlpPort = process.env.E2E_OTLP_PORT ?? "3197";
const env = {
  ...process.env,
  DATABASE_URL: `file:${path.join(dataDir, "cairn.db")}`,
  CAIRN_DATA_DIR: dataDir,
  CAIRN_BCRYPT_COST: process.env.CAIRN_BCRYPT_COST ?? "4",
  AUTH_SECRET: process.env.AUTH_SECRET ?? "e2e-secret-not-for-production-use-0123456789",
  CAIRN_FAULT_INJECTION: process.env.CAIRN_FAULT_INJECTION ?? "fail-first-commit:fail-me",
  // The public address, as production sets it: Auth.js builds the OIDC redirect URI from it
  // (without it a route handler sees the request as localhost, the browser as 127.0.0.1).
  AUTH_URL: process.env.AUTH_URL ?? `http://127.0.0.1:${process.env.PORT ?? "3100"}`,
  CAIRN_METRICS_TOKEN: process.env.CAIRN_METRICS_TOKEN ?? "e2e-metrics-token-0123456789",
  OTEL_EXPORTER_OTLP_ENDPOINT:
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? `http://127.0.0.1:${otlpPort}`,
  CAIRN_OIDC_ISSUER: process.env.CAIRN_OIDC_ISSUER ?? `http://127.0.0.1:${oidcPort}`,
  CAIRN_OIDC_CLIENT_ID: process.env.CAIRN_OIDC_CLIENT_ID ?? "cairn-e2e",
  CAIRN_OIDC_CLIENT_SECRET: process.env.CAIRN_OIDC_CLIENT_SECRET ?? "cairn-e2e-oidc-client-secret",
  CAIRN_OIDC_NAME: process.env.CAIRN_OIDC_NAME ?? "Test SSO",
  CAIRN_OIDC_ALLOWED_DOMAINS: process.env.CAIRN_OIDC_ALLOWED_DOMAINS ?? "sso.example",
  CAIRN_OIDC_WORKSPACE: process.env.CAIRN_OIDC_WORKSPACE ?? "SSO Corp",
  CAIRN_OIDC_GROUPS_CLAIM: process.env.CAIRN_OIDC_GROUPS_CLAIM ?? "groups",
  CAIRN_OIDC_GROUP_ROLES: process.env.CAIRN_OIDC_GROUP_ROLES ?? "cairn-admins=admin",
  CAIRN_LOG_FORMAT: process.env.CAIRN_LOG_FORMAT ?? "json",
  CAIRN_LOG_LEVEL: process.env.CAIRN_LOG_LEVEL ?? "debug",
  // Stop the server with this process, whatever stops it (scripts/start.mjs).
  CAIRN_WATCH_PARENT: "1",
};

const logDir = path.join(root, "data");
mkdirSync(logDir, { recursive: true });
const log = createWriteStream(path.join(logDir, "e2e-server.log"), { flags: "w" });
const child = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], {
  cwd: root,
  env,
  stdio: ["ignore", "pipe", "pipe"],
});
child.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  log.write(chunk);
});
child.stderr.on("data", (chunk) => {
  process.stderr.write(chunk);
  log.write(chunk);
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  log.end(() => process.exit(code ?? (signal ? 1 : 0)));
});
