import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, makeTeam, test as base, workerTag, type TeamPerson } from "./support/fixtures";
import { E2E_DATABASE_URL } from "./support/users";

// Issue 23: /files over a company knowledge base of 10,000 files. The dir is seeded with the
// app's own bulk import (`cairn dir import`) into a workspace of its own; the page must list
// it a folder at a time, find a file by path on the server, and open, edit and save it with its
// history. Behaviour only: no timings are asserted.

const workspaceName = "Files Scale Co";
const FILES = 10_000;
/** `cairn dir import` commits 2,000 files per part (IMPORT_PART_FILES). */
const IMPORT_PARTS = FILES / 2_000;
/** 10 areas × 4 topics × 250 notes: a topic holds more than one page (200) of files. */
const pathOf = (n: number) => {
  const area = String(Math.floor(n / 1000)).padStart(2, "0");
  const topic = String(Math.floor((n % 1000) / 250)).padStart(2, "0");
  return `area-${area}/topic-${topic}/note-${String(n).padStart(4, "0")}.md`;
};
const bodyOf = (n: number) => `# Note ${n}\n\nSeeded for the scale test.\n`;
const target = 4321;
const targetPath = pathOf(target); // area-04/topic-01/note-4321.md
const edited = `${bodyOf(target)}Reviewed in the browser.\n`;

/** The Files page as these tests drive it. */
class FilesPage {
  constructor(readonly page: Page) {}

  tree() {
    return this.page.getByTestId("file-tree");
  }

  folder(folderPath: string) {
    return this.page.locator(`[data-testid="folder-toggle"][data-path="${folderPath}"]`);
  }

  file(filePath: string) {
    return this.page.locator(`[data-testid="file-link"][data-path="${filePath}"]`);
  }

  async filter(text: string) {
    await this.page.getByTestId("file-filter").fill(text);
    await this.page.getByTestId("file-filter").press("Enter");
  }
}

/** Writes the files `n → contentOf(n)` under `folder`. */
function writeFiles(folder: string, numbers: Iterable<number>, contentOf: (n: number) => string) {
  for (const n of numbers) {
    const file = path.join(folder, pathOf(n));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, contentOf(n));
  }
}

/** `cairn dir import` of `folder` into the company dir of `workspace`; returns what it printed. */
function importDir(folder: string, workspace: string): string {
  return execFileSync(
    process.execPath,
    ["bin/cairn.mjs", "dir", "import", folder, "--workspace", workspace, "--dir", "company"],
    {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: E2E_DATABASE_URL },
      stdio: "pipe",
      encoding: "utf8",
    },
  );
}

/** A workspace whose company dir holds the 10,000 files, an editor of it, and the files' folder. */
interface KnowledgeBase {
  workspace: string;
  editor: TeamPerson;
  folder: string;
}

const test = base.extend<
  { files: FilesPage; freshFiles: FilesPage },
  { knowledgeBase: KnowledgeBase }
>({
  /**
   * Seeded once per worker, and no test changes it: the 10,000 files written to a folder (kept
   * for `freshFiles`) and imported, then the target file changed as the edit test leaves it
   * (imported again, alone), for the screenshots.
   */
  knowledgeBase: [
    async ({}, provide, workerInfo) => {
      const seedRoot = mkdtempSync(path.join(tmpdir(), "cairn-files-scale-"));
      const folder = path.join(seedRoot, "knowledge");
      writeFiles(
        folder,
        Array.from({ length: FILES }, (_, n) => n),
        bodyOf,
      );
      const tag = workerTag(workerInfo);
      const team = makeTeam(`${workspaceName} ${tag}`, tag);
      const editor = team.person({ name: "Sasha Scale", role: "editor" });
      expect(importDir(folder, team.name)).toContain(`${FILES} new`);
      const change = path.join(seedRoot, "edited");
      writeFiles(change, [target], () => edited);
      expect(importDir(change, team.name)).toContain("1 changed");
      await provide({ workspace: team.name, editor, folder });
      rmSync(seedRoot, { recursive: true, force: true });
    },
    { scope: "worker", timeout: 180_000 },
  ],
  /** The shared knowledge base's Files page, signed in as its editor. */
  files: async ({ knowledgeBase, signIn }, provide) => {
    await provide(new FilesPage(await signIn(knowledgeBase.editor)));
  },
  /**
   * The Files page of a knowledge base of this test's own, just imported (its history holds the
   * import and nothing else), signed in as its editor.
   */
  freshFiles: [
    async ({ knowledgeBase, team, signIn }, provide) => {
      const editor = team.person({ name: "Sasha Scale", role: "editor" });
      expect(importDir(knowledgeBase.folder, team.name)).toContain(`${FILES} new`);
      await provide(new FilesPage(await signIn(editor)));
    },
    { timeout: 120_000 },
  ],
});

