import { createHash } from "node:crypto";
import { opendir, readFile, stat } from "node:fs/promises";
import path from "node:path";

import type { CairnConfig } from "@/lib/config";
import { HarnessValidationError, validateRelativePath, type ChangedFile } from "@/lib/harness";
import { convertDocument, DocumentRefusedError } from "@/lib/documents";
import { indexDirCommit } from "@/lib/search";
import { createDirBacking, listDirFiles } from "@/lib/sql-storage";
import { getWorkspaceDirLimits, workspaceDirLimits } from "@/lib/workspace-settings";
import { parseDirFolderArgs } from "./dir-folder-args";
import type { CommandIo } from "./command";
import { openDirTarget } from "./dir-target";

export const DIR_IMPORT_USAGE =
  "cairn dir import <folder> --workspace W --dir company|user [--email E] [--prefix PATH]";

const files = (count: number) => `${count} ${count === 1 ? "file" : "files"}`;

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Documents converted on import, as uploads are (issue 25, the same `convertDocument`): the
 * original is kept and its Markdown written beside it (`report.pdf` + `report.pdf.md`).
 * Markdown and plain text are imported as they are.
 */
const CONVERTED = new Set(["pdf", "docx", "xlsx", "html", "htm", "csv"]);
/** Converted types whose original is text (kept as text, not bytes). */
const TEXT_ORIGINALS = new Set(["html", "htm", "csv"]);

/**
 * One import commits in parts of at most this many files or bytes, each its own commit (history
 * source `import`): memory stays bounded by a part, not by the folder, and an interrupted import
 * keeps the parts that landed (running it again skips them).
 */
export const IMPORT_PART_FILES = 2_000;
export const IMPORT_PART_BYTES = 32 * 1024 * 1024;

function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Every regular file under `root`, as paths relative to it, streamed as the folder is read. */
async function* walk(root: string, relative = ""): AsyncGenerator<string> {
  const folder = await opendir(path.join(root, relative));
  for await (const entry of folder) {
    const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) yield* walk(root, child);
    else if (entry.isFile()) yield child;
  }
}

/**
 * `cairn dir import <folder> --workspace W --dir company|user [--email E] [--prefix PATH]`
 * (issue 23, item 6): imports a folder tree of text files into workspace W's company knowledge
 * or person E's memory (history source `import`, via `import`), streaming: one commit per part of
 * `IMPORT_PART_FILES` files or `IMPORT_PART_BYTES` bytes, so a knowledge base of any size never
 * sits in memory whole and an interruption keeps the parts that landed. PDF, Word, Excel,
 * HTML and CSV files are converted to Markdown beside their kept original, as uploads are (issue
 * 25, item 5); a document the converter refuses is skipped with its reason. Files already in
 * the dir with the same content are skipped, so running it again after an interruption imports
 * only the rest; binary files, files over the per-file limit and paths the dir cannot hold are
 * listed as skipped with the reason. Prints a progress line while it reads. Returns 0, or 1 when
 * the workspace or person does not exist, the dir's limits would be passed, or the dir changed
 * during the import (run it again).
 */
