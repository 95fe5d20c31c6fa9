/**
 * Issue 30: single sign-on set up on Admin → Settings (decision 0053). These tests run a second
 * `next start` of the same build with NO CAIRN_OIDC_* variables, on a database of its own, and a
 * second loopback issuer whose client redirects to that server.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import Database from "better-sqlite3";
import { startAppServer, type AppServer } from "./support/app-server";
import {
  expect,
  makeTeam,
  test as base,
  testTag,
  workerTag,
  type TeamPerson,
} from "./support/fixtures";
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, startOidcIssuer } from "./support/oidc-issuer";
import { callServerAction } from "./support/pages";

const PORT = Number(process.env.E2E_SSO_SETTINGS_PORT ?? Number(process.env.E2E_PORT ?? 3100) + 8);
const ISSUER_PORT = Number(
  process.env.E2E_SSO_SETTINGS_ISSUER_PORT ?? Number(process.env.E2E_OIDC_PORT ?? 3198) + 8,
);
const shots = "test-results/screenshots";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** What the tests save: the second issuer, and the people it vouches for join as editors. */
const form = {
  issuer: `http://127.0.0.1:${ISSUER_PORT}`,
  label: "Acme ID",
  allowedDomains: "sso.example",
  defaultRole: "editor",
};

/** The server with no single sign-on in its environment, its issuer, and its first workspace. */
interface SsoInstance {
  server: AppServer;
  /** The instance's first workspace: its admins manage single sign-on. */
  firstWorkspace: string;
  /** That workspace's admin, Sol. */
  admin: TeamPerson;
}

/**
 * The settings the tests save (none is saved when a test starts), and `save()`: saves them with
 * the issuer's client as the instance's first admin, through the action the form calls.
 */
type SsoSettings = typeof form & { save(): Promise<void> };

/** The instance's first admin's `action` on /admin/settings; fails unless it went through. */
async function settingsAction(
  request: APIRequestContext,
  name: "saveOidcSettingsAction" | "removeOidcSettingsAction",
  args: unknown[],
) {
  const response = await callServerAction(request, {
    pagePath: "/admin/settings",
    file: "app/(app)/admin/settings/oidc-actions.ts",
    name,
    args,
  });
  expect(response.status(), `${name} answered`).toBe(200);
  expect(await response.text()).toContain('"ok":true');
}

/**
 * The server and issuer start once per worker, and the instance's first workspace and its admin
 * are made right after (the first workspace is the oldest one). Single sign-on is the instance's
 * own, so each test starts with none saved (`sso`) and saves it itself when it needs it; the other
 * people a test needs are its own.
 */
const test = base.extend<{ adminPage: Page; sso: SsoSettings }, { instance: SsoInstance }>({
  instance: [
    async ({}, provide, workerInfo) => {
      const server = await startAppServer({
        name: "e2e-sso-settings",
        port: PORT,
        env: {
          AUTH_URL: `http://127.0.0.1:${PORT}`,
          AUTH_SECRET: "e2e-sso-settings-secret-not-for-production-0123",
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
        },
      });
      const issuer = await startOidcIssuer({ port: ISSUER_PORT, redirectBase: server.base });
      const tag = workerTag(workerInfo);
      const first = makeTeam(`First Co ${tag}`, tag, server.databaseUrl);
      const admin = first.person({
        name: "Sol",
        role: "admin",
        password: "sso-settings-admin-1",
      });
      await provide({ server, firstWorkspace: first.name, admin });
      await server.stop();
      await issuer.close();
    },
    { scope: "worker", timeout: 240_000 },
  ],
  baseURL: async ({ instance }, provide) => {
    await provide(instance.server.base);
  },
  databaseUrl: async ({ instance }, provide) => {
    await provide(instance.server.databaseUrl);
  },
  adminPage: async ({ instance, signIn }, provide) => {
    await provide(await signIn(instance.admin));
  },
  sso: async ({ adminPage }, provide) => {
    const request = adminPage.context().request;
    await settingsAction(request, "removeOidcSettingsAction", [{}]);
    await provide({
      ...form,
      save: () =>
        settingsAction(request, "saveOidcSettingsAction", [
          {
            issuer: form.issuer,
            clientId: OIDC_CLIENT_ID,
            clientSecret: OIDC_CLIENT_SECRET,
            name: form.label,
            allowedDomains: form.allowedDomains,
            defaultRole: form.defaultRole,
          },
        ]),
    });
  },
});

test.use({ workspaceName: "Other Co", viewport: DESKTOP, colorScheme: "light" });
test.setTimeout(120_000);