test.use({ workspaceName });

test("the tree lists 10,000 files a folder at a time, with counts per folder", async ({
  files,
}) => {
  const { page } = files;
  await page.goto("/files?dir=company");
  await expect(page.getByTestId("file-count")).toHaveText("10,000 files");
  // The top level: ten folders of 1,000 files each, and not one file link rendered yet.
  await expect(page.getByTestId("folder-toggle")).toHaveCount(10);
  await expect(files.folder("area-04").getByTestId("folder-count")).toHaveText("1,000");
  await expect(files.tree().getByTestId("file-link")).toHaveCount(0);

  // Opening a folder fetches it from the server; a folder of 250 files shows a page of 200.
  await files.folder("area-04").click();
  await expect(files.folder("area-04")).toHaveAttribute("aria-expanded", "true");
  await expect(files.folder("area-04/topic-01").getByTestId("folder-count")).toHaveText("250");
  await files.folder("area-04/topic-01").click();
  await expect(page.getByTestId("file-link")).toHaveCount(200);
  const more = page.locator('[data-testid="show-more-files"][data-folder="area-04/topic-01"]');
  await expect(more).toHaveText("Show more (50 more)");
  await more.click();
  await expect(page.getByTestId("file-link")).toHaveCount(250);
  await expect(more).toHaveCount(0);
  await expect(files.file("area-04/topic-01/note-4499.md")).toBeVisible();

  // Collapsing hides the folder's files again.
  await files.folder("area-04").click();
  await expect(page.getByTestId("file-link")).toHaveCount(0);
});

test("filter by path narrows the list on the server and survives a reload", async ({ files }) => {
  const { page } = files;
  await page.goto("/files?dir=company");
  await files.filter("topic-03");
  await expect(page).toHaveURL(/q=topic-03/);
  await expect(page.getByTestId("file-count")).toHaveText("2,500 of 10,000 match");
  await expect(page.getByTestId("file-link")).toHaveCount(200);
  await expect(page.getByTestId("show-more-files")).toHaveText("Show more (2,300 more)");

  // Every word must match, in any case.
  await files.filter("AREA-04 note-4321");
  await expect(page).toHaveURL(/q=AREA-04\+note-4321/);
  await expect(page.getByTestId("file-count")).toHaveText("1 of 10,000 match");
  await expect(page.getByTestId("file-link")).toHaveCount(1);
  await expect(files.file(targetPath)).toHaveText(targetPath);

  await page.reload();
  await expect(page.getByTestId("file-filter")).toHaveValue("AREA-04 note-4321");
  await expect(page.getByTestId("file-link")).toHaveCount(1);

  await files.filter("no-such-note");
  await expect(page.getByTestId("file-tree-empty")).toHaveText(
    "No file's path matches that filter.",
  );
});

