/**
 * Issue 30: single sign-on set up on Admin → Settings (decision 0053). These tests run a second
 * `next start` of the same build with NO CAIRN_OIDC_* variables, on a database of its own, and a
 * second loopback issuer whose client redirects to that server.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, startOidcIssuer } from "./support/oidc-issuer";
import { callServerAction } from "./support/pages";

const PORT = Number(process.env.E2E_SSO_SETTINGS_PORT ?? Number(process.env.E2E_PORT ?? 3100) + 8);
const ISSUER_PORT = Number(
  process.env.E2E_SSO_SETTINGS_ISSUER_PORT ?? Number(process.env.E2E_OIDC_PORT ?? 3198) + 8,
);
const BASE = `http://127.0.0.1:${PORT}`;
const dataDir = path.join(process.cwd(), "data", "e2e-sso-settings");
const databaseUrl = `file:${path.join(dataDir, "cairn.db")}`;
const shots = "test-results/screenshots";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

const admin = { name: "Sol", email: "sol.admin@example.com", password: "sso-settings-admin-1" };
const member = { name: "Max", email: "max.member@example.com", password: "sso-settings-member-1" };
const otherAdmin = { name: "Oda", email: "oda@other.example", password: "sso-settings-other-1" };

let server: ChildProcess | undefined;
let issuer: { issuer: string; close(): Promise<void> } | undefined;

test.describe.configure({ mode: "serial" });
test.setTimeout(120_000);

test.beforeAll(async () => {
  test.setTimeout(240_000);
  rmSync(dataDir, { recursive: true, force: true });
  issuer = await startOidcIssuer({ port: ISSUER_PORT, redirectBase: BASE });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    AUTH_URL: BASE,
    DATABASE_URL: databaseUrl,
    CAIRN_DATA_DIR: dataDir,
    CAIRN_BCRYPT_COST: "4",
    AUTH_SECRET: "e2e-sso-settings-secret-not-for-production-0123",
    // Built already by the suite's own server; only serve.
    CAIRN_SKIP_BUILD: "1",
    // No single sign-on in the environment (blank counts as unset): the admin sets it up.
    CAIRN_OIDC_ISSUER: "",
    CAIRN_OIDC_CLIENT_ID: "",
    CAIRN_OIDC_CLIENT_SECRET: "",
    CAIRN_OIDC_NAME: "",
    CAIRN_OIDC_ALLOWED_DOMAINS: "",
    CAIRN_OIDC_WORKSPACE: "",
    CAIRN_OIDC_GROUPS_CLAIM: "",
    CAIRN_OIDC_GROUP_ROLES: "",
    AI_PROVIDER: "openai-compatible",
    AI_BASE_URL: `http://127.0.0.1:${process.env.E2E_MODEL_PORT ?? 3199}/v1`,
    AI_MODEL: "scripted-model",
    AI_API_KEY: "e2e-not-a-secret",
  };
  server = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: process.cwd(),
    env,
    stdio: "ignore",
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`the SSO settings server on ${PORT} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // The instance's first workspace (its admin manages single sign-on), then another one.
  createUser(admin, "admin", "First Co");
  createUser(member, "member", "First Co");
  createUser(otherAdmin, "admin", "Other Co");
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await new Promise((resolve) => server!.once("exit", resolve));
  }
  await issuer?.close();
});

function createUser(person: typeof admin, role: "admin" | "member", workspace: string) {
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
      workspace,
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

async function signedIn(
  browser: Browser,
  person: typeof admin,
  options: { viewport?: typeof DESKTOP; colorScheme?: "light" | "dark" } = {},
): Promise<Page> {
  const context = await browser.newContext({
    baseURL: BASE,
    viewport: options.viewport ?? DESKTOP,
    colorScheme: options.colorScheme ?? "light",
  });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email", { exact: true }).fill(person.email);
  await page.getByLabel("Password", { exact: true }).fill(person.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/chat$/);
  return page;
}

/** The workspaces and roles of the account with `email`, read from this server's database. */
function membershipsOf(email: string): Array<{ name: string; role: string }> {
  const db = new Database(path.join(dataDir, "cairn.db"), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT w.name AS name, m.role AS role FROM "Membership" m
           JOIN "Workspace" w ON w.id = m.workspaceId JOIN "User" u ON u.id = m.userId
           WHERE u.email = ? ORDER BY w.name`,
      )
      .all(email) as Array<{ name: string; role: string }>;
  } finally {
    db.close();
  }
}

const form = {
  issuer: () => `http://127.0.0.1:${ISSUER_PORT}`,
  label: "Acme ID",
};

test("an admin sets up single sign-on; the secret is never shown back; people sign in with it and join", async ({
  browser,
}) => {
  // Nothing in the environment: the sign-in page has no single sign-on yet.
  const visitor = await (await browser.newContext({ baseURL: BASE })).newPage();
  await visitor.goto("/sign-in");
  await expect(visitor.getByTestId("oidc-sign-in")).toHaveCount(0);

  const page = await signedIn(browser, admin);
  await page.goto("/admin/settings");
  const section = page.getByTestId("oidc-settings");
  await expect(section.getByTestId("oidc-redirect-uri")).toHaveText(
    `${BASE}/api/auth/callback/oidc`,
  );
  await expect(page.getByTestId("oidc-env-override")).toHaveCount(0);

  // The secret is required the first time.
  await section.getByLabel("Issuer URL").fill(form.issuer());
  await section.getByLabel("Client ID").fill(OIDC_CLIENT_ID);
  await section.getByLabel("Button label").fill(form.label);
  await section.getByLabel("Domains that join automatically").fill("sso.example");
  await section.getByLabel("Their role").selectOption("editor");
  await section.getByTestId("oidc-save").click();
  await expect(section.getByTestId("form-error")).toContainText("client secret");

  await section.getByLabel("Client secret").fill(OIDC_CLIENT_SECRET);
  await section.getByTestId("oidc-save").click();
  await expect(section.getByTestId("form-info")).toHaveText(
    "Saved. The sign-in page offers it now.",
  );

  // Reloaded: everything but the secret comes back; the secret is nowhere in the page.
  const response = await page.reload();
  expect(await response!.text()).not.toContain(OIDC_CLIENT_SECRET);
  await expect(section.getByLabel("Issuer URL")).toHaveValue(form.issuer());
  await expect(section.getByLabel("Client secret")).toHaveValue("");
  await expect(section.getByLabel("Client secret")).toHaveAttribute(
    "placeholder",
    "Saved — leave empty to keep it",
  );
  await expect(section.getByLabel("Domains that join automatically")).toHaveValue("sso.example");
  await expect(page.getByTestId("operations-single-sign-on")).toContainText(
    `"Sign in with ${form.label}" (saved on this page)`,
  );

  // A visitor now gets the button, and a person of the allowed domain joins as an editor.
  const person = await (await browser.newContext({ baseURL: BASE })).newPage();
  await person.goto("/sign-in");
  await expect(person.getByTestId("oidc-sign-in")).toHaveText(`Sign in with ${form.label}`);
  await person.getByTestId("oidc-sign-in").click();
  await person.locator('input[name="login"]').fill("zoe");
  await person.locator('input[name="password"]').fill("issuer-any-password");
  await person.getByRole("button", { name: "Sign-in" }).click();
  // The issuer asks for consent on a first grant.
  const consent = person.getByRole("button", { name: "Continue" });
  await consent.waitFor({ state: "visible", timeout: 10_000 }).then(
    () => consent.click(),
    () => undefined,
  );
  await expect(person).toHaveURL(/\/chat$/, { timeout: 15_000 });
  expect(membershipsOf("zoe@sso.example")).toEqual([{ name: "First Co", role: "editor" }]);
});

test("only admins of the instance's first workspace manage it, on the server too", async ({
  browser,
}) => {
  const settings = {
    issuer: "https://evil.example",
    clientId: "x",
    clientSecret: "y",
    defaultRole: "admin",
  };
  // A member: the page is 403 and so is the action.
  const memberPage = await signedIn(browser, member);
  expect((await memberPage.goto("/admin/settings"))?.status()).toBe(403);
  const asMember = await callServerAction(memberPage.context().request, {
    pagePath: "/admin/settings",
    file: "app/(app)/admin/settings/oidc-actions.ts",
    name: "saveOidcSettingsAction",
    args: [settings],
  });
  expect(asMember.status()).toBe(403);

  // An admin of another workspace: no form, and the action is refused.
  const other = await signedIn(browser, otherAdmin);
  await other.goto("/admin/settings");
  await expect(other.getByTestId("model-settings-form")).toBeVisible();
  await expect(other.getByTestId("oidc-settings")).toHaveCount(0);
  for (const name of ["saveOidcSettingsAction", "removeOidcSettingsAction"]) {
    const response = await callServerAction(other.context().request, {
      pagePath: "/admin/settings",
      file: "app/(app)/admin/settings/oidc-actions.ts",
      name,
      args: [name === "saveOidcSettingsAction" ? settings : {}],
    });
    expect(response.status()).toBe(403);
  }

  // Unchanged: the first admin still sees their issuer.
  const page = await signedIn(browser, admin);
  await page.goto("/admin/settings");
  await expect(page.getByTestId("oidc-settings").getByLabel("Issuer URL")).toHaveValue(
    form.issuer(),
  );
});

test("screenshots of the settings at 1280 and 390 px, light and dark; nothing scrolls sideways", async ({
  browser,
}) => {
  mkdirSync(shots, { recursive: true });
  for (const scheme of ["light", "dark"] as const) {
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      const page = await signedIn(browser, admin, { viewport, colorScheme: scheme });
      await page.goto("/admin/settings#single-sign-on");
      await page.waitForLoadState("networkidle");
      const section = page.getByTestId("oidc-settings");
      await section.locator("summary").click();
      await section.scrollIntoViewIfNeeded();
      await section.screenshot({ path: `${shots}/sso-settings-${size}-${scheme}.png` });
      if (size === "phone") {
        const [scrollWidth, innerWidth] = await page.evaluate(() => [
          document.documentElement.scrollWidth,
          window.innerWidth,
        ]);
        expect(scrollWidth, "/admin/settings scrolls sideways at 390 px").toBeLessThanOrEqual(
          innerWidth,
        );
      }
      await page.context().close();
    }
  }
  // The sign-in page with the saved button.
  for (const scheme of ["light", "dark"] as const) {
    const context = await browser.newContext({
      baseURL: BASE,
      viewport: PHONE,
      colorScheme: scheme,
    });
    const page = await context.newPage();
    await page.goto("/sign-in");
    await page.screenshot({ path: `${shots}/sso-sign-in-phone-${scheme}.png`, fullPage: true });
    await context.close();
  }
});

test("removing it takes the button off the sign-in page", async ({ browser }) => {
  const page = await signedIn(browser, admin);
  await page.goto("/admin/settings");
  const section = page.getByTestId("oidc-settings");
  await section.getByTestId("oidc-remove").click();
  await expect(section.getByTestId("form-info")).toContainText("Removed.");
  const visitor = await (await browser.newContext({ baseURL: BASE })).newPage();
  await visitor.goto("/sign-in");
  await expect(visitor.getByTestId("oidc-sign-in")).toHaveCount(0);
});
