import type { Page } from "@playwright/test";
import { expect, test, type Team } from "./support/fixtures";
import { callServerAction, createChat } from "./support/pages";

test.use({ workspaceName: "Harness Co" });

const editor = (team: Team) => team.person({ name: "Hedda", role: "editor" });
const member = (team: Team) => team.person({ name: "Milo", role: "member" });

/** Creates the global entry "Deploy day" (v1: "We deploy on Tuesdays.") and returns its URL. */
async function createGlobalEntry(page: Page): Promise<string> {
  await page.goto("/harness/new");
  await page.getByLabel("Kind").selectOption("memory");
  await page.getByLabel("Scope").selectOption("global");
  await page.getByLabel("Path").fill("ops/deploy");
  await page.getByLabel("Title").fill("Deploy day");
  await page.getByLabel("Content").fill("We deploy on Tuesdays.");
  await page.getByTestId("save-entry").click();

  await expect(page).toHaveURL(/\/harness\/memory\/deploy-day\?scope=global/);
  await expect(page.getByTestId("entry-version")).toHaveText("v1");
  return page.url();
}

test("an editor creates a global entry, edits it twice, compares revisions and restores the first", async ({
  team,
  signIn,
}) => {
  const page = await signIn(editor(team));
  await createGlobalEntry(page);

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

test("the entry is listed and found by the filters", async ({ team, signIn }) => {
  const page = await signIn(editor(team));
  await createGlobalEntry(page);
  await page.goto("/harness?q=tuesdays");
  await expect(page.getByTestId("entry-row")).toHaveCount(1);
  await expect(page.getByTestId("entry-row")).toContainText("[global:deploy-day]");
  await page.goto("/harness?kind=skill");
  await expect(page.getByTestId("entry-row")).toHaveCount(0);
});

test("a member sees a global entry read-only and cannot change it, in the UI or by calling the action", async ({
  team,
  signIn,
}) => {
  const editorPage = await signIn(editor(team));
  const globalEntryUrl = await createGlobalEntry(editorPage);
  const page = await signIn(member(team));

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
        expectedVersion: 1,
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
  await expect(editorPage.getByTestId("entry-version")).toHaveText("v1");
  await page.goto("/harness?q=sneaky");
  await expect(page.getByTestId("entry-row")).toHaveCount(0);
});

test("a member keeps local entries in their own chat", async ({ team, signIn }) => {
  const page = await signIn(member(team));
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