test("a file found by path opens, is edited and saved, and the edit is in its history", async ({
  freshFiles: files,
}) => {
  const { page } = files;
  await page.goto("/files?dir=company");
  await files.filter("note-4321");
  await expect(page.getByTestId("file-link")).toHaveCount(1);
  await files.file(targetPath).click();
  await expect(page).toHaveURL(/path=area-04%2Ftopic-01%2Fnote-4321\.md/);
  await expect(page).toHaveURL(/q=note-4321/);
  await expect(page.getByTestId("file-path")).toHaveText(targetPath);
  await expect(page.getByTestId("file-content-input")).toHaveValue(bodyOf(target));

  // The history starts with the bulk import — one commit per 2,000 files (`cairn dir import`
  // streams in parts) — each naming a few of its files, not all of them.
  const history = page.getByTestId("history-entry");
  await expect(history).toHaveCount(IMPORT_PARTS);
  await expect(history.first()).toContainText("bulk import");
  await expect(history.first().getByTestId("history-more-paths")).toHaveText(
    "… and 1,988 more files",
  );

  await page.getByTestId("file-content-input").fill(edited);
  await expect(page.getByTestId("save-file")).toBeEnabled();
  await page.getByTestId("save-file").click();
  await expect(page.getByTestId("save-status")).toHaveText("Saved.");
  await expect(history).toHaveCount(IMPORT_PARTS + 1);
  await expect(history.first()).toContainText(`v${IMPORT_PARTS + 1}`);
  await expect(history.first()).toContainText("edited by hand");
  await expect(history.first()).toContainText("by Sasha Scale");
  await expect(history.first()).toContainText(`~ ${targetPath}`);

  // The change itself, as a diff in the history.
  await history.first().getByTestId("show-commit").click();
  const change = page.locator(`[data-testid="commit-file"][data-path="${targetPath}"]`);
  await expect(change).toContainText("Reviewed in the browser.");

  // Opened without the filter, the tree opens the file's folders to show where it sits.
  await page.goto(`/files?dir=company&path=${encodeURIComponent(targetPath)}`);
  await expect(page.getByTestId("file-content-input")).toHaveValue(edited);
  await expect(files.folder("area-04")).toHaveAttribute("aria-expanded", "true");
  await expect(files.folder("area-04/topic-01")).toHaveAttribute("aria-expanded", "true");
  await expect(files.file(targetPath)).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("file-count")).toHaveText("10,000 files");

  // A file past its folder's first page of 200 is still shown where it sits, before Show more.
  const late = pathOf(4499);
  await page.goto(`/files?dir=company&path=${encodeURIComponent(late)}`);
  await expect(page.getByTestId("file-path")).toHaveText(late);
  await expect(files.file(late)).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("file-link")).toHaveCount(201);
});

test("screenshots at desktop and phone width, light and dark", async ({
  knowledgeBase,
  signIn,
}) => {
  const shots = "test-results/screenshots";
  mkdirSync(shots, { recursive: true });
  const url = `/files?dir=company&path=${encodeURIComponent(targetPath)}`;
  for (const [device, viewport] of [
    ["desktop", { width: 1280, height: 900 }],
    ["phone", { width: 390, height: 844 }],
  ] as const) {
    for (const scheme of ["light", "dark"] as const) {
      const shot = await signIn(knowledgeBase.editor, { viewport, colorScheme: scheme });
      await shot.goto(url);
      await expect(shot.getByTestId("file-content-input")).toHaveValue(edited);
      await shot.screenshot({
        path: `${shots}/files-scale-${device}-${scheme}.png`,
        fullPage: true,
      });
      await shot.goto("/files?dir=company&q=topic-03");
      await expect(shot.getByTestId("file-count")).toHaveText("2,500 of 10,000 match");
      await shot.screenshot({ path: `${shots}/files-scale-filter-${device}-${scheme}.png` });
      // Nothing scrolls sideways at phone width.
      const [scrollWidth, innerWidth] = await shot.evaluate(() => [
        document.documentElement.scrollWidth,
        window.innerWidth,
      ]);
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      await shot.context().close();
    }
  }
});
