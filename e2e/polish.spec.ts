import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";
import { expect, test as base, type Team } from "./support/fixtures";
import { callServerAction, createChat } from "./support/pages";

// Issue 15, items 12, 14 and 15: invites, company knowledge editing, admin and form polish.
// Own people in their own workspace.
const admin = (team: Team) => team.person({ name: "Ada Polish", role: "admin" });
const member = (team: Team) => team.person({ name: "Max Polish", role: "member" });
const COMPANY = "/persistent/company";
const guideV1 = "# Guide\n\nWe write things **down**.\n";
const guideV2 = "# Guide\n\nWe write things **down**.\n\n- Keep it short\n";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const shots = "test-results/screenshots";

/** The admin and the member of the test's workspace, signed in at 1280 px with the clipboard. */
const test = base.extend<{ adminPage: Page; memberPage: Page }>({
  adminPage: async ({ team, signIn }, provide) => {
    await provide(await signIn(admin(team), { viewport: DESKTOP, clipboard: true }));
  },
  memberPage: async ({ team, signIn }, provide) => {
    await provide(await signIn(member(team), { viewport: DESKTOP, clipboard: true }));
  },
});

test.use({ workspaceName: "Polish Co" });

/** The admin saves guide.md as `guideV1`, then (unless `versions` is 1) as `guideV2`. */
async function saveGuide(page: Page, versions: 1 | 2 = 2) {
  await page.goto("/files?dir=company");
  await expect(page.getByTestId("dir-view")).toHaveAttribute("data-dir", COMPANY);
  await page.getByTestId("new-file-path").fill("guide.md");
  await page.getByTestId("file-content-input").fill(guideV1);
  await expect(page.getByTestId("save-file")).toBeEnabled();
  await page.getByTestId("save-file").click();
  await expect(page).toHaveURL(/path=guide\.md/);
  if (versions === 1) return;
  await page.getByTestId("file-content-input").fill(guideV2);
  await page.getByTestId("save-file").click();
  await expect(page.getByTestId("save-status")).toHaveText("Saved.");
}

/** The member's local entry "Coffee order" in their chat "Polish notes" (v1); returns its URL. */
async function createCoffeeEntry(page: Page): Promise<string> {
  const chatId = await createChat(page, "Polish notes");
  await page.goto(`/harness/new?chat=${chatId}`);
  await page.getByLabel("Kind").selectOption("memory");
  await page.getByLabel("Title").fill("Coffee order");
  await page.getByLabel("Content").fill("Max takes it black.");
  await page.getByTestId("save-entry").click();
  await expect(page.getByTestId("entry-saved")).toHaveText("Created.");
  return page.url();
}

test("invites: a for-whom note, a copy button, earlier links kept, open invites listed with revoke", async ({
  adminPage,
}) => {
  const page = adminPage;
  await page.goto("/admin/members");
  await expect(page.getByTestId("no-open-invites")).toBeVisible();
  await page.getByTestId("invite-note").fill("Grace (grace@polish.example)");
  await page.getByTestId("invite-role").selectOption("editor");
  await page.getByTestId("create-invite").click();
  const links = page.getByTestId("new-invite");
  await expect(links).toHaveCount(1);
  await expect(links.first()).toContainText("Grace (grace@polish.example)");
  await expect(links.first()).toContainText("editor");
  const graceLink = await links.first().getByTestId("invite-link").inputValue();
  expect(graceLink).toMatch(/\/sign-up\?invite=[\w-]+$/);
  await links.first().getByTestId("copy-invite-link").click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(graceLink);
  // The note box is empty again for the next one.
  await expect(page.getByTestId("invite-note")).toHaveValue("");

  // A second invite does not replace the first: both links stay on the page, newest first.
  await page.getByTestId("invite-note").fill("Linus");
  await page.getByTestId("create-invite").click();
  await expect(links).toHaveCount(2);
  await expect(links.first()).toContainText("Linus");
  await expect(links.nth(1).getByTestId("invite-link")).toHaveValue(graceLink);

  // After leaving the page the links are gone (only a hash is kept), the invites are listed.
  await page.reload();
  const open = page.getByTestId("open-invite");
  await expect(open).toHaveCount(2);
  await expect(open.first()).toContainText("Linus");
  await expect(open.nth(1)).toContainText("Grace (grace@polish.example)");
  await expect(open.nth(1)).toContainText("editor");
  await expect(open.nth(1)).toContainText("by Ada Polish");

  page.once("dialog", (dialog) => void dialog.accept());
  await open.first().getByTestId("revoke-invite").click();
  await expect(open).toHaveCount(1);
  await expect(open.first()).toContainText("Grace");
});

