import type { Page } from "@playwright/test";
import { expect, test as base } from "./support/fixtures";
import { callServerAction } from "./support/pages";

const COMPANY = "/persistent/company";
const handbook = "# Handbook\nWe write things down.\n";
const handbookEdited = "# Handbook\nWe write things down.\nAnd we keep them current.\n";

/** An editor and a member of the test's own workspace, each signed in on a page of their own. */
const test = base.extend<{ editorPage: Page; memberPage: Page }>({
  editorPage: async ({ team, signIn }, provide) => {
    await provide(await signIn(team.person({ name: "Fran Editor", role: "editor" })));
  },
  memberPage: async ({ team, signIn }, provide) => {
    await provide(await signIn(team.person({ name: "Milo Member", role: "member" })));
  },
});

test.use({ workspaceName: "Files Co" });

/** Fills the new-file form once the company dir is shown and the editor is interactive. */
async function createCompanyFile(page: Page, path: string, content: string) {
  await expect(page.getByTestId("dir-view")).toHaveAttribute("data-dir", COMPANY);
  await page.getByTestId("new-file-path").fill(path);
  await page.getByTestId("file-content-input").fill(content);
  // Enabled only once React holds the path: the form is hydrated and the state is ours.
  await expect(page.getByTestId("save-file")).toBeEnabled();
  await page.getByTestId("save-file").click();
}

/** The editor writes handbook.md (v1) and edits it (v2, `handbookEdited`). */
async function writeHandbook(page: Page) {
  await page.goto("/files?dir=company");
  await createCompanyFile(page, "handbook.md", handbook);
  await expect(page).toHaveURL(/path=handbook\.md/);
  await page.getByTestId("file-content-input").fill(handbookEdited);
  await page.getByTestId("save-file").click();
  await expect(page.getByTestId("save-status")).toHaveText("Saved.");
}

test("an editor edits company knowledge and it persists", async ({ editorPage }) => {
  await editorPage.getByTestId("nav-files").click();
  await editorPage.getByTestId("dir-company").click();
  await expect(editorPage).toHaveURL(/dir=company/);
  await expect(editorPage.getByTestId("dir-company").getByTestId("dir-badge")).toHaveText(
    "writable",
  );
  await expect(editorPage.getByTestId("dir-user").getByTestId("dir-badge")).toHaveText("writable");

  await createCompanyFile(editorPage, "handbook.md", handbook);
  await expect(editorPage).toHaveURL(/path=handbook\.md/);
  await expect(editorPage.getByTestId("file-content-input")).toHaveValue(handbook);

  await expect(editorPage.getByTestId("file-path")).toHaveText("handbook.md");
  await editorPage.getByTestId("file-content-input").fill(handbookEdited);
  await editorPage.getByTestId("save-file").click();
  await expect(editorPage.getByTestId("save-status")).toHaveText("Saved.");

  await editorPage.reload();
  await expect(editorPage.getByTestId("file-content-input")).toHaveValue(handbookEdited);
  const history = editorPage.getByTestId("history-entry");
  await expect(history).toHaveCount(2);
  await expect(history.first()).toContainText("v2");
  await expect(history.first()).toContainText("by Fran Editor");
  await expect(history.first()).toContainText("~ handbook.md");
});

test("a member sees company knowledge read-only and cannot save it", async ({
  editorPage,
  memberPage,
}) => {
  await writeHandbook(editorPage);
  await memberPage.goto("/files?dir=company");
  await expect(memberPage.getByTestId("dir-company").getByTestId("dir-badge")).toHaveText(
    "read-only",
  );
  await expect(memberPage.getByTestId("dir-user").getByTestId("dir-badge")).toHaveText("writable");
  await memberPage.getByTestId("file-link").filter({ hasText: "handbook.md" }).click();
  // Markdown reads rendered; the source is one click away.
  await expect(memberPage.getByTestId("file-rendered").getByRole("heading")).toHaveText("Handbook");
  await memberPage.getByTestId("tab-source").click();
  await expect(memberPage.getByTestId("file-content")).toHaveText(handbookEdited);
  await expect(memberPage.getByTestId("file-editor")).toHaveCount(0);
  await expect(memberPage.getByTestId("save-file")).toHaveCount(0);
  await expect(memberPage.getByTestId("new-file")).toHaveCount(0);

  // The server refuses the action when called directly, whatever the body claims.
  const request = memberPage.context().request;
  for (const args of [
    { path: "handbook.md", content: "overwritten", baseCursor: 2, baseContent: handbookEdited },
    { path: "planted.md", content: "planted", baseCursor: 2, baseContent: null, role: "admin" },
  ]) {
    const response = await callServerAction(request, {
      pagePath: "/files",
      file: "app/(app)/files/actions.ts",
      name: "saveFileAction",
      args: [{ harnessDir: COMPANY, ...args }],
    });
    expect(response.status()).toBe(403);
  }

  await memberPage.reload();
  await memberPage.getByTestId("tab-source").click();
  await expect(memberPage.getByTestId("file-content")).toHaveText(handbookEdited);
  await expect(memberPage.getByTestId("file-link")).toHaveCount(1);
  await editorPage.reload();
  await expect(editorPage.getByTestId("history-entry")).toHaveCount(2);
});

test("a failed commit appears on the failures page and one click retries it", async ({
  editorPage,
  memberPage,
}) => {
  // CAIRN_FAULT_INJECTION=fail-first-commit:fail-me in the e2e server: the first attempt of a
  // change touching a path with "fail-me" fails; a retry succeeds.
  const content = "Kept safe through a failed commit.\n";
  await editorPage.goto("/files?dir=company");
  await createCompanyFile(editorPage, "notes/fail-me.md", content);
  await expect(editorPage.getByTestId("save-status")).toContainText("Saving failed");
  await editorPage.getByTestId("save-failures-link").click();
  await expect(editorPage).toHaveURL(/\/files\/failures$/);

  const row = editorPage.getByTestId("failure-row").filter({ hasText: "notes/fail-me.md" });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("failure-status")).toHaveText("failed");
  await expect(row.getByTestId("failure-error")).toContainText("Injected failure");

  // A member of the workspace sees it too, but may not retry company knowledge.
  await memberPage.goto("/files/failures");
  const memberRow = memberPage.getByTestId("failure-row").filter({ hasText: "notes/fail-me.md" });
  await expect(memberRow.getByTestId("failure-readonly")).toBeVisible();
  await expect(memberRow.getByTestId("retry-commit")).toHaveCount(0);
  const commitId = await row.getAttribute("data-commit-id");
  const refused = await callServerAction(memberPage.context().request, {
    pagePath: "/files/failures",
    file: "app/(app)/files/actions.ts",
    name: "retryCommitAction",
    args: [{ id: commitId }],
  });
  expect(refused.status()).toBe(403);

  await row.getByTestId("retry-commit").click();
  await expect(editorPage.getByTestId("form-info")).toContainText("Committed");
  await expect(row).toHaveCount(0);
  await editorPage.getByTestId("failures-tab-resolved").click();
  await expect(
    editorPage
      .getByTestId("failure-row")
      .filter({ hasText: "notes/fail-me.md" })
      .getByTestId("failure-status"),
  ).toHaveText("resolved: retried");

  await editorPage.goto("/files?dir=company&path=notes%2Ffail-me.md");
  await expect(editorPage.getByTestId("file-content-input")).toHaveValue(content);
  await expect(editorPage.getByTestId("history-entry").first()).toContainText("retry");
});
