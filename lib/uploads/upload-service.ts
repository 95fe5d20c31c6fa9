import {
  commitChangeSet,
  describeError,
  HarnessConflictError,
  HarnessError,
  resolveDirLimitsFor,
  type Actor,
  type ChangeSet,
  type DirCursor,
  type FileContent,
} from "@/lib/harness";
import {
  checkDocument,
  convertDocument,
  DocumentRefusedError,
  normalizeUploadName,
  probePdf,
  type DocumentLimits,
} from "@/lib/documents";
import type { JobQueue } from "@/lib/jobs/job-queue";
import { readDirFile, type Sql } from "@/lib/sql-storage";
import type { AppDir, AppExtraBody, PersistentDirsService } from "@/lib/workspace-dirs";

/** The job that converts one uploaded document (decision 0050). */
export const DOCUMENT_CONVERT_JOB = "document-convert";

/** What a conversion job carries: who uploaded what where (the Actor as the upload saw it). */
export interface DocumentConvertPayload {
  actor: Actor;
  harnessDir: string;
  /** The original, e.g. `uploads/report.pdf`. */
  originalPath: string;
  /** Its Markdown beside it, `uploads/report.pdf.md`. */
  markdownPath: string;
}

/** The first line of a Markdown file whose conversion is still to come. */
export const CONVERTING_MARKER = "<!-- cairn: converting -->";
/** The first line of a Markdown file whose conversion failed (its text says why). */
export const FAILED_MARKER = "<!-- cairn: conversion failed -->";

/** One file of a batch as the person sent it. */
export interface UploadFile {
  /** The name, or the relative path inside a dropped folder (`policies/travel.pdf`). */
  name: string;
  bytes: Uint8Array;
}

/** One file of a batch that landed. */
export interface AcceptedUpload {
  name: string;
  /** Where the agent reads it: the Markdown (or the text file itself). */
  path: string;
  /** The original beside it, or `null` for Markdown and text (they are their own original). */
  originalPath: string | null;
  /** `converting` until its job has run; `converted` at once for Markdown and text. */
  status: "converting" | "converted";
}

/** One file of a batch that was refused, with the reason in words. */
export interface RefusedUpload {
  name: string;
  reason: string;
  message: string;
}

/** What `uploadBatch` did. */
export interface UploadBatchResult {
  accepted: AcceptedUpload[];
  refused: RefusedUpload[];
  /** The dir's version after the batch's commit, `null` when nothing landed. */
  cursor: string | number | null;
}

/** The state of an uploaded file's conversion, as the Files page polls it. */
export type ConversionStatus =
  | { path: string; status: "converting" }
  | { path: string; status: "converted"; noText: boolean }
  | { path: string; status: "failed"; message: string }
  | { path: string; status: "missing" };

/** Options of `createUploadService`. */
export interface UploadServiceOptions {
  dirs: PersistentDirsService;
  /** The database the dirs' rows live in (originals are read from it byte for byte). */
  sql: () => Sql;
  queue: () => JobQueue;
  /** Conversion limits (`CAIRN_UPLOAD_MAX_FILE_BYTES` and the defaults of the rest). */
  limits?: Partial<DocumentLimits>;
  /** Where uploads land inside a dir. Default `uploads`. */
  folder?: string;
  /**
   * The conversion jobs' claim and retry timing. Default: a claim of `CAIRN_JOB_EXPIRE_SECONDS`
   * as the app passes it (else the queue's default), 3 retries 5 s apart, doubling.
   */
  job?: { expireInSeconds?: number; retryDelaySeconds?: number };
}