/** The workspaces and roles of the account with `email`, read from the server's database. */
function membershipsOf(
  instance: SsoInstance,
  email: string,
): Array<{ name: string; role: string }> {
  const db = new Database(path.join(instance.server.dataDir, "cairn.db"), { readonly: true });
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

test("an admin sets up single sign-on; the secret is never shown back; people sign in with it and join", async ({
  browser,
  instance,
  adminPage: page,
  sso,
}, testInfo) => {
  // Nothing in the environment: the sign-in page has no single sign-on yet.
  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto("/sign-in");
  await expect(visitor.getByTestId("oidc-sign-in")).toHaveCount(0);

  await page.goto("/admin/settings");
  const section = page.getByTestId("oidc-settings");
  await expect(section.getByTestId("oidc-redirect-uri")).toHaveText(
    `${instance.server.base}/api/auth/callback/oidc`,
  );
  await expect(page.getByTestId("oidc-env-override")).toHaveCount(0);

  // The secret is required the first time.
  await section.getByLabel("Issuer URL").fill(sso.issuer);
  await section.getByLabel("Client ID").fill(OIDC_CLIENT_ID);
  await section.getByLabel("Button label").fill(sso.label);
  await section.getByLabel("Domains that join automatically").fill(sso.allowedDomains);
  await section.getByLabel("Their role").selectOption(sso.defaultRole);
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
  await expect(section.getByLabel("Issuer URL")).toHaveValue(sso.issuer);
  await expect(section.getByLabel("Client secret")).toHaveValue("");
  await expect(section.getByLabel("Client secret")).toHaveAttribute(
    "placeholder",
    "Saved — leave empty to keep it",
  );
  await expect(section.getByLabel("Domains that join automatically")).toHaveValue("sso.example");
  await expect(page.getByTestId("operations-single-sign-on")).toContainText(
    `"Sign in with ${sso.label}" (saved on this page)`,
  );

  // A visitor now gets the button, and a person of the allowed domain joins as an editor.
  const login = `zoe.${testTag(testInfo)}`;
  const person = await (await browser.newContext()).newPage();
  await person.goto("/sign-in");
  await expect(person.getByTestId("oidc-sign-in")).toHaveText(`Sign in with ${sso.label}`);
  await person.getByTestId("oidc-sign-in").click();
  await person.locator('input[name="login"]').fill(login);
  await person.locator('input[name="password"]').fill("issuer-any-password");
  await person.getByRole("button", { name: "Sign-in" }).click();
  // The issuer asks for consent on a first grant.
  const consent = person.getByRole("button", { name: "Continue" });
  await consent.waitFor({ state: "visible", timeout: 10_000 }).then(
    () => consent.click(),
    () => undefined,
  );
  await expect(person).toHaveURL(/\/chat$/, { timeout: 15_000 });
  expect(membershipsOf(instance, `${login}@sso.example`)).toEqual([
    { name: instance.firstWorkspace, role: "editor" },
  ]);
});

test("only admins of the instance's first workspace manage it, on the server too", async ({
  instance,
  team,
  signIn,
  adminPage: page,
  sso,
}, testInfo) => {
  await sso.save();
  const settings = {
    issuer: "https://evil.example",
    clientId: "x",
    clientSecret: "y",
    defaultRole: "admin",
  };
  // A member: the page is 403 and so is the action.
  const first = makeTeam(instance.firstWorkspace, testTag(testInfo), instance.server.databaseUrl);
  const memberPage = await signIn(first.person({ name: "Max", role: "member" }));
  expect((await memberPage.goto("/admin/settings"))?.status()).toBe(403);
  const asMember = await callServerAction(memberPage.context().request, {
    pagePath: "/admin/settings",
    file: "app/(app)/admin/settings/oidc-actions.ts",
    name: "saveOidcSettingsAction",
    args: [settings],
  });
  expect(asMember.status()).toBe(403);

  // An admin of another workspace: no form, and the action is refused.
  const other = await signIn(team.person({ name: "Oda", role: "admin" }));
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
  await page.goto("/admin/settings");
  await expect(page.getByTestId("oidc-settings").getByLabel("Issuer URL")).toHaveValue(sso.issuer);
});

test("screenshots of the settings at 1280 and 390 px, light and dark; nothing scrolls sideways", async ({
  browser,
  instance,
  signIn,
  sso,
}) => {
  await sso.save();
  mkdirSync(shots, { recursive: true });
  for (const scheme of ["light", "dark"] as const) {
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      const page = await signIn(instance.admin, { viewport, colorScheme: scheme });
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
    const context = await browser.newContext({ viewport: PHONE, colorScheme: scheme });
    const page = await context.newPage();
    await page.goto("/sign-in");
    await expect(page.getByTestId("oidc-sign-in")).toHaveText(`Sign in with ${sso.label}`);
    await page.screenshot({ path: `${shots}/sso-sign-in-phone-${scheme}.png`, fullPage: true });
    await context.close();
  }
});

test("removing it takes the button off the sign-in page", async ({
  browser,
  adminPage: page,
  sso,
}) => {
  await sso.save();
  await page.goto("/admin/settings");
  const section = page.getByTestId("oidc-settings");
  await expect(section.getByLabel("Issuer URL")).toHaveValue(sso.issuer);
  await section.getByTestId("oidc-remove").click();
  await expect(section.getByTestId("form-info")).toContainText("Removed.");
  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto("/sign-in");
  await expect(visitor.getByTestId("oidc-sign-in")).toHaveCount(0);
});
