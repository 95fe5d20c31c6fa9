import { expect, test, type Browser, type Page } from "@playwright/test";
import { AuthPages, callServerAction, type Person } from "./support/pages";

const admin: Person = { name: "Ada Admin", email: "ada@example.com", password: "correct-horse-1" };
const member: Person = {
  name: "Max Member",
  email: "max@example.com",
  password: "battery-staple-2",
};

test.describe.configure({ mode: "serial" });

let adminPage: Page;
let memberPage: Page;
let inviteLink: string;

async function newPage(browser: Browser) {
  const context = await browser.newContext();
  return context.newPage();
}

test("the first sign-up becomes admin of a new workspace", async ({ browser }) => {
  adminPage = await newPage(browser);
  await new AuthPages(adminPage).signUpFirstUser(admin);
  await expect(adminPage.getByTestId("current-role")).toHaveText("admin");
  await expect(adminPage.getByTestId("nav-admin")).toBeVisible();
  await expect(adminPage.getByTestId("current-user")).toContainText("Acme");
});

test("sign-up without an invite is closed once a user exists", async ({ browser }) => {
  const page = await newPage(browser);
  await page.goto("/sign-up");
  await expect(page.getByTestId("sign-up-closed")).toContainText("invite link");
  await page.context().close();
});

test("sign-in with a wrong password shows an error", async ({ browser }) => {
  const page = await newPage(browser);
  const auth = new AuthPages(page);
  await auth.signIn({ email: admin.email, password: "not-the-password" });
  await expect(page.getByTestId("form-error")).toHaveText("Wrong email or password.");
  await expect(page).toHaveURL(/\/sign-in/);
  await auth.signIn(admin);
  await expect(page).toHaveURL(/\/chat$/);
  await page.context().close();
});

test("an admin invites a user and the link signs them up as member", async ({ browser }) => {
  await adminPage.getByTestId("nav-admin").click();
  await expect(adminPage).toHaveURL(/\/admin\/members$/);
  await adminPage.getByTestId("invite-role").selectOption("member");
  await adminPage.getByTestId("create-invite").click();
  inviteLink = await adminPage.getByTestId("invite-link").inputValue();
  expect(inviteLink).toMatch(/\/sign-up\?invite=[\w-]+$/);

  memberPage = await newPage(browser);
  await new AuthPages(memberPage).signUpWithInvite(inviteLink, member);
  await expect(memberPage.getByTestId("current-role")).toHaveText("member");
});

test("an invite link works only once", async ({ browser }) => {
  const page = await newPage(browser);
  await page.goto(inviteLink);
  await expect(page.getByTestId("sign-up-closed")).toContainText("already been used");
  await page.context().close();
});

test("a member does not see Admin and gets 403 on the page and on admin actions", async () => {
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
});

test("an admin promotes the member to editor", async () => {
  await adminPage
    .getByTestId(`member-${member.email}`)
    .getByTestId("member-role")
    .selectOption("editor");
  await expect(async () => {
    await memberPage.goto("/chat");
    await expect(memberPage.getByTestId("current-role")).toHaveText("editor", { timeout: 1_000 });
  }).toPass();
});