test("company knowledge: editor with preview and line count, members read rendered markdown", async ({
  adminPage,
  memberPage,
}) => {
  const page = adminPage;
  await page.goto("/files?dir=company");
  await expect(page.getByTestId("dir-view")).toHaveAttribute("data-dir", COMPANY);
  await page.getByTestId("new-file-path").fill("guide.md");
  await page.getByTestId("file-content-input").fill(guideV1);
  await expect(page.getByTestId("editor-stats")).toContainText("4 lines");
  await expect(page.getByTestId("editor-stats")).toContainText("unsaved changes");
  await page.getByTestId("tab-preview").click();
  await expect(
    page.getByTestId("editor-preview").getByRole("heading", { name: "Guide" }),
  ).toBeVisible();
  // Rendered, not raw: the emphasis marks are gone.
  await expect(page.getByTestId("editor-preview").getByRole("paragraph")).toHaveText(
    "We write things down.",
  );
  await page.getByTestId("tab-write").click();
  await expect(page.getByTestId("save-file")).toBeEnabled();
  await page.getByTestId("save-file").click();
  await expect(page).toHaveURL(/path=guide\.md/);

  await page.getByTestId("file-content-input").fill(guideV2);
  // Ctrl+S saves.
  await page.getByTestId("file-content-input").press("Control+s");
  await expect(page.getByTestId("save-status")).toHaveText("Saved.");
  await expect(page.getByTestId("editor-stats")).not.toContainText("unsaved");

  // A member reads it rendered, with the source a click away; no editor.
  await memberPage.goto("/files?dir=company&path=guide.md");
  const rendered = memberPage.getByTestId("file-rendered");
  await expect(rendered.getByRole("heading", { name: "Guide" })).toBeVisible();
  await expect(rendered.getByRole("listitem")).toHaveText("Keep it short");
  await expect(memberPage.getByTestId("file-editor")).toHaveCount(0);
  await memberPage.getByTestId("tab-source").click();
  await expect(memberPage.getByTestId("file-content")).toHaveText(guideV2);
});

test("company knowledge history: a commit's diff, and Restore as a new commit (not for members)", async ({
  adminPage,
  memberPage,
}) => {
  const page = adminPage;
  await saveGuide(page);
  await page.goto("/files?dir=company&path=guide.md");
  const history = page.getByTestId("history-entry");
  await expect(history).toHaveCount(2);
  const newest = page.locator('[data-testid="history-entry"][data-version="2"]');
  await expect(history.first()).toHaveAttribute("data-version", "2");
  await newest.getByTestId("show-commit").click();
  const diff = newest.getByTestId("commit-changes").getByTestId("diff-view");
  await expect(diff).toBeVisible();
  await expect(diff.locator('[data-kind="added"]')).toContainText(["- Keep it short"]);
  // The current version has nothing to restore.
  await expect(newest.getByTestId("restore-commit")).toHaveCount(0);

  const first = page.locator('[data-testid="history-entry"][data-version="1"]');
  await first.getByTestId("show-commit").click();
  await expect(first.getByTestId("commit-file")).toContainText("(created)");
  page.once("dialog", (dialog) => void dialog.accept());
  await first.getByTestId("restore-commit").click();
  await expect(first.getByTestId("form-info")).toContainText("Restored as version 3");
  await expect(history).toHaveCount(3);
  await expect(history.first()).toContainText("restore");
  await expect(history.first()).toContainText("by Ada Polish");
  // The open editor took the restored text (nothing was typed), so a save does not conflict.
  await expect(page.getByTestId("file-content-input")).toHaveValue(guideV1);

  // A member sees the history and the diff, but no Restore, and the server refuses it.
  await memberPage.goto("/files?dir=company");
  await expect(memberPage.getByTestId("history-entry")).toHaveCount(3);
  await expect(memberPage.getByTestId("restore-commit")).toHaveCount(0);
  const commitId = (await page.getByTestId("history-entry").nth(2).getAttribute("id"))!.slice(
    "commit-".length,
  );
  const response = await callServerAction(memberPage.context().request, {
    pagePath: "/files",
    file: "app/(app)/files/actions.ts",
    name: "restoreCommitAction",
    args: [{ harnessDir: COMPANY, id: commitId }],
  });
  expect(response.status()).toBe(403);
});

