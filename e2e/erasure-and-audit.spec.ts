import { expect, test } from "@playwright/test";
import { AuthPages, createChat } from "./support/pages";
import { createUser } from "./support/users";

const ada = { email: "ada.audit@example.com", password: "ada-pass-123", name: "Ada Admin" };
const max = { email: "max.audit@example.com", password: "max-pass-123", name: "Max Member" };
const mia = { email: "mia.audit@example.com", password: "mia-pass-123", name: "Mia Member" };

/**
 * Issue 27, items 3 and 4: an admin erases a person on Admin → Members; the audit log lists who
 * did what (filters by kind and person), names the erased person "a former member", and its
 * CSV is for admins only.
 */
test("an admin erases a person, and the audit log shows it with filters and a CSV", async ({
  page,
  browser,
}) => {
  createUser({ ...ada, role: "admin", workspace: "Audit Co" });
  createUser({ ...max, role: "member", workspace: "Audit Co" });
  createUser({ ...mia, role: "member", workspace: "Audit Co" });

  // Max signs in and starts a chat: a sign-in in the log, a chat to erase.
  const maxContext = await browser.newContext();
  const maxPage = await maxContext.newPage();
  await new AuthPages(maxPage).signIn(max);
  await expect(maxPage).toHaveURL(/\/chat$/);
  await createChat(maxPage, "Max's plans");
  await maxContext.close();

  // A failed sign-in with a wrong password, for the log.
  const failedContext = await browser.newContext();
  const failedPage = await failedContext.newPage();
  await new AuthPages(failedPage).signIn({ email: mia.email, password: "not-the-password" });
  await expect(failedPage.getByText("Wrong email or password.")).toBeVisible();
  await failedContext.close();

  await new AuthPages(page).signIn(ada);
  await expect(page).toHaveURL(/\/chat$/);
  await page.goto("/admin/members");
  const maxRow = page.getByTestId(`member-${max.email}`);
  await expect(maxRow).toBeVisible();
  page.once("dialog", (dialog) => void dialog.accept());
  await maxRow.getByTestId("erase-member").click();
  await expect(maxRow).toHaveCount(0);
  // No erase button for oneself.
  await expect(page.getByTestId(`member-${ada.email}`).getByTestId("erase-member")).toHaveCount(0);

  await page.getByTestId("admin-audit-link").click();
  await expect(page).toHaveURL(/\/admin\/audit$/);
  await expect(page).toHaveTitle(/Audit log/);
  const rows = page.getByTestId("audit-row");
  await expect(rows.first()).toBeVisible();
  await expect(
    page.locator('[data-testid="audit-row"][data-kind="signin.succeeded"]').first(),
  ).toBeVisible();
  await expect(
    page.locator('[data-testid="audit-row"][data-kind="signin.failed"]').first(),
  ).toBeVisible();
  // Max's own sign-in now reads as by a former member.
  await expect(
    page
      .locator('[data-testid="audit-row"][data-kind="signin.succeeded"]')
      .filter({ hasText: "a former member" }),
  ).toHaveCount(1);

  // Filter by kind: the erasure, by Ada, of a former member, through the web.
  await page.getByLabel("What", { exact: true }).selectOption("member.erased");
  await page.getByTestId("audit-filter").click();
  await expect(page).toHaveURL(/kind=member\.erased/);
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByTestId("audit-who")).toHaveText(ada.name);
  await expect(rows.first().getByTestId("audit-details")).toContainText("a former member");
  await expect(rows.first()).toHaveAttribute("data-via", "web");

  // Filter by person and a day range that excludes today: nothing.
  await page.getByLabel("What", { exact: true }).selectOption("");
  await page.getByLabel("Person", { exact: true }).selectOption({ label: "Me" });
  await page.getByLabel("From", { exact: true }).fill("2020-01-01");
  await page.getByLabel("To", { exact: true }).fill("2020-01-31");
  await page.getByTestId("audit-filter").click();
  await expect(page.getByTestId("empty-state")).toContainText("No events match");
  await page.getByLabel("To", { exact: true }).fill("2099-12-31");
  await page.getByTestId("audit-filter").click();
  await expect(rows.first()).toBeVisible();
  const whos = await rows.getByTestId("audit-who").allTextContents();
  expect(new Set(whos)).toEqual(new Set([ada.name]));

  // The CSV, with the filters.
  const csv = await page.request.get("/api/admin/audit?kind=member.erased");
  expect(csv.status()).toBe(200);
  expect(csv.headers()["content-type"]).toContain("text/csv");
  const text = await csv.text();
  expect(text.split("\r\n")[0]).toContain('"kind"');
  expect(text).toContain('"member.erased"');
  expect(text).not.toContain(max.email);

  // A member gets neither the page nor the CSV.
  const miaContext = await browser.newContext();
  const miaPage = await miaContext.newPage();
  await new AuthPages(miaPage).signIn(mia);
  await expect(miaPage).toHaveURL(/\/chat$/);
  const refusedPage = await miaPage.goto("/admin/audit");
  expect(refusedPage?.status()).toBe(403);
  const refusedCsv = await miaPage.request.get("/api/admin/audit");
  expect(refusedCsv.status()).toBe(403);
  await miaContext.close();

  // Max can no longer sign in.
  const goneContext = await browser.newContext();
  const gonePage = await goneContext.newPage();
  await new AuthPages(gonePage).signIn(max);
  await expect(gonePage).toHaveURL(/\/sign-in/);
  await expect(gonePage.getByTestId("sign-out")).toHaveCount(0);
  await goneContext.close();
});
