/**
 * Issue 26: a model connected in the browser, and nothing typed lost before that. These tests
 * run against a second `next start` of the same build with NO AI_* variables (and no Ollama),
 * on a database of its own: the first hour of a new team.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { scriptedModel } from "./support/model";

const PORT = Number(process.env.E2E_NO_MODEL_PORT ?? Number(process.env.E2E_PORT ?? 3100) + 6);
const BASE = `http://127.0.0.1:${PORT}`;
const MODEL_BASE = `http://127.0.0.1:${process.env.E2E_MODEL_PORT ?? 3199}/v1`;
const dataDir = path.join(process.cwd(), "data", "e2e-no-model");
const databaseUrl = `file:${path.join(dataDir, "cairn.db")}`;
const SECRET_KEY = "sk-e2e-model-settings-secret-77";

const admin = { name: "Nora", email: "nora.first@example.com", password: "first-hour-admin-1" };
const member = { name: "Milo", email: "milo.first@example.com", password: "first-hour-member-1" };

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

let server: ChildProcess | undefined;
/** Each person's chat made in the first test. */
const chatUrls = new Map<string, string>();

test.describe.configure({ mode: "serial" });
test.setTimeout(120_000);

test.beforeAll(async () => {
  test.setTimeout(240_000);
  rmSync(dataDir, { recursive: true, force: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    DATABASE_URL: databaseUrl,
    CAIRN_DATA_DIR: dataDir,
    CAIRN_BCRYPT_COST: "4",
    AUTH_SECRET: "e2e-no-model-secret-not-for-production-0123456789",
    // Built already by the suite's own server; only serve.
    CAIRN_SKIP_BUILD: "1",
    // No model anywhere: blank counts as unset, and nothing listens where Ollama would be.
    AI_PROVIDER: "",
    AI_MODEL: "",
    AI_API_KEY: "",
    AI_BASE_URL: "",
    AI_REFINE_MODEL: "",
    OPENAI_API_KEY: "",
    ANTHROPIC_API_KEY: "",
    OLLAMA_BASE_URL: "http://127.0.0.1:9",
  };
  server = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: process.cwd(),
    env,
    stdio: "ignore",
    detached: false,
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`the model-less server on ${PORT} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await new Promise((resolve) => server!.once("exit", resolve));
  }
});

function createUser(person: typeof admin, role: "admin" | "member") {
  execFileSync(
    process.execPath,
    [
      "bin/cairn.mjs",
      "user",
      "create",
      "--email",
      person.email,
      "--password",
      person.password,
      "--role",
      role,
      "--workspace",
      "First Hour Co",
      "--name",
      person.name,
    ],
    {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: databaseUrl, CAIRN_BCRYPT_COST: "4" },
      stdio: "pipe",
    },
  );
}

async function signedIn(browser: Browser, person: typeof admin, viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE, viewport });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email", { exact: true }).fill(person.email);
  await page.getByLabel("Password", { exact: true }).fill(person.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/chat$/);
  return page;
}

test("with no model, the first message is kept and shown as not sent; admins get a link, members are told to ask", async ({
  browser,
}) => {
  createUser(admin, "admin");
  createUser(member, "member");
  for (const [person, viewport] of [
    [admin, DESKTOP],
    [member, PHONE],
  ] as const) {
    const page = await signedIn(browser, person, viewport);
    const text = `Remember that ${person.name} prefers window seats.`;
    await page.getByTestId("start-chat-input").fill(text);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/chat\/[^/]+$/);
    chatUrls.set(person.email, new URL(page.url()).pathname);
    const message = page.getByTestId("message-user");
    await expect(message).toContainText(text);
    const unsent = page.getByTestId("message-unsent");
    await expect(unsent).toContainText("Not sent — no model is connected.");
    if (person === admin) {
      await expect(unsent.getByTestId("unsent-connect-model")).toHaveAttribute(
        "href",
        "/admin/settings#model",
      );
    } else {
      await expect(unsent.getByTestId("unsent-ask-admin")).toHaveText(
        "Ask an admin to connect a model.",
      );
      // Members never read configuration instructions.
      await expect(page.locator("body")).not.toContainText("AI_PROVIDER");
      await expect(page.locator("body")).not.toContainText(".env");
    }
    // Stored: still there after a reload, history readable, still marked.
    await page.reload();
    await expect(page.getByTestId("message-user")).toContainText(text);
    await expect(page.getByTestId("message-unsent")).toContainText("no model is connected");
    await expect(page.getByTestId("chat-input")).toBeEnabled();
    await page.context().close();
  }
});

test("Admin → Settings → Model: list the endpoint's models, test the connection in words, save; the key never comes back", async ({
  browser,
}) => {
  const page = await signedIn(browser, admin);
  await page.goto("/admin/settings");
  await expect(page).toHaveTitle("Workspace settings · Cairn");
  const form = page.getByTestId("model-settings-form");
  await form.getByLabel("Provider").selectOption("openai-compatible");
  // A wrong address: Test connection says so in words.
  await form.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
  await form.getByLabel("Model", { exact: true }).fill("scripted-model");
  await form.getByTestId("model-test").click();
  const result = form.getByTestId("model-test-result");
  await expect(result).toHaveAttribute("data-ok", "false");
  await expect(result).toContainText(/Not connected: .*(reach|refused|answer)/i);

  await form.getByLabel("Base URL").fill(MODEL_BASE);
  await form.getByLabel("API key").fill(SECRET_KEY);
  await form.getByTestId("model-list").click();
  await expect(form.getByTestId("model-list-result")).toContainText("scripted-model");
  await form.getByTestId("model-test").click();
  await expect(result).toHaveAttribute("data-ok", "true");
  await expect(result).toContainText("Connected");
  await form.getByTestId("model-save").click();
  await expect(form.getByTestId("form-info")).toContainText("Saved");

  await page.reload();
  await expect(page.getByTestId("model-overview")).toContainText("saved above");
  await expect(page.getByTestId("model-overview").getByTestId("model-chat-model")).toHaveText(
    "scripted-model",
  );
  await expect(page.getByLabel("API key")).toHaveValue("");
  await expect(page.getByLabel("API key")).toHaveAttribute("placeholder", /Saved/);
  expect(await page.content()).not.toContain(SECRET_KEY);
  await page.context().close();
});

test("the kept message is sent with one click once a model is connected", async ({ browser }) => {
  const model = scriptedModel();
  await model.setScript([
    { whenLastUserIncludes: "window seats", reply: { text: "Noted: window seats it is." } },
  ]);
  for (const person of [member, admin]) {
    const page = await signedIn(browser, person, person === member ? PHONE : DESKTOP);
    await page.goto(chatUrls.get(person.email)!);
    const unsent = page.getByTestId("message-unsent");
    await expect(unsent).toContainText("Not sent yet.");
    await unsent.getByTestId("send-unsent").click();
    await expect(page.getByTestId("assistant-text")).toContainText("Noted: window seats it is.");
    await expect(page.getByTestId("message-unsent")).toHaveCount(0);
    // One user message: nothing was sent twice.
    await expect(page.getByTestId("message-user")).toHaveCount(1);
    await page.context().close();
  }
  const requests = await model.requests();
  expect(requests.some((request) => request.model === "scripted-model")).toBe(true);
});