export async function dirImportCommand(
  args: string[],
  io: CommandIo,
  config: CairnConfig,
  /** `searchIndex: false` (benchmarks only): the import without its search indexing, to measure its share. */
  options: { searchIndex?: boolean } = {},
): Promise<number> {
  const { root, target: dirTarget, prefix } = parseDirFolderArgs(args, DIR_IMPORT_USAGE);
  if (!(await stat(root).catch(() => null))?.isDirectory()) {
    io.err(`cairn: ${root} is not a folder`);
    return 1;
  }

  const resolved = await openDirTarget(config, dirTarget, io);
  if (!resolved) return 1;
  const { sql, workspace, dirKey, harnessDir } = resolved;
  // The workspace's limits (Admin → Settings → Dir limits) within the server's, as for a turn.
  const limits = workspaceDirLimits({
    saved: await getWorkspaceDirLimits(sql, workspace.id),
    kind: dirTarget.dir === "company" ? "company" : "memory",
    server: config.dirLimits,
  });
  const existing = await listDirFiles({ sql, dirKey });
  const present = new Map(existing.files.map((file) => [file.path, file]));

  // A first walk, by size only: nothing is imported when the dir's limits would be passed (a
  // converted document counts twice: its original and its Markdown, estimated the same size).
  let plannedFiles = existing.files.length;
  let plannedBytes = existing.files.reduce((sum, file) => sum + file.size, 0);
  for await (const relative of walk(root)) {
    const filePath = prefix ? `${prefix}/${relative}` : relative;
    const size = (await stat(path.join(root, relative))).size;
    if (size > limits.maxFileBytes) continue;
    const converted = CONVERTED.has(path.extname(filePath).slice(1).toLowerCase());
    for (const candidate of converted ? [filePath, `${filePath}.md`] : [filePath]) {
      const before = present.get(candidate);
      if (!before) plannedFiles += 1;
      plannedBytes += size - (before?.size ?? 0);
    }
  }
  if (plannedFiles > limits.maxFiles || plannedBytes > limits.maxDirBytes) {
    io.err(
      `cairn: nothing imported: ${harnessDir} would hold ${files(plannedFiles)} and ${plannedBytes} bytes; ` +
        `its limits are ${files(limits.maxFiles)} and ${limits.maxDirBytes} bytes (the workspace's, ` +
        `Admin → Settings → Dir limits, within CAIRN_DIR_MAX_FILES and CAIRN_DIR_MAX_BYTES).`,
    );
    return 1;
  }

  const backing = createDirBacking<null>({
    sql,
    dirKey: () => dirKey,
    source: "import",
    via: () => `import:${path.basename(root)}`,
    snapshotCache: false,
    indexCache: false,
    // Searchable from the moment it lands, as every other commit (lib/search).
    onDirCommitted: options.searchIndex === false ? undefined : indexDirCommit,
  });
  let version = existing.version;
  let parts = 0;
  let createdCount = 0;
  let updatedCount = 0;
  let created: ChangedFile[] = [];
  let updated: ChangedFile[] = [];
  let partBytes = 0;
  const skipped: { path: string; reason: string }[] = [];
  let unchanged = 0;
  let converted = 0;
  let seen = 0;
  /** Paths this import writes, so a converted file's Markdown never collides with a file. */
  const writing = new Set<string>();
  /** Commits the part read so far; false when the dir changed under the import. */
  const commitPart = async (): Promise<boolean> => {
    if (created.length + updated.length === 0) return true;
    const result = await backing.store({
      extraBody: null,
      session: null,
      harnessDir,
      cursor: version,
      changes: { created, updated, deleted: [] },
    });
    if (result.status !== "stored") return false;
    version = Number(result.cursor);
    parts += 1;
    createdCount += created.length;
    updatedCount += updated.length;
    created = [];
    updated = [];
    partBytes = 0;
    return true;
  };
  const add = (filePath: string, content: ChangedFile["content"], bytes: number) => {
    const before = present.get(filePath);
    (before ? updated : created).push({ path: filePath, content });
    writing.add(filePath);
    partBytes += bytes;
  };
  const progress = () =>
    io.err(
      `cairn: read ${seen.toLocaleString("en-US")} files: ${(createdCount + updatedCount + created.length + updated.length).toLocaleString("en-US")} to import, ${unchanged.toLocaleString("en-US")} already there, ${skipped.length.toLocaleString("en-US")} skipped`,
    );
  const changedDuringImport = () => {
    io.err(
      `cairn: ${harnessDir} changed during the import; ${createdCount + updatedCount} files in ${parts} part(s) were imported, run it again for the rest.`,
    );
    return 1;
  };
  for await (const relative of walk(root)) {
    seen += 1;
    if (seen % 1000 === 0) progress();
    if (
      (created.length + updated.length >= IMPORT_PART_FILES || partBytes >= IMPORT_PART_BYTES) &&
      !(await commitPart())
    )
      return changedDuringImport();
    let filePath: string;
    try {
      filePath = validateRelativePath({ path: prefix ? `${prefix}/${relative}` : relative });
    } catch (error) {
      const reason = HarnessValidationError.isInstance(error) ? error.message : String(error);
      skipped.push({ path: relative, reason: `not a path a dir can hold: ${reason}` });
      continue;
    }
    const size = (await stat(path.join(root, relative))).size;
    if (size > limits.maxFileBytes) {
      skipped.push({
        path: filePath,
        reason: `${size} bytes, over the per-file limit of ${limits.maxFileBytes} (the workspace's, within CAIRN_DIR_MAX_FILE_BYTES)`,
      });
      continue;
    }
    const bytes = await readFile(path.join(root, relative));
    if (writing.has(filePath)) {
      skipped.push({
        path: filePath,
        reason: "written already by this import (a converted document's Markdown)",
      });
      continue;
    }
    const extension = path.extname(filePath).slice(1).toLowerCase();
    if (CONVERTED.has(extension)) {
      const markdownPath = `${filePath}.md`;
      const before = present.get(filePath);
      if (before && before.sha256 === sha256Of(bytes) && present.has(markdownPath)) {
        unchanged += 1;
        continue;
      }
      let markdown: string;
      try {
        markdown = (
          await convertDocument({
            name: filePath,
            bytes,
            limits: { maxFileBytes: limits.maxFileBytes },
          })
        ).markdown;
      } catch (error) {
        if (!DocumentRefusedError.isInstance(error)) throw error;
        skipped.push({ path: filePath, reason: error.message });
        continue;
      }
      add(
        filePath,
        TEXT_ORIGINALS.has(extension) ? new TextDecoder().decode(bytes) : new Uint8Array(bytes),
        bytes.byteLength,
      );
      add(markdownPath, markdown, Buffer.byteLength(markdown));
      converted += 1;
      continue;
    }
    let text: string;
    try {
      if (bytes.includes(0)) throw new Error("NUL");
      text = fatalUtf8.decode(bytes);
    } catch {
      skipped.push({ path: filePath, reason: "binary (not UTF-8 text)" });
      continue;
    }
    const before = present.get(filePath);
    if (before && before.isText && before.sha256 === sha256Of(bytes)) {
      unchanged += 1;
      continue;
    }
    add(filePath, text, bytes.byteLength);
  }
  if (!(await commitPart())) return changedDuringImport();
  progress();
  io.out(
    `imported into ${harnessDir} of "${workspace.name}": ${createdCount} new, ${updatedCount} changed, ` +
      `${unchanged} already there, ${skipped.length} skipped (version ${version}` +
      `${parts > 1 ? `, in ${parts} commits` : ""})` +
      (converted > 0
        ? `; ${converted} documents converted to Markdown beside their originals`
        : ""),
  );
  for (const entry of skipped.slice(0, 100)) io.out(`  skipped ${entry.path}: ${entry.reason}`);
  if (skipped.length > 100) io.out(`  … and ${skipped.length - 100} more skipped`);
  return 0;
}
