import { expect, test, type Page } from "@playwright/test";
import { AuthPages, callServerAction, createChat } from "./support/pages";
import { createUser } from "./support/users";

const workspace = "Harness Co";
const editor = {
  email: "hedda@example.com",
  password: "editor-pass-1",
  role: "editor" as const,
  workspace,
  name: "Hedda",
};
const member = {
  email: "milo@example.com",
  password: "member-pass-1",
  role: "member" as const,
  workspace,
  name: "Milo",
};

test.describe.configure({ mode: "serial" });

let editorPage: Page;
let globalEntryUrl: string;

test.beforeAll(async ({ browser }) => {
  createUser(editor);
  createUser(member);
  editorPage = await (await browser.newContext()).newPage();
  await new AuthPages(editorPage).signIn(editor);
  await expect(editorPage).toHaveURL(/\/chat$/);
});

test("an editor creates a global entry, edits it twice, compares revisions and restores the first", async () => {
  const page = editorPage;
  await page.goto("/harness/new");
  await page.getByLabel("Kind").selectOption("memory");
  await page.getByLabel("Scope").selectOption("global");
  await page.getByLabel("Path").fill("ops/deploy");
  await page.getByLabel("Title").fill("Deploy day");
  await page.getByLabel("Content").fill("We deploy on Tuesdays.");
  await page.getByTestId("save-entry").click();

  await expect(page).toHaveURL(/\/harness\/memory\/deploy-day\?scope=global/);
  globalEntryUrl = page.url();
  await expect(page.getByTestId("entry-version")).toHaveText("v1");

  await page.getByLabel("Content").fill("We deploy on Wednesdays.");
  await page.getByLabel("Reason for the change (optional)").fill("moved the release train");
  await page.getByTestId("save-entry").click();
  await expect(page.getByTestId("entry-version")).toHaveText("v2");

  await page.getByLabel("Content").fill("We deploy on Fridays.");
  await page.getByTestId("save-entry").click();
  await expect(page.getByTestId("entry-version")).toHaveText("v3");

  const history = page.getByTestId("history-row");
  await expect(history).toHaveCount(3);
  await expect(history.first()).toContainText("update");
  await expect(page.getByTestId("history-table")).toContainText("moved the release train");

  // The default comparison is v2 → v3; pick v1 → v3 instead.
  await page.getByLabel("From revision").selectOption({ label: "v1 (create)" });
  await page.getByTestId("compare").click();
  const diff = page.getByTestId("diff-view");
  await expect(diff.locator('[data-kind="removed"]')).toContainText("We deploy on Tuesdays.");
  await expect(diff.locator('[data-kind="added"]')).toContainText("We deploy on Fridays.");

  await page.getByRole("button", { name: "Restore v1" }).click();
  await expect(page.getByTestId("entry-version")).toHaveText("v4");
  await expect(page.getByLabel("Content")).toHaveValue("We deploy on Tuesdays.");
  await expect(page.getByTestId("history-row").first()).toContainText("restore");
});

test("the entry is listed and found by the filters", async () => {
  const page = editorPage;
  await page.goto("/harness?q=tuesdays");
  await expect(page.getByTestId("entry-row")).toHaveCount(1);
  await expect(page.getByTestId("entry-row")).toContainText("[global:deploy-day]");
  await page.goto("/harness?kind=skill");
  await expect(page.getByTestId("entry-row")).toHaveCount(0);
});

test("a member sees a global entry read-only and cannot change it, in the UI or by calling the action", async ({
  browser,
}) => {
  const page = await (await browser.newContext()).newPage();
  await new AuthPages(page).signIn(member);
  await expect(page).toHaveURL(/\/chat$/);

  await page.goto(globalEntryUrl);
  await expect(page.getByTestId("read-only-badge")).toBeVisible();
  await expect(page.getByTestId("entry-content")).toHaveText("We deploy on Tuesdays.");
  await expect(page.getByTestId("entry-form")).toHaveCount(0);
  await expect(page.getByTestId("delete-entry")).toHaveCount(0);

  const update = await callServerAction(page.context().request, {
    pagePath: "/harness/new",
    file: "app/(app)/harness/actions.ts",
    name: "updateEntryAction",
    args: [
      {
        kind: "memory",
        id: "deploy-day",
        location: { scope: "global" },
        expectedVersion: 4,
        content: "Members rewrote this.",
      },
    ],
  });
  expect(update.status(), await update.text()).toBe(403);
  const create = await callServerAction(page.context().request, {
    pagePath: "/harness/new",
    file: "app/(app)/harness/actions.ts",
    name: "createEntryAction",
    args: [{ kind: "memory", location: { scope: "global" }, title: "Sneaky", content: "x" }],
  });
  expect(create.status()).toBe(403);

  await page.reload();
  await expect(page.getByTestId("entry-content")).toHaveText("We deploy on Tuesdays.");
  await editorPage.goto(globalEntryUrl);
  await expect(editorPage.getByTestId("entry-version")).toHaveText("v4");
  await page.goto("/harness?q=sneaky");
  await expect(page.getByTestId("entry-row")).toHaveCount(0);
});

test("a member keeps local entries in their own chat", async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await new AuthPages(page).signIn(member);
  await expect(page).toHaveURL(/\/chat$/);
  await createChat(page, "Trip planning");
  await page.goto("/chat");
  await expect(page.getByTestId("chat-row")).toContainText("Trip planning");

  await page.goto("/harness/new");
  await expect(page.getByLabel("Scope").locator("option")).toHaveText(["Local — Trip planning"]);
  await page.getByLabel("Title").fill("Window seat");
  await page.getByLabel("Content").fill("Milo prefers a window seat.");
  await page.getByTestId("save-entry").click();
  await expect(page).toHaveURL(/\/harness\/memory\/window-seat\?scope=local&chat=/);
  await expect(page.getByTestId("entry-version")).toHaveText("v1");
});
