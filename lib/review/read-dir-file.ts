import type { Actor, DirCursor, FileContent } from "@/lib/harness";
import type { AppDir, AppExtraBody } from "@/lib/workspace-dirs/app-dirs";

const utf8 = new TextDecoder("utf-8", { fatal: false });

/**
 * The current content of `paths` in `dir` and the cursor they were read at, as `actor` reads
 * them: one index read and the bodies of those paths (a lazy dir), else the whole dir. A text
 * file's body comes back as a string, whatever form the backing returned it in.
 */
export async function readDirFiles(
  dir: AppDir,
  actor: Actor,
  paths: readonly string[],
): Promise<{ cursor: DirCursor; files: Map<string, FileContent | null> }> {
  const extraBody: AppExtraBody = { actor };
  const definition = dir.definition;
  const files = new Map<string, FileContent | null>();
  if (definition.loadIndex && definition.readBodies) {
    const index = await definition.loadIndex({ extraBody, session: null });
    const entries = paths.map((path) => [path, index.entries.get(path)] as const);
    const hashes = entries.flatMap(([, entry]) => (entry ? [entry.hash] : []));
    const bodies =
      hashes.length > 0
        ? await definition.readBodies({ extraBody, session: null, hashes })
        : new Map<string, FileContent>();
    for (const [path, entry] of entries) {
      const body = entry ? (bodies.get(entry.hash) ?? null) : null;
      files.set(
        path,
        body !== null && entry?.text === true && typeof body !== "string"
          ? utf8.decode(body)
          : body,
      );
    }
    return { cursor: index.cursor, files };
  }
  const loaded = await definition.load({ extraBody, session: null });
  for (const path of paths) files.set(path, loaded.files[path] ?? null);
  return { cursor: loaded.cursor, files };
}
