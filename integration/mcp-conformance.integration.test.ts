/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) against
 * `next start`: its server scenarios that apply to Cairn, and the Host/Origin checks of the MCP
 * spec's DNS-rebinding warning through the real route. Run with `npm run test:integration`
 * (port CAIRN_INTEGRATION_PORT + 2, default 3152).
 *
 * Two adapters, both documented in docs/mcp.md ("Conformance"):
 * - The suite's bundle imports `fs.globSync` (Node 22); on Node 20 its CLI runs with
 *   `--import integration/support/conformance/fs-glob-shim.mjs`, which hands the package a `fs`
 *   with a `globSync` for the one pattern it uses (and the real one on Node 22).
 * - Its server scenarios connect without any header, so it talks to /api/mcp through a loopback
 *   proxy that adds a valid token (`startTokenProxy`) and passes `Host` and `Origin` unchanged.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAccessToken } from "@/lib/access-tokens";
import { createUserInWorkspace } from "@/lib/accounts";
import { startAppServer, type AppServer } from "./support/app-server";
import { startTokenProxy, type TokenProxy } from "./support/token-proxy";
import { sqlForDb } from "@/lib/sql-storage/sql";

const port = Number(process.env.CAIRN_INTEGRATION_PORT ?? 3150) + 2;
const root = path.resolve(import.meta.dirname, "..");
const conformanceBin = path.join(
  root,
  "node_modules/@modelcontextprotocol/conformance/dist/index.js",
);
const fsGlobShim = path.join(root, "integration/support/conformance/fs-glob-shim.mjs");

/**
 * The suite's server scenarios (0.1.16, `conformance list --server`) that test what Cairn offers.
 * The others are skipped, each for a reason:
 * - `tools-call-*` (simple text, image, audio, embedded resource, mixed content, with logging,
 *   error, with progress), `json-schema-2020-12`, `resources-read-text`, `resources-read-binary`,
 *   `resources-templates-read`, `prompts-get-*`: call fixed tools, resources and prompts of the
 *   suite's reference server (`test_simple_text`, `test://static-text`, …) that Cairn does not
 *   and should not have.
 * - `tools-call-sampling`, `tools-call-elicitation`, `elicitation-sep1034-defaults`,
 *   `elicitation-sep1330-enums`, `server-sse-polling`, `server-sse-multiple-streams`: need
 *   server-to-client requests or SSE streams with a session; Cairn's endpoint is stateless with
 *   JSON responses (decision 0014): no session, no stream, GET answers 405.
 * - `logging-set-level`, `completion-complete`, `resources-subscribe`, `resources-unsubscribe`,
 *   `prompts-list`: capabilities Cairn does not declare (logging, completions, subscriptions,
 *   prompts).
 */
const APPLICABLE_SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "dns-rebinding-protection",
] as const;

let app: AppServer;
let proxy: TokenProxy;
let token: string;
let results: string;

beforeAll(
  async () => {
    app = await startAppServer({ port });
    const { user, workspace } = await createUserInWorkspace(sqlForDb(app.db), {
      email: "conformance@acme.test",
      password: "integration-password",
      name: "Conformance",
      role: "member",
      workspaceName: "Acme",
    });
    ({ token } = await createAccessToken(sqlForDb(app.db), {
      userId: user.id,
      workspaceId: workspace.id,
      name: "conformance",
    }));
    proxy = await startTokenProxy({ target: app.baseUrl, token });
    results = mkdtempSync(path.join(tmpdir(), "cairn-conformance-"));
  },
  25 * 60 * 1000,
);

afterAll(async () => {
  await proxy?.close();
  await app?.db.$disconnect();
  await app?.stop();
  if (results) rmSync(results, { recursive: true, force: true });
});

interface ConformanceCheck {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

/** Runs one scenario with the pinned CLI (asynchronously: the proxy lives in this process). */
async function runScenario(
  scenario: string,
): Promise<{ exitCode: number; checks: ConformanceCheck[]; output: string }> {
  const outputDir = path.join(results, scenario);
  let exitCode = 0;
  let output = "";
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        "--import",
        fsGlobShim,
        conformanceBin,
        "server",
        "--url",
        `${proxy.baseUrl}/api/mcp`,
        "--scenario",
        scenario,
        "--output-dir",
        outputDir,
      ],
      { cwd: root, timeout: 60_000 },
    );
    output = stdout + stderr;
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    exitCode = typeof failed.code === "number" ? failed.code : -1;
    output = `${failed.stdout ?? ""}${failed.stderr ?? ""}`;
  }
  const file = readdirSync(outputDir, { recursive: true, encoding: "utf8" }).find(
    (name) => path.basename(name) === "checks.json",
  );
  const checks = file
    ? (JSON.parse(readFileSync(path.join(outputDir, file), "utf8")) as ConformanceCheck[])
    : [];
  return { exitCode, checks, output };
}

describe("the MCP conformance suite against next start", () => {
  it.each(APPLICABLE_SCENARIOS)("passes %s", async (scenario) => {
    const { exitCode, checks, output } = await runScenario(scenario);
    const failures = checks.filter(
      (check) => check.status === "FAILURE" || check.status === "WARNING",
    );
    expect(failures, output).toEqual([]);
    expect(
      checks.some((check) => check.status === "SUCCESS"),
      output,
    ).toBe(true);
    expect(exitCode, output).toBe(0);
  });

  it("rejects the rebinding request and accepts the local one in dns-rebinding-protection", async () => {
    const { checks } = await runScenario("dns-rebinding-protection");
    expect(Object.fromEntries(checks.map((check) => [check.id, check.status]))).toEqual({
      "localhost-host-rebinding-rejected": "SUCCESS",
      "localhost-host-valid-accepted": "SUCCESS",
    });
  });
});

/** A POST to /api/mcp with exactly these headers (node:http sends `Host` as given). */
function post(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(`${app.baseUrl}/api/mcp`);
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

describe("Origin and Host at /api/mcp (the spec's DNS-rebinding warning)", () => {
  it("refuses a page on another origin and a foreign Host with 403, and serves a token client", async () => {
    const local = new URL(app.baseUrl).host;
    const authorization = `Bearer ${token}`;

    const foreignOrigin = await post({
      host: local,
      origin: "https://evil.example.com",
      authorization,
    });
    expect(foreignOrigin.status).toBe(403);
    expect(JSON.parse(foreignOrigin.body)).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32000 },
    });

    expect((await post({ host: "evil.example.com", authorization })).status).toBe(403);
    // Refused before the token is looked at.
    expect(
      (await post({ host: "evil.example.com", origin: "http://evil.example.com" })).status,
    ).toBe(403);

    // An MCP client (no Origin) with a token, and the app's own origin.
    expect((await post({ host: local, authorization })).status).toBe(200);
    expect((await post({ host: local, origin: `http://${local}`, authorization })).status).toBe(
      200,
    );
  });
});
