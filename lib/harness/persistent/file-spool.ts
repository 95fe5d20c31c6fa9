import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import nodePath from "node:path";

import {
  createSpoolIdGenerator,
  type CommitSpool,
  type NewSpoolItem,
  type SpoolItem,
} from "./durability";

const SUFFIX = ".json";

/**
 * JSON with bytes and dates kept: a `Uint8Array` becomes `{ "$bytes": base64 }`, a `Date`
 * `{ "$date": iso }`. Used for spool files, so a spooled change set reads back exactly.
 */
export function encodeDurable(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, plain: unknown) {
    const raw = this[key];
    if (raw instanceof Uint8Array) return { $bytes: Buffer.from(raw).toString("base64") };
    if (raw instanceof Date) return { $date: raw.toISOString() };
    return plain;
  });
}

/** The inverse of `encodeDurable`. */
export function decodeDurable<T>(text: string): T {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      if (keys.length === 1 && typeof record.$bytes === "string")
        return new Uint8Array(Buffer.from(record.$bytes, "base64"));
      if (keys.length === 1 && typeof record.$date === "string") return new Date(record.$date);
    }
    return value;
  }) as T;
}

async function fsyncPath(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * A `CommitSpool` of files in `directory` (the app: `$CAIRN_DATA_DIR/spool`). `put` writes the
 * item to a temporary file, fsyncs it, renames it to `<id>.json` and fsyncs the directory, so
 * after `put` returns the item survives a crash or power loss of this machine; a crash before
 * the rename leaves only a temporary file, which `list` ignores. A `.json` file that does not
 * parse is renamed `*.corrupt` and skipped (kept for a person, never silently deleted).
 *
 * Limits: durable only as long as the disk is — a spool on an ephemeral container disk is lost
 * with the container. Point `CAIRN_DATA_DIR` at a persistent volume.
 */
export function createFileSpool(options: {
  directory: string;
  now?: () => Date;
  /** Receives items that could not be read. */
  onCorrupt?: (file: string, error: unknown) => void;
}): CommitSpool {
  const { directory } = options;
  const now = options.now ?? (() => new Date());
  const nextId = createSpoolIdGenerator(now);
  let ready: Promise<unknown> | null = null;
  const ensureDirectory = () => (ready ??= mkdir(directory, { recursive: true }));

  return {
    async put({ item }: { item: NewSpoolItem }) {
      await ensureDirectory();
      const stored = { ...item, id: nextId(), at: now() } as SpoolItem;
      const finalPath = nodePath.join(directory, `${stored.id}${SUFFIX}`);
      const tempPath = nodePath.join(
        directory,
        `.tmp-${stored.id}-${randomBytes(4).toString("hex")}`,
      );
      const handle = await open(tempPath, "w", 0o600);
      try {
        await handle.writeFile(encodeDurable(stored), "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tempPath, finalPath);
      await fsyncPath(directory, "r");
      return stored;
    },

    async list() {
      let names: string[];
      try {
        names = await readdir(directory);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw error;
      }
      const items: SpoolItem[] = [];
      for (const name of names.filter((file) => file.endsWith(SUFFIX)).sort()) {
        const path = nodePath.join(directory, name);
        try {
          items.push(decodeDurable<SpoolItem>(await readFile(path, "utf8")));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
          options.onCorrupt?.(path, error);
          await rename(path, `${path}.corrupt`).catch(() => undefined);
        }
      }
      return items;
    },

    async remove({ id }) {
      try {
        await unlink(nodePath.join(directory, `${id}${SUFFIX}`));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
      await fsyncPath(directory, "r");
    },
  };
}
