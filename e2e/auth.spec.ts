import type { Browser, Page } from "@playwright/test";
import { expect, FIRST_ADMIN, test, testTag } from "./support/fixtures";
import { AuthPages, callServerAction, type Person } from "./support/pages";

const admin = FIRST_ADMIN;

async function newPage(browser: Browser) {
  const context = await browser.newContext();
  return context.newPage();
}

/** The admin's members page: makes an invite of `role` and returns its link. */
async function createInvite(adminPage: Page, role: "member" | "editor" | "admin" = "member") {
  await adminPage.goto("/admin/members");
  await adminPage.getByTestId("invite-role").selectOption(role);
  await adminPage.getByTestId("create-invite").click();
  const link = await adminPage.getByTestId("invite-link").inputValue();
  expect(link).toMatch(/\/sign-up\?invite=[\w-]+$/);
  return link;
}

/** Max, a member signed up through an invite of the first admin's workspace (one per test). */
function memberOf(tag: string): Person {
  return { name: "Max Member", email: `max.${tag}@example.com`, password: "battery-staple-2" };
}

/** A member who joined through an invite, signed in on their own page. */
async function invitedMember(browser: Browser, adminPage: Page, member: Person) {
  const link = await createInvite(adminPage);
  const memberPage = await newPage(browser);
  await new AuthPages(memberPage).signUpWithInvite(link, member);
  return { link, memberPage };
}

// The first test needs an empty database: it runs first in the suite (auth.spec.ts sorts first)
// and in this file, or alone.
test("the first sign-up becomes admin of a new workspace", async ({ browser }) => {
  const adminPage = await newPage(browser);
  await new AuthPages(adminPage).signUpFirstUser(admin);
  await expect(adminPage.getByTestId("current-role")).toHaveText("admin");
  await expect(adminPage.getByTestId("nav-admin")).toBeVisible();
  await expect(adminPage.getByTestId("current-user")).toContainText("Acme");
  await adminPage.context().close();
});

test("sign-up without an invite is closed once a user exists", async ({ browser, firstAdmin }) => {
  expect(firstAdmin.email).toBe(admin.email);
  const page = await newPage(browser);
  await page.goto("/sign-up");
  await expect(page.getByTestId("sign-up-closed")).toContainText("invite link");
  await page.context().close();
});

test("sign-in with a wrong password shows an error", async ({ browser, firstAdmin }) => {
  const page = await newPage(browser);
  const auth = new AuthPages(page);
  await auth.signIn({ email: firstAdmin.email, password: "not-the-password" });
  await expect(page.getByTestId("form-error")).toHaveText("Wrong email or password.");
  await expect(page).toHaveURL(/\/sign-in/);
  await auth.signIn(firstAdmin);
  await expect(page).toHaveURL(/\/chat$/);
  await page.context().close();
});

test("an admin invites a user and the link signs them up as member", async ({
  browser,
  firstAdmin,
  signIn,
}, testInfo) => {
  const adminPage = await signIn(firstAdmin);
  await adminPage.getByTestId("nav-admin").click();
  await expect(adminPage).toHaveURL(/\/admin\/members$/);
  await adminPage.getByTestId("invite-role").selectOption("member");
  await adminPage.getByTestId("create-invite").click();
  const inviteLink = await adminPage.getByTestId("invite-link").inputValue();
  expect(inviteLink).toMatch(/\/sign-up\?invite=[\w-]+$/);

  const memberPage = await newPage(browser);
  await new AuthPages(memberPage).signUpWithInvite(inviteLink, memberOf(testTag(testInfo)));
  await expect(memberPage.getByTestId("current-role")).toHaveText("member");
  await memberPage.context().close();
});

test("an invite link works only once", async ({ browser, firstAdmin, signIn }, testInfo) => {
  const adminPage = await signIn(firstAdmin);
  const { link, memberPage } = await invitedMember(browser, adminPage, memberOf(testTag(testInfo)));
  await memberPage.context().close();

  const page = await newPage(browser);
  await page.goto(link);
  await expect(page.getByTestId("sign-up-closed")).toContainText("already been used");
  await page.context().close();
});

test("a member does not see Admin and gets 403 on the page and on admin actions", async ({
  browser,
  firstAdmin,
  signIn,
}, testInfo) => {
  const adminPage = await signIn(firstAdmin);
  const member = memberOf(testTag(testInfo));
  const { memberPage } = await invitedMember(browser, adminPage, member);

  await expect(memberPage.getByTestId("nav-chat")).toBeVisible();
  await expect(memberPage.getByTestId("nav-admin")).toHaveCount(0);

  const response = await memberPage.goto("/admin/members");
  expect(response?.status()).toBe(403);
  await expect(memberPage.getByTestId("forbidden")).toBeVisible();

  const request = memberPage.context().request;
  const invite = await callServerAction(request, {
    pagePath: "/admin/members",
    file: "app/(app)/admin/members/actions.ts",
    name: "createInviteAction",
    args: [{ role: "admin" }],
  });
  expect(invite.status()).toBe(403);

  await adminPage.reload();
  const membershipId = await adminPage
    .getByTestId(`member-${member.email}`)
    .getAttribute("data-membership-id");
  const promote = await callServerAction(request, {
    pagePath: "/admin/members",
    file: "app/(app)/admin/members/actions.ts",
    name: "changeRoleAction",
    args: [{ membershipId, role: "admin" }],
  });
  expect(promote.status()).toBe(403);

  // Nothing changed: the member is still a member, and no invite was created.
  await adminPage.reload();
  await expect(
    adminPage.getByTestId(`member-${member.email}`).getByTestId("member-role"),
  ).toHaveValue("member");
  await expect(adminPage.getByText("No open invites.")).toBeVisible();
  await memberPage.context().close();
});

test("an admin promotes the member to editor", async ({
  browser,
  firstAdmin,
  signIn,
}, testInfo) => {
  const adminPage = await signIn(firstAdmin);
  const member = memberOf(testTag(testInfo));
  const { memberPage } = await invitedMember(browser, adminPage, member);
  await expect(memberPage.getByTestId("current-role")).toHaveText("member");

  await adminPage.reload();
  await adminPage
    .getByTestId(`member-${member.email}`)
    .getByTestId("member-role")
    .selectOption("editor");
  await expect(async () => {
    await memberPage.goto("/chat");
    await expect(memberPage.getByTestId("current-role")).toHaveText("editor", { timeout: 1_000 });
  }).toPass();
  await memberPage.context().close();
});