/** Uploads into the app's dirs and their conversion jobs. */
export interface UploadService {
  /**
   * Stores a batch in one commit (`via: upload`): each accepted file's original and a
   * "converting…" Markdown beside it, then one conversion job per file. Files refused (name,
   * size, type, a zip bomb, a corrupt or encrypted PDF) are listed with their reason; the rest
   * lands. Throws `forbidden:dir` before reading anything when the actor may not write the dir.
   */
  uploadBatch(options: {
    actor: Actor;
    harnessDir: string;
    files: UploadFile[];
  }): Promise<UploadBatchResult>;
  /** Converts one uploaded document; the queue's handler. Idempotent: a second run changes nothing. */
  runConversionJob(payload: DocumentConvertPayload): Promise<"converted" | "failed" | "skipped">;
  /**
   * A file of a dir the actor sees, as stored (bytes or text), for download; `null` when it
   * does not exist or the dir is not database-backed.
   */
  readStoredFile(options: {
    actor: Actor;
    harnessDir: string;
    path: string;
  }): Promise<{ path: string; content: FileContent } | null>;
  /**
   * Writes one accepted memory note (from a memory import, decision 0051) into the actor's own
   * memory: a line appended to `imported-memory.md`, one commit `via: import`. Only ever called
   * for a note the person accepted.
   */
  acceptImportedNote(options: {
    actor: Actor;
    text: string;
    source: string;
  }): Promise<{ path: string }>;
  /** Where each of `paths` (Markdown paths an upload returned) stands. */
  conversionStatus(options: {
    actor: Actor;
    harnessDir: string;
    paths: string[];
  }): Promise<ConversionStatus[]>;
}

/** The person's own memory dir, where imported notes go. */
const USER_DIR_PATH = "/persistent/user";
/** The file accepted memory-import notes are appended to. */
export const IMPORTED_NOTES_PATH = "imported-memory.md";

const placeholder = (name: string) =>
  `${CONVERTING_MARKER}\n\nConverting ${name}… This file is replaced by the document's text when the conversion has run.\n`;