test("a conflict shows the two versions as a highlighted diff", async ({
  adminPage,
  team,
  signIn,
}) => {
  const page = adminPage;
  await saveGuide(page, 1);
  await page.goto("/files?dir=company&path=guide.md");
  await expect(page.getByTestId("file-content-input")).toHaveValue(guideV1);
  // Someone else saves first, in another session.
  const other = await signIn(admin(team), { viewport: DESKTOP, clipboard: true });
  await other.goto("/files?dir=company&path=guide.md");
  await other.getByTestId("file-content-input").fill("# Guide\n\nWe write things up.\n");
  await other.getByTestId("save-file").click();
  await expect(other.getByTestId("save-status")).toHaveText("Saved.");
  await other.context().close();

  await page.getByTestId("file-content-input").fill("# Guide\n\nWe write things down, always.\n");
  await page.getByTestId("save-file").click();
  await expect(page.getByTestId("save-status")).toContainText("Conflict.");
  await page.getByTestId("save-failures-link").click();
  const conflict = page.getByTestId("conflict").filter({ hasText: "guide.md" });
  const diff = conflict.getByTestId("conflict-diff");
  await expect(diff.locator('[data-kind="removed"]')).toContainText(["We write things up."]);
  await expect(diff.locator('[data-kind="added"]')).toContainText([
    "We write things down, always.",
  ]);
});

test("entries: kind and scope fixed once created, a saved notice, and an author column", async ({
  memberPage,
}) => {
  const page = memberPage;
  await createCoffeeEntry(page);

  // No kind or scope controls on an existing entry: they read as fixed text.
  await expect(page.getByLabel("Kind")).toHaveCount(0);
  await expect(page.getByLabel("Scope")).toHaveCount(0);
  await expect(page.getByTestId("entry-kind-fixed")).toHaveText("Memory");
  await expect(page.getByTestId("entry-scope-fixed")).toHaveText("Local — Polish notes");

  await page.getByLabel("Content").fill("Max takes it black, no sugar.");
  await page.getByTestId("save-entry").click();
  await expect(page.getByTestId("entry-saved")).toHaveText("Saved as v2.");
  await expect(page.getByTestId("entry-version")).toHaveText("v2");
  await expect(page.getByTestId("history-author")).toHaveText(["you", "you"]);
});

test("admin settings: what each setting does, and the configured model without its key", async ({
  adminPage,
}) => {
  const page = adminPage;
  await page.goto("/admin/settings");
  await expect(page.getByTestId("settings-form")).toContainText("0 turns automatic reviews off");
  await expect(page.getByTestId("settings-form")).toContainText("waits on the Refinements page");
  const model = page.getByTestId("model-overview");
  await expect(model.getByTestId("model-chat-model")).toHaveText("scripted-model");
  await expect(model.getByTestId("model-provider")).toHaveText(
    "OpenAI-compatible server (the server's AI_* variables)",
  );
  await expect(model.getByTestId("model-api-key")).toHaveText("set (not shown)");
  await expect(model.getByTestId("model-endpoint")).toContainText("/v1");
  expect(await page.content()).not.toContain("e2e-not-a-secret");
  // The sub-navigation marks where we are.
  await expect(page.getByTestId("admin-settings-link")).toHaveAttribute("aria-current", "page");
  await page.getByTestId("save-settings").click();
  await expect(page.getByTestId("form-info")).toHaveText("Saved.");
});

