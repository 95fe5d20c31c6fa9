/**
 * Issue 26: a model connected in the browser, and nothing typed lost before that. These tests
 * run against a second `next start` of the same build with NO AI_* variables (and no Ollama),
 * on a database of its own: the first hour of a new team.
 */
import type { Page } from "@playwright/test";
import { startAppServer, type AppServer } from "./support/app-server";
import { expect, test as base, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { callServerAction } from "./support/pages";

const PORT = Number(process.env.E2E_NO_MODEL_PORT ?? Number(process.env.E2E_PORT ?? 3100) + 6);
const MODEL_BASE = `http://127.0.0.1:${process.env.E2E_MODEL_PORT ?? 3199}/v1`;
const SECRET_KEY = "sk-e2e-model-settings-secret-77";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/**
 * The model-less server, started once per worker; each test's workspace and people are its own
 * (a model is connected per workspace), made in that server's database.
 */
const test = base.extend<object, { noModelServer: AppServer }>({
  noModelServer: [
    async ({}, provide) => {
      const server = await startAppServer({
        name: "e2e-no-model",
        port: PORT,
        env: {
          AUTH_SECRET: "e2e-no-model-secret-not-for-production-0123456789",
          // No model anywhere: blank counts as unset, and nothing listens where Ollama would be.
          AI_PROVIDER: "",
          AI_MODEL: "",
          AI_API_KEY: "",
          AI_BASE_URL: "",
          AI_REFINE_MODEL: "",
          OPENAI_API_KEY: "",
          ANTHROPIC_API_KEY: "",
          OLLAMA_BASE_URL: "http://127.0.0.1:9",
        },
      });
      await provide(server);
      await server.stop();
    },
    { scope: "worker", timeout: 240_000 },
  ],
  baseURL: async ({ noModelServer }, provide) => {
    await provide(noModelServer.base);
  },
  databaseUrl: async ({ noModelServer }, provide) => {
    await provide(noModelServer.databaseUrl);
  },
});

test.use({ workspaceName: "First Hour Co", viewport: DESKTOP });
test.setTimeout(120_000);

const admin = (team: Team) => team.person({ name: "Nora", role: "admin" });
const member = (team: Team) => team.person({ name: "Milo", role: "member" });

/** Types `text` as a new chat's first message on /chat and sends it; returns the chat's path. */
async function startChat(page: Page, text: string): Promise<string> {
  await page.getByTestId("start-chat-input").fill(text);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/chat\/[^/]+$/);
  return new URL(page.url()).pathname;
}

test("with no model, the first message is kept and shown as not sent; admins get a link, members are told to ask", async ({
  team,
  signIn,
}) => {
  for (const [person, viewport] of [
    [admin(team), DESKTOP],
    [member(team), PHONE],
  ] as const) {
    const page = await signIn(person, { viewport });
    const text = `Remember that ${person.name} prefers window seats.`;
    await startChat(page, text);
    const message = page.getByTestId("message-user");
    await expect(message).toContainText(text);
    const unsent = page.getByTestId("message-unsent");
    await expect(unsent).toContainText("Not sent — no model is connected.");
    if (person.role === "admin") {
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
  team,
  signIn,
}) => {
  const page = await signIn(admin(team));
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

test("the kept message is sent with one click once a model is connected", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.setScript([
    { whenLastUserIncludes: "window seats", reply: { text: "Noted: window seats it is." } },
  ]);
  // Each one's first message, kept while no model is connected.
  const memberPage = await signIn(member(team), { viewport: PHONE });
  const adminPage = await signIn(admin(team), { viewport: DESKTOP });
  const chats = [
    {
      page: memberPage,
      path: await startChat(memberPage, "Remember that Milo prefers window seats."),
    },
    {
      page: adminPage,
      path: await startChat(adminPage, "Remember that Nora prefers window seats."),
    },
  ];
  for (const { page } of chats) {
    await expect(page.getByTestId("message-unsent")).toContainText("no model is connected");
  }
  // The admin connects the model, through the action the settings form calls.
  const saved = await callServerAction(adminPage.context().request, {
    pagePath: "/admin/settings",
    file: "app/(app)/admin/settings/model-actions.ts",
    name: "saveModelSettingsAction",
    args: [
      {
        provider: "openai-compatible",
        baseUrl: MODEL_BASE,
        apiKey: SECRET_KEY,
        model: "scripted-model",
      },
    ],
  });
  expect(saved.status()).toBe(200);
  expect(await saved.text()).toContain('"ok":true');

  for (const { page, path } of chats) {
    await page.goto(path);
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