/** The upload service over the app's dirs and job queue. */
export function createUploadService(options: UploadServiceOptions): UploadService {
  const folder = options.folder ?? "uploads";
  const extraBodyOf = (actor: Actor): AppExtraBody => ({ actor, source: "editor", via: "upload" });
  const findDir = (harnessDir: string): AppDir => {
    const dir = options.dirs.appDirs.find((candidate) => candidate.harnessDir === harnessDir);
    if (!dir) throw new Error(`No persistent dir ${harnessDir}.`);
    return dir;
  };
  /** Commits one change to `dir`, retried up to five times while other commits land. */
  const commitTo = (
    dir: AppDir,
    extraBody: AppExtraBody,
    change: {
      changes: ChangeSet;
      base: Record<string, FileContent | null>;
      baseCursor: DirCursor;
      mergeText: boolean;
    },
  ) =>
    commitChangeSet({ dir: dir.definition, extraBody, session: null, ...change, maxAttempts: 5 });
  // The dir's per-file limit for this person (their workspace's, decided as a turn's would be).
  const maxFileBytes = async (dir: AppDir, actor: Actor) =>
    Math.min(
      options.limits?.maxFileBytes ?? Number.MAX_SAFE_INTEGER,
      (
        await resolveDirLimitsFor({
          dir: dir.definition,
          extraBody: extraBodyOf(actor),
          session: null,
        })
      ).maxFileBytes,
    );

  return {
    async uploadBatch({ actor, harnessDir, files }) {
      const dir = options.dirs.assertCanWrite({ actor, harnessDir });
      const limits = { ...options.limits, maxFileBytes: await maxFileBytes(dir, actor) };
      const refused: RefusedUpload[] = [];
      const planned: {
        name: string;
        relative: string;
        bytes: Uint8Array;
        keepsOriginal: boolean;
      }[] = [];
      const seen = new Set<string>();
      for (const file of files) {
        try {
          const relative = normalizeUploadName({ name: file.name });
          const type = checkDocument({ name: relative, bytes: file.bytes, limits });
          if (type === "pdf") await probePdf({ fileName: relative, bytes: file.bytes });
          if (seen.has(relative)) {
            throw new DocumentRefusedError({
              fileName: relative,
              reason: "name",
              message: "the batch holds two files of this name; the first one was kept.",
            });
          }
          seen.add(relative);
          planned.push({
            name: relative,
            relative,
            bytes: file.bytes,
            keepsOriginal: type !== "markdown" && type !== "text",
          });
        } catch (error) {
          if (!DocumentRefusedError.isInstance(error)) throw error;
          refused.push({ name: file.name, reason: error.reason, message: error.message });
        }
      }
      if (planned.length === 0) return { accepted: [], refused, cursor: null };

      const extraBody = extraBodyOf(actor);
      const current = await dir.definition.load({ extraBody, session: null });
      const changes: ChangeSet = { created: [], updated: [], deleted: [] };
      const base = Object.create(null) as Record<string, FileContent | null>;
      const put = (path: string, content: FileContent) => {
        const before = Object.hasOwn(current.files, path) ? current.files[path]! : null;
        (before === null ? changes.created : changes.updated).push({ path, content });
        base[path] = before;
      };
      const accepted: AcceptedUpload[] = [];
      for (const file of planned) {
        const originalPath = `${folder}/${file.relative}`;
        if (file.keepsOriginal) {
          const markdownPath = `${originalPath}.md`;
          put(originalPath, file.bytes);
          put(markdownPath, placeholder(file.relative));
          accepted.push({
            name: file.name,
            path: markdownPath,
            originalPath,
            status: "converting",
          });
        } else {
          // Markdown and text are their own original: stored as they are (checked as UTF-8 above).
          put(originalPath, new TextDecoder().decode(file.bytes));
          accepted.push({
            name: file.name,
            path: originalPath,
            originalPath: null,
            status: "converted",
          });
        }
      }
      const outcome = await commitTo(dir, extraBody, {
        changes,
        base,
        baseCursor: current.cursor,
        mergeText: false,
      });
      if (outcome.status === "conflict" || outcome.status === "failed") {
        const message =
          outcome.status === "failed"
            ? outcome.error.message
            : "files of the same names changed while uploading; upload again.";
        return {
          accepted: [],
          refused: [
            ...refused,
            ...planned.map((file) => ({
              name: file.name,
              reason: "commit",
              message: `${file.name}: not stored — ${message}`,
            })),
          ],
          cursor: null,
        };
      }
      const queue = options.queue();
      for (const upload of accepted) {
        if (upload.status !== "converting") continue;
        await queue.enqueue<DocumentConvertPayload>(
          DOCUMENT_CONVERT_JOB,
          { actor, harnessDir, originalPath: upload.originalPath!, markdownPath: upload.path },
          {
            retryLimit: 3,
            retryDelaySeconds: options.job?.retryDelaySeconds ?? 5,
            expireInSeconds: options.job?.expireInSeconds,
          },
        );
      }
      return { accepted, refused, cursor: outcome.cursor };
    },

    async runConversionJob(payload) {
      const dir = findDir(payload.harnessDir);
      const extraBody = extraBodyOf(payload.actor);
      const current = await dir.definition.load({ extraBody, session: null });
      const markdown = current.files[payload.markdownPath];
      const original = current.files[payload.originalPath];
      // Converted already (another worker, an earlier attempt), or removed since: nothing to do.
      if (typeof markdown !== "string" || !markdown.startsWith(CONVERTING_MARKER)) return "skipped";
      if (original === undefined) return "skipped";
      const bytes = typeof original === "string" ? new TextEncoder().encode(original) : original;
      const name = payload.originalPath.slice(payload.originalPath.indexOf("/") + 1);
      let text: string;
      let result: "converted" | "failed";
      try {
        const converted = await convertDocument({ name, bytes, limits: options.limits });
        text = converted.markdown;
        result = "converted";
      } catch (error) {
        if (!DocumentRefusedError.isInstance(error)) throw error;
        text = `${FAILED_MARKER}\n\n${error.message}\n\nThe original was not kept.\n`;
        result = "failed";
      }
      const changes: ChangeSet = {
        created: [],
        updated: [{ path: payload.markdownPath, content: text }],
        deleted: [],
      };
      const base = Object.create(null) as Record<string, FileContent | null>;
      base[payload.markdownPath] = markdown;
      // A document that cannot be read leaves only the note saying why: no orphaned original.
      if (result === "failed") {
        changes.deleted.push(payload.originalPath);
        base[payload.originalPath] = original;
      }
      const outcome = await commitTo(dir, extraBody, {
        changes,
        base,
        baseCursor: current.cursor,
        // The placeholder as base: if another worker replaced it meanwhile, this is a conflict
        // and nothing is written twice.
        mergeText: false,
      });
      if (outcome.status === "conflict") return "skipped";
      if (outcome.status === "failed") {
        throw new Error(
          `Storing the conversion of ${payload.originalPath} failed: ${describeError(outcome.cause).message}`,
        );
      }
      return outcome.status === "already-applied" ? "skipped" : result;
    },

    async acceptImportedNote({ actor, text, source }) {
      const dir = findDir(USER_DIR_PATH);
      const extraBody: AppExtraBody = { actor, source: "editor", via: "import" };
      const line = `- ${text.replace(/\s+/g, " ").trim()} (imported from ${source.replace(/\s+/g, " ").trim()})\n`;
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const current = await dir.definition.load({ extraBody, session: null });
        const before = current.files[IMPORTED_NOTES_PATH];
        const base = typeof before === "string" ? before : null;
        const content = `${base ?? "# Imported memory\n\nNotes brought from another assistant, each accepted by me.\n\n"}${line}`;
        const changes: ChangeSet = {
          created: base === null ? [{ path: IMPORTED_NOTES_PATH, content }] : [],
          updated: base === null ? [] : [{ path: IMPORTED_NOTES_PATH, content }],
          deleted: [],
        };
        const outcome = await commitTo(dir, extraBody, {
          changes,
          base: { [IMPORTED_NOTES_PATH]: base },
          baseCursor: current.cursor,
          // Two accepts at once both append: a line-wise merge keeps both.
          mergeText: true,
        });
        if (outcome.status === "stored" || outcome.status === "already-applied")
          return { path: IMPORTED_NOTES_PATH };
        if (outcome.status === "failed") {
          throw new HarnessError({
            code: "failed:store",
            message: `The note was not saved: ${outcome.error.message}`,
            cause: outcome.error,
          });
        }
      }
      throw new HarnessConflictError({
        surface: "dir",
        message: "The note was not saved: your memory kept changing meanwhile. Try again.",
      });
    },

    async readStoredFile({ actor, harnessDir, path }) {
      // Every dir listed for the actor is readable by them; the dir key comes from the Actor.
      const dirKey = findDir(harnessDir).dirKey(actor);
      if (dirKey === null) return null;
      const file = await readDirFile({ sql: options.sql(), dirKey, path });
      return file && { path, content: file.content };
    },

    async conversionStatus({ actor, harnessDir, paths }) {
      const statuses: ConversionStatus[] = [];
      for (const path of paths) {
        const file = await options.dirs.readFile({ actor, harnessDir, path });
        if (!file || file.text === null) statuses.push({ path, status: "missing" });
        else if (file.text.startsWith(CONVERTING_MARKER))
          statuses.push({ path, status: "converting" });
        else if (file.text.startsWith(FAILED_MARKER))
          statuses.push({
            path,
            status: "failed",
            message: file.text.slice(FAILED_MARKER.length).trim().split("\n")[0]!,
          });
        else
          statuses.push({
            path,
            status: "converted",
            noText: file.text.startsWith("<!-- cairn: no text found -->"),
          });
      }
      return statuses;
    },
  };
}
