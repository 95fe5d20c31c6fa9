import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { constants } from "node:fs";
import { chmod, mkdir, open, readdir, rename, unlink } from "node:fs/promises";
import nodePath from "node:path";

import { HarnessValidationError } from "../errors";
import {
  createSpoolIdGenerator,
  type CommitSpool,
  type NewSpoolItem,
  type SpoolItem,
} from "./durability";

const SUFFIX = ".json";
/** What a spool file that failed verification is renamed to (kept for a person, never imported). */
const REJECTED_SUFFIX = ".rejected";
/** Owner-only: a spooled change set holds a person's files and who they are. */
const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;
/** Bumped if the envelope or what the signature covers ever changes. */
const ENVELOPE_VERSION = 1;
/** Prefixed to what is signed, so a signature made for anything else never verifies here. */
const SIGNATURE_CONTEXT = `cairn-spool-v${ENVELOPE_VERSION}\0`;

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
 * A spool id is a plain name: letters, digits, `-` and `_`, at most 100 characters (the ids the
 * spool makes are `<15-digit ms>-<6-digit counter>-<6 base-36 characters>`). No `/`, `\`, `.`,
 * NUL or anything else that could lead outside the spool's folder.
 */
const SPOOL_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** Whether `id` is a plain spool id (see `SPOOL_ID`). */
export function isSpoolId(id: unknown): id is string {
  return typeof id === "string" && SPOOL_ID.test(id);
}

/**
 * The key a file spool signs its records with, from a server secret (the app: `AUTH_SECRET`):
 * HKDF-SHA256 with a label of its own, so the secret itself never signs anything and no other
 * use of it yields the same key. Throws on an empty secret.
 */
export function spoolKeyFromSecret(secret: string): Uint8Array {
  if (secret.trim() === "") {
    throw new HarnessValidationError({ message: "The spool needs a secret to sign its records." });
  }
  return new Uint8Array(hkdfSync("sha256", secret, "cairn", "cairn spool record signature", 32));
}

/** Why a spool file was set aside instead of imported. */
export type SpoolRejection =
  "bad-name" | "not-a-file" | "unreadable" | "not-signed" | "bad-signature" | "bad-record";

/** One file the spool set aside: where it is now, and why. */
export interface RejectedSpoolFile {
  /** The file's path after the rename (`…json.rejected`). */
  file: string;
  reason: SpoolRejection;
  /** Details for the log (e.g. the parse error). */
  error?: unknown;
}

/**
 * A `CommitSpool` of files in `directory` (the app: `$CAIRN_DATA_DIR/spool`). `put` writes the
 * item to a temporary file, fsyncs it, renames it to `<id>.json` and fsyncs the directory, so
 * after `put` returns the item survives a crash or power loss of this machine; a crash before
 * the rename leaves only a temporary file, which `list` ignores.
 *
 * **It trusts nothing it reads.** Every record is signed (HMAC-SHA256 with `key`, over the
 * record's exact text) when it is written; `list` imports only records whose signature verifies,
 * whose id is a plain name equal to their file's name, and whose shape is a spool item's. Any
 * other `.json` file — dropped in by someone else, written with another key (a changed
 * `AUTH_SECRET`), by a version before signing, torn, or a symbolic link — is renamed
 * `*.json.rejected`, reported through `onRejected` and never imported (kept for a person to look
 * at, never deleted). Ids are checked as plain names in `put`, `list` and `remove`, and every
 * path is checked to lie directly inside the folder, so no id can make the spool touch a file
 * elsewhere.
 *
 * The folder is created (and on first use tightened to) 0700 and each file is written 0600:
 * records hold people's files and who they are.
 *
 * Limits: durable only as long as the disk is — a spool on an ephemeral container disk is lost
 * with the container. Point `CAIRN_DATA_DIR` at a persistent volume. A record signed with an
 * earlier key (before `AUTH_SECRET` changed) is set aside, not imported: change the secret with
 * an empty spool.
 */
export function createFileSpool(options: {
  directory: string;
  /** Signs and verifies records (the app: `spoolKeyFromSecret(AUTH_SECRET)`); at least 16 bytes. */
  key: Uint8Array;
  now?: () => Date;
  /** Receives every file that was set aside instead of imported. */
  onRejected?: (rejected: RejectedSpoolFile) => void;
}): CommitSpool {
  const directory = nodePath.resolve(options.directory);
  if (options.key.byteLength < 16) {
    throw new HarnessValidationError({ message: "The spool's signing key is too short." });
  }
  const key = Buffer.from(options.key);
  const now = options.now ?? (() => new Date());
  const nextId = createSpoolIdGenerator(now);
  let ready: Promise<void> | null = null;
  const ensureDirectory = () =>
    (ready ??= secureDirectory(directory).catch((error: unknown) => {
      ready = null;
      throw error;
    }));

  /** The path of `name` directly inside the folder; anything else is refused. */
  const inFolder = (name: string): string => {
    const path = nodePath.resolve(directory, name);
    if (nodePath.dirname(path) !== directory || nodePath.basename(path) !== name) {
      throw new HarnessValidationError({
        surface: "path",
        message: "A spool file must lie directly inside the spool's folder.",
        details: { name },
      });
    }
    return path;
  };
  const fileOf = (id: string): string => {
    if (!isSpoolId(id)) {
      throw new HarnessValidationError({
        surface: "path",
        message: "A spool id is a plain name (letters, digits, - and _).",
        details: { id },
      });
    }
    return inFolder(`${id}${SUFFIX}`);
  };
  const sign = (record: string): string =>
    createHmac("sha256", key).update(SIGNATURE_CONTEXT).update(record, "utf8").digest("base64url");

  /** The item in a spool file's text, or why it is not one. */
  const verify = (
    id: string,
    text: string,
  ): { item: SpoolItem } | { reason: SpoolRejection; error?: unknown } => {
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch (error) {
      return { reason: "unreadable", error };
    }
    const { version, signature, record } = (envelope ?? {}) as Record<string, unknown>;
    if (version !== ENVELOPE_VERSION || typeof signature !== "string" || typeof record !== "string")
      return { reason: "not-signed" };
    const expected = Buffer.from(sign(record));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { reason: "bad-signature" };
    let item: SpoolItem;
    try {
      item = decodeDurable<SpoolItem>(record);
    } catch (error) {
      return { reason: "bad-record", error };
    }
    return isSpoolItem(item, id) ? { item } : { reason: "bad-record" };
  };

  const setAside = async (path: string, reason: SpoolRejection, error?: unknown) => {
    const file = `${path}${REJECTED_SUFFIX}`;
    await rename(path, file).catch(() => undefined);
    options.onRejected?.({ file, reason, ...(error === undefined ? {} : { error }) });
  };

  return {
    async put({ item }: { item: NewSpoolItem }) {
      await ensureDirectory();
      const stored = { ...item, id: nextId(), at: now() } as SpoolItem;
      const finalPath = fileOf(stored.id);
      const tempPath = inFolder(`.tmp-${stored.id}-${randomBytes(4).toString("hex")}`);
      const record = encodeDurable(stored);
      const envelope = JSON.stringify({
        version: ENVELOPE_VERSION,
        signature: sign(record),
        record,
      });
      // `wx`: never through a file (or a link) someone put there under this name.
      const handle = await open(tempPath, "wx", FILE_MODE);
      try {
        await handle.writeFile(envelope, "utf8");
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
        await ensureDirectory();
        names = await readdir(directory);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw error;
      }
      const items: SpoolItem[] = [];
      for (const name of names.filter((file) => file.endsWith(SUFFIX)).sort()) {
        const path = inFolder(name);
        const id = name.slice(0, -SUFFIX.length);
        if (!isSpoolId(id)) {
          await setAside(path, "bad-name");
          continue;
        }
        let text: string;
        try {
          text = await readRegularFile(path);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOENT") continue;
          await setAside(
            path,
            code === "ELOOP" || code === "EISDIR" ? "not-a-file" : "unreadable",
            error,
          );
          continue;
        }
        const verified = verify(id, text);
        if ("item" in verified) items.push(verified.item);
        else await setAside(path, verified.reason, verified.error);
      }
      return items;
    },

    async remove({ id }) {
      const path = fileOf(id);
      try {
        await unlink(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
      await fsyncPath(directory, "r");
    },
  };
}

/**
 * Creates the folder (and missing parents) owner-only, and tightens an existing one and the
 * spool files in it (a spool written before modes were set) to 0700 / 0600.
 */
async function secureDirectory(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: DIRECTORY_MODE });
  await chmod(directory, DIRECTORY_MODE);
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (entry.isFile()) {
      await chmod(nodePath.join(directory, entry.name), FILE_MODE).catch(() => undefined);
    }
  }
}

/** A file's text, refusing a symbolic link (`ELOOP`) or anything but a regular file. */
async function readRegularFile(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!(await handle.stat()).isFile()) {
      throw Object.assign(new Error(`${path} is not a regular file`), { code: "EISDIR" });
    }
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

const KINDS = new Set(["commit", "journal", "journal-discard"]);

/** Whether a verified record has a spool item's shape, under the id its file is named after. */
function isSpoolItem(value: unknown, id: string): value is SpoolItem {
  if (!value || typeof value !== "object") return false;
  const item = value as Record<string, unknown>;
  if (item.id !== id || !(item.at instanceof Date) || !KINDS.has(item.kind as string)) return false;
  if (item.kind === "commit") return typeof item.commit === "object" && item.commit !== null;
  if (item.kind === "journal") return typeof item.entry === "object" && item.entry !== null;
  return typeof item.turnId === "string";
}
