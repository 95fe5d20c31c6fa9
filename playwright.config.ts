import { defineConfig } from "@playwright/test";
import { findChromium } from "./scripts/find-chromium.mjs";

const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;
/** The scripted model server's port; tests reach it through `scriptedModel()` in e2e/support. */
export const modelPort = Number(process.env.E2E_MODEL_PORT ?? 3199);
/** The throwaway OpenID Connect issuer's port (e2e/support/oidc-issuer.ts). */
export const oidcPort = Number(process.env.E2E_OIDC_PORT ?? 3198);
/** The loopback OTLP receiver's port (e2e/support/otlp-receiver.ts). */
export const otlpPort = Number(process.env.E2E_OTLP_PORT ?? 3197);

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never" }]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: findChromium() ?? undefined,
      args: [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: [
    {
      // A scripted OpenAI-compatible model on loopback: the app calls it through the real
      // provider code path (@ai-sdk/openai-compatible); tests script it over HTTP.
      command: `node --import tsx e2e/support/scripted-model-server.ts --port ${modelPort}`,
      url: `http://127.0.0.1:${modelPort}/v1/models`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      // A throwaway OpenID Connect issuer for the single sign-on tests (e2e/observability.spec.ts).
      command: `node --import tsx e2e/support/oidc-issuer.ts --port ${oidcPort} --redirect ${baseURL}`,
      url: `http://127.0.0.1:${oidcPort}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      // Receives the app's OpenTelemetry spans (OTLP/HTTP JSON) for the tracing test.
      command: `node --import tsx e2e/support/otlp-receiver.ts --port ${otlpPort}`,
      url: `http://127.0.0.1:${otlpPort}/__health`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      // Its output is also written to data/e2e-server.log (scripts/e2e-server.mjs), which the
      // secrets test reads after the other specs ran.
      command: "node scripts/e2e-server.mjs",
      url: `${baseURL}/api/health`,
      env: {
        PORT: String(port),
        AI_PROVIDER: "openai-compatible",
        AI_BASE_URL: `http://127.0.0.1:${modelPort}/v1`,
        AI_MODEL: "scripted-model",
        AI_API_KEY: "e2e-not-a-secret",
        E2E_OIDC_PORT: String(oidcPort),
        E2E_OTLP_PORT: String(otlpPort),
        // The per-file limit of an earlier default, so the editor's refusal is reached in a test.
        CAIRN_DIR_MAX_FILE_BYTES: String(1024 * 1024),
      },
      reuseExistingServer: false,
      // A cold Turbopack build on a loaded 2-core machine can take several minutes.
      timeout: 900_000,
      stdout: "pipe",
      stderr: "pipe",
    },
  ],
});
