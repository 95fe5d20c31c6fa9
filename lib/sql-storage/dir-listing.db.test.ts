import { randomUUID } from "node:crypto";

import { beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { createDirBacking } from "./dir-backing";
import {
  listDirPage,
  MAX_DIR_LISTING_FOLDERS,
  pageFiles,
  type DirListingOptions,
} from "./dir-listing";
import { sqlFor, type Sql } from "./sql";

const database = registerTestDatabase();
let sql: Sql;

/** A dir's paths: top-level files, nested folders, names with LIKE's wildcards. */
const paths = [
  "README.md",
  "index.md",
  "notes/a.md",
  "notes/b.md",
  "notes/2024/jan.md",
  "notes/2024/feb.md",
  "notes/2025/deep/er/x.txt",
  "policies/Travel_Policy.md",
  "policies/travel%20expenses.md",
  "policies/under_score.md",
  "runbooks/db/restore.md",
  // Beside a folder, names that sort just before and after its "notes/" prefix.
  "notes.md",
  "notes-old/y.md",
  "notes0/z.md",
  ...Array.from({ length: 57 }, (_, index) => `bulk/file-${String(index).padStart(3, "0")}.md`),
];

async function seed(dirKey: string, files: string[]): Promise<void> {
  const backing = createDirBacking<null>({ sql, dirKey: () => dirKey, snapshotCache: false });
  const result = await backing.store({
    extraBody: null,
    session: null,
    harnessDir: "/persistent/test",
    cursor: 0,
    snapshot: {},
    changes: {
      created: files.map((path) => ({ path, content: `# ${path}\n` })),
      updated: [],
      deleted: [],
    },
  });
  expect(result.status).toBe("stored");
}

/** Every page of a listing, following `nextAfter`. */
async function allPages(dirKey: string, options: DirListingOptions) {
  const pages = [await listDirPage({ sql, dirKey, ...options })];
  while (pages.at(-1)!.nextAfter !== null) {
    pages.push(await listDirPage({ sql, dirKey, ...options, after: pages.at(-1)!.nextAfter }));
  }
  return pages;
}

describe(`a dir's listing, a page at a time (${testDatabaseProvider()})`, () => {
  const dirKey = `listing:${randomUUID()}`;
  const reference = paths.map((path) => ({ path }));

  beforeAll(async () => {
    sql = sqlFor(database.target);
    await seed(dirKey, paths);
  });

  it.each<DirListingOptions>([
    {},
    { folder: "notes" },
    { folder: "notes0" },
    { folder: "notes/2025" },
    { folder: "bulk", limit: 10 },
    { filter: "travel" },
    { filter: "NOTES 2024" },
    { filter: "%" },
    { filter: "_policy" },
    { filter: "r_s" },
    { filter: "file-05", limit: 3 },
    { folder: "policies", filter: "md" },
    { folder: "nowhere" },
  ])("lists %j as the in-memory reference does", async (options) => {
    const pages = await allPages(dirKey, options);
    const expected: ReturnType<typeof pageFiles>[] = [pageFiles(reference, options)];
    while (expected.at(-1)!.nextAfter !== null) {
      expected.push(pageFiles(reference, { ...options, after: expected.at(-1)!.nextAfter }));
    }
    expect(pages.map((page) => page.files.map((file) => file.path))).toEqual(
      expected.map((page) => page.files.map((file) => file.path)),
    );
    for (const [index, page] of pages.entries()) {
      const { files: _files, ...rest } = expected[index]!;
      const { files: _ours, version, ...ours } = page;
      expect(ours).toEqual(rest);
      expect(version).toBe(1);
    }
  });

  it("names each folder with the files under it, at any depth", async () => {
    const top = await listDirPage({ sql, dirKey });
    expect(top.folders).toEqual([
      { path: "bulk", name: "bulk", fileCount: 57 },
      { path: "notes", name: "notes", fileCount: 5 },
      { path: "notes-old", name: "notes-old", fileCount: 1 },
      { path: "notes0", name: "notes0", fileCount: 1 },
      { path: "policies", name: "policies", fileCount: 3 },
      { path: "runbooks", name: "runbooks", fileCount: 1 },
    ]);
    expect(top.files.map((file) => file.path)).toEqual(["README.md", "index.md", "notes.md"]);
    expect(top).toMatchObject({ totalFiles: paths.length, fileCount: 3, nextAfter: null });
    const notes = await listDirPage({ sql, dirKey, folder: "notes" });
    expect(notes.files.map((file) => file.path)).toEqual(["notes/a.md", "notes/b.md"]);
    expect(notes).toMatchObject({ totalFiles: 5, fileCount: 2 });
    expect(top.files[0]).toMatchObject({ size: Buffer.byteLength("# README.md\n"), isText: true });
  });

  it("pages a folder's files with nextAfter, and a filter narrows the whole dir", async () => {
    const first = await listDirPage({ sql, dirKey, folder: "bulk", limit: 20 });
    expect(first.files).toHaveLength(20);
    expect(first.fileCount).toBe(57);
    const second = await listDirPage({
      sql,
      dirKey,
      folder: "bulk",
      limit: 20,
      after: first.nextAfter,
    });
    expect(second.folders).toEqual([]);
    expect(second.files[0]!.path).toBe("bulk/file-020.md");

    const matches = await listDirPage({ sql, dirKey, filter: "travel" });
    expect(matches.files.map((file) => file.path)).toEqual([
      "policies/Travel_Policy.md",
      "policies/travel%20expenses.md",
    ]);
    expect(matches).toMatchObject({ folders: [], fileCount: 2, totalFiles: paths.length });
  });

  it("names at most MAX_DIR_LISTING_FOLDERS subfolders and still counts every file", async () => {
    const wide = `listing:${randomUUID()}`;
    await seed(wide, [
      "top.md",
      ...Array.from({ length: MAX_DIR_LISTING_FOLDERS + 1 }, (_, index) => `f${index}/x.md`),
    ]);
    const page = await listDirPage({ sql, dirKey: wide });
    expect(page.folders).toHaveLength(MAX_DIR_LISTING_FOLDERS);
    expect(page).toMatchObject({
      foldersTruncated: true,
      fileCount: 1,
      totalFiles: MAX_DIR_LISTING_FOLDERS + 2,
    });
    expect(page.files.map((file) => file.path)).toEqual(["top.md"]);
  });

  it("refuses a folder that is not a relative path", async () => {
    await expect(listDirPage({ sql, dirKey, folder: "../etc" })).rejects.toThrow();
  });

  it("an empty or unknown dir lists nothing at version 0", async () => {
    const empty = await listDirPage({ sql, dirKey: `listing:${randomUUID()}` });
    expect(empty).toMatchObject({ version: 0, files: [], folders: [], totalFiles: 0 });
  });
});