test("dir limits per workspace: above the server's is refused, a lower one holds in Files", async ({
  adminPage,
}) => {
  const page = adminPage;
  await saveGuide(page, 1);
  await page.goto("/admin/settings");
  const limits = page.getByTestId("dir-limits");
  // The e2e server allows 1 MiB per file (CAIRN_DIR_MAX_FILE_BYTES): 2 MiB is refused.
  await limits.getByTestId("limit-companyMaxFileBytes").fill(String(2 * 1024 * 1024));
  await expect(limits).toContainText("2 MiB.");
  await page.getByTestId("save-settings").click();
  await expect(page.getByTestId("settings-form")).toContainText("CAIRN_DIR_MAX_FILE_BYTES");
  await limits.getByTestId("limit-companyMaxFileBytes").fill(String(512 * 1024));
  await limits.getByTestId("limit-companyMaxFiles").fill("1");
  await page.getByTestId("save-settings").click();
  await expect(page.getByTestId("form-info")).toHaveText("Saved.");
  await page.reload();
  await expect(page.getByTestId("limit-companyMaxFiles")).toHaveValue("1");
  // Company knowledge holds guide.md: a second file passes the workspace's limit of one.
  await page.goto("/files?dir=company");
  // The editor and the upload panel state the workspace's limit per file, not the server's.
  await expect(page.getByTestId("editor-stats")).toContainText("of 512 KiB");
  await expect(page.getByTestId("upload-panel")).toContainText("up to 512 KiB each");
  await page.getByTestId("new-file-path").fill("second.md");
  await page.getByTestId("file-content-input").fill("# Second\n");
  await page.getByTestId("save-file").click();
  await expect(page.getByTestId("save-status")).toContainText("the limit is 1 file");
  // Changing the file it holds is still allowed.
  await page.goto("/files?dir=company&path=guide.md");
  await page.getByTestId("file-content-input").fill(guideV2);
  await page.getByTestId("save-file").click();
  await expect(page.getByTestId("save-status")).toHaveText("Saved.");
});

test("screenshots of the changed pages at 1280 and 390 px, light and dark; nothing scrolls sideways", async ({
  adminPage,
  memberPage,
  team,
  signIn,
}) => {
  test.setTimeout(240_000);
  mkdirSync(shots, { recursive: true });
  const [adminPerson, memberPerson] = [admin(team), member(team)];
  await saveGuide(adminPage);
  const entryUrl = await createCoffeeEntry(memberPage);
  await adminPage.goto("/files?dir=company");
  const firstCommit = (await adminPage
    .getByTestId("history-entry")
    .last()
    .getAttribute("id"))!.slice("commit-".length);
  const views: [string, typeof adminPerson, string][] = [
    ["members", adminPerson, "/admin/members"],
    ["settings", adminPerson, "/admin/settings"],
    ["files-editor", adminPerson, "/files?dir=company&path=guide.md"],
    [
      "files-history-diff",
      adminPerson,
      `/files?dir=company&commit=${firstCommit}#commit-${firstCommit}`,
    ],
    ["files-failures", adminPerson, "/files/failures"],
    ["files-member-rendered", memberPerson, "/files?dir=company&path=guide.md"],
    ["entry", memberPerson, entryUrl],
  ];
  for (const scheme of ["light", "dark"] as const) {
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      for (const person of [adminPerson, memberPerson]) {
        const page = await signIn(person, { viewport, clipboard: true });
        await page.emulateMedia({ colorScheme: scheme });
        for (const [name, who, path] of views) {
          if (who !== person) continue;
          await page.goto(path);
          await page.waitForLoadState("networkidle");
          await page.screenshot({
            path: `${shots}/polish-${size}-${scheme}-${name}.png`,
            fullPage: true,
          });
          if (size === "phone") {
            const [scrollWidth, innerWidth] = await page.evaluate(() => [
              document.documentElement.scrollWidth,
              window.innerWidth,
            ]);
            expect
              .soft(scrollWidth, `${path} scrolls sideways at 390 px`)
              .toBeLessThanOrEqual(innerWidth);
          }
        }
        await page.context().close();
      }
    }
  }
});
