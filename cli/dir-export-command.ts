import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";

import { createDirBacking } from "@/lib/sql-storage";
import { parseDirFolderArgs } from "./dir-folder-args";
import type { Command } from "./command";
import { openDirTarget } from "./dir-target";

export const DIR_EXPORT_USAGE =
  "cairn dir export <folder> --workspace W --dir company|user [--email E] [--prefix PATH]";

/** Bodies read per batch: bounded memory whatever the dir holds. */
export const EXPORT_BATCH_FILES = 500;

/**
 * `cairn dir export <folder> --workspace W --dir company|user [--email E] [--prefix PATH]`: writes
 * workspace W's company knowledge (or person E's memory) as it is at one version into `folder`,
 * byte for byte — the counterpart of `cairn dir import`, so a dir round-trips through a folder.
 * With `--prefix`, only the files under that folder of the dir, the prefix left out (as import
 * adds it). The index is read once (one version, even while commits land) and the bodies in
 * batches of `EXPORT_BATCH_FILES`. `folder` must be new or empty: nothing is overwritten.
 * Returns 0, or 1 when the workspace or person does not exist or the folder is not empty.
 */
export const dirExportCommand: Command = async (args, io, config) => {
  const parsed = parseDirFolderArgs(args, DIR_EXPORT_USAGE);
  const { root, target: dirTarget } = parsed;
  // The files under `--prefix` are the paths starting with it and a slash.
  const prefix = parsed.prefix ? `${parsed.prefix}/` : "";
  const present = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  if (present.length > 0) {
    io.err(`cairn: ${root} is not empty; export into a new or empty folder`);
    return 1;
  }

  const resolved = await openDirTarget(config, dirTarget, io);
  if (!resolved) return 1;
  const { sql, workspace, dirKey, harnessDir } = resolved;
  const backing = createDirBacking<null>({
    sql,
    dirKey: () => dirKey,
    snapshotCache: false,
    indexCache: false,
  });
  const index = await backing.loadIndex({ extraBody: null, session: null });
  const files = [...index.entries].filter(([filePath]) => filePath.startsWith(prefix));
  let bytes = 0;
  for (let start = 0; start < files.length; start += EXPORT_BATCH_FILES) {
    const batch = files.slice(start, start + EXPORT_BATCH_FILES);
    const bodies = await backing.readBodies({
      extraBody: null,
      session: null,
      hashes: batch.map(([, entry]) => entry.hash),
    });
    for (const [filePath, entry] of batch) {
      const body = bodies.get(entry.hash);
      if (!body) throw new Error(`The body of ${filePath} (${entry.hash}) is missing.`);
      // A dir's paths are validated relative paths; resolved again so nothing lands outside.
      const destination = path.resolve(root, filePath.slice(prefix.length));
      if (!destination.startsWith(`${root}${path.sep}`)) {
        throw new Error(`${filePath} would be written outside ${root}`);
      }
      await mkdir(path.dirname(destination), { recursive: true });
      const content = typeof body === "string" ? Buffer.from(body, "utf8") : body;
      await writeFile(destination, content, { flag: "wx" });
      bytes += content.byteLength;
    }
    io.err(
      `cairn: wrote ${(start + batch.length).toLocaleString("en-US")} of ${files.length.toLocaleString("en-US")} files`,
    );
  }
  io.out(
    `exported ${files.length} files (${bytes} bytes) of ${harnessDir}${prefix ? `/${prefix.slice(0, -1)}` : ""} ` +
      `of "${workspace.name}" at version ${String(index.cursor)} to ${root}`,
  );
  return 0;
};
