import { readFileSync } from "node:fs";
import path from "node:path";
import {
  expect,
  type APIRequestContext,
  type Browser,
  type BrowserContextOptions,
  type Page,
} from "@playwright/test";

export interface Person {
  name: string;
  email: string;
  password: string;
}

/** Page object for the sign-in and sign-up flows. */
export class AuthPages {
  constructor(private readonly page: Page) {}

  async signUpFirstUser(person: Person, workspaceName = "Acme") {
    await this.page.goto("/sign-in");
    await this.page.getByTestId("first-sign-up-link").click();
    await this.fillSignUp(person);
    await this.page.getByLabel("Workspace name").fill(workspaceName);
    await this.page.getByRole("button", { name: "Create account" }).click();
    await expect(this.page).toHaveURL(/\/chat$/);
  }

  async signUpWithInvite(link: string, person: Person) {
    await this.page.goto(link);
    await this.fillSignUp(person);
    await this.page.getByRole("button", { name: "Create account" }).click();
    await expect(this.page).toHaveURL(/\/chat$/);
  }

  async signIn(person: Pick<Person, "email" | "password">) {
    await this.page.goto("/sign-in");
    await this.page.getByLabel("Email", { exact: true }).fill(person.email);
    await this.page.getByLabel("Password", { exact: true }).fill(person.password);
    await this.page.getByRole("button", { name: "Sign in", exact: true }).click();
  }

  async signOut() {
    await this.page.getByTestId("sign-out").click();
    await expect(this.page).toHaveURL(/\/sign-in$/);
  }

  private async fillSignUp(person: Person) {
    await this.page.getByLabel("Name", { exact: true }).fill(person.name);
    await this.page.getByLabel("Email", { exact: true }).fill(person.email);
    await this.page.getByLabel("Password", { exact: true }).fill(person.password);
  }
}

/**
 * Calls a server action the way the browser does (POST with a `Next-Action` header), with
 * whatever cookies the request context holds. The action id comes from the build's manifest,
 * so the test exercises the server's own check, not the UI's.
 */
export async function callServerAction(
  request: APIRequestContext,
  options: { pagePath: string; file: string; name: string; args: unknown[] },
) {
  const manifestPath = path.join(process.cwd(), ".next/server/server-reference-manifest.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    node: Record<string, { filename: string; exportedName: string }>;
  };
  const id = Object.entries(manifest.node).find(
    ([, entry]) => entry.filename === options.file && entry.exportedName === options.name,
  )?.[0];
  if (!id)
    throw new Error(
      `server action ${options.file}#${options.name} not found in the build manifest`,
    );
  return request.post(options.pagePath, {
    headers: {
      "Next-Action": id,
      "Content-Type": "text/plain;charset=UTF-8",
      Accept: "text/x-component",
    },
    data: JSON.stringify(options.args),
    maxRedirects: 0,
  });
}

/**
 * Creates an empty chat titled `title` and opens it. The app starts chats by typing a first
 * message on /chat; tests that script the first message themselves create the chat through the
 * same server action the /chat page calls, then send what they need.
 */
export async function createChat(page: Page, title: string): Promise<string> {
  const response = await callServerAction(page.context().request, {
    pagePath: "/chat",
    file: "app/(app)/chat/actions.ts",
    name: "createChatAction",
    args: [{ title }],
  });
  const body = await response.text();
  const chatId = /"chatId":"([^"]+)"/.exec(body)?.[1];
  if (!chatId) throw new Error(`creating the chat failed: ${response.status()} ${body}`);
  await page.goto(`/chat/${chatId}`);
  await expect(page.getByTestId("chat-title")).toHaveText(title);
  return chatId;
}

/**
 * A new browser context (with `options`: viewport, colour scheme, …) signed in as `person`, on
 * `/chat`. `clipboard` grants clipboard access; `onPage` runs before the first navigation (to
 * listen to the console, say). Every spec signs in through this one helper.
 */
export async function signedIn(
  browser: Browser,
  person: Pick<Person, "email" | "password">,
  options: BrowserContextOptions & { clipboard?: boolean; onPage?: (page: Page) => void } = {},
): Promise<Page> {
  const { clipboard, onPage, ...contextOptions } = options;
  const context = await browser.newContext(contextOptions);
  if (clipboard) await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const page = await context.newPage();
  onPage?.(page);
  await new AuthPages(page).signIn(person);
  await expect(page).toHaveURL(/\/chat$/);
  return page;
}

/** Types `text` into the open chat's message box and sends it. */
export async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId("chat-input").fill(text);
  await page.getByTestId("send").click();
}

/**
 * Waits until the global harness lists `count` rows matching `q`, reloading the page: a
 * refinement may still be running in the background.
 */
export async function expectHarnessRows(page: Page, q: string, count: number): Promise<void> {
  await expect(async () => {
    await page.goto(`/harness?q=${encodeURIComponent(q)}`);
    await expect(page.getByTestId("entry-row")).toHaveCount(count, { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
}
