import { resolvePersistentDirs, withTurnLimits } from "./define-persistent-dirs";
import { commitChange, type ApplyOutcome, type CommitTraceSink } from "./commit-engine";
import { contentByteLength } from "./internal/content";
import { assertFileWithinLimits } from "./paths";
import type { ChangeSet, DirCursor, FileContent, PersistentDir } from "./types";

/** What committing a change set came to (see `commitChangeSet`). */
export type CommitChangeSetResult = ApplyOutcome;

/**
 * Commits one change set outside a turn — a person's edit on a files page, say — through the
 * commit engine turns use (`commitChange`): the change (made against `base` at `baseCursor`) is
 * rebased onto the dir's current state and stored atomically, retrying while other commits
 * land. With `mergeText: false`, a path someone else changed meanwhile is a conflict rather
 * than a three-way merge (a whole-file edit a person saw should not be merged behind their
 * back). The caller checks who may write and records failures where it wants them; nothing is
 * ever half-applied.
 */
export async function commitChangeSet<TExtraBody, TSession>(options: {
  dir: PersistentDir<TExtraBody, TSession>;
  extraBody: TExtraBody;
  session: TSession;
  changes: ChangeSet;
  /** The content each changed path had when the edit began (`null`: absent). */
  base: Record<string, FileContent | null>;
  baseCursor: DirCursor;
  mergeText?: boolean;
  maxAttempts?: number;
  /** Where its commit events go (`commit.started`, then how it ended); absent: not traced. */
  trace?: CommitTraceSink;
  abortSignal?: AbortSignal;
}): Promise<CommitChangeSetResult> {
  const [defined] = resolvePersistentDirs({ dirs: [options.dir] });
  let dir = defined!;
  try {
    dir = await withTurnLimits(dir, options);
  } catch {
    // Not decided: the commit engine asks again and fails the commit with the reason, so the
    // caller keeps the change set as it keeps any failed one.
  }
  if (!dir.pendingLimits) {
    for (const file of [...options.changes.created, ...options.changes.updated]) {
      assertFileWithinLimits({
        path: file.path,
        bytes: contentByteLength(file.content),
        limits: dir.limits,
      });
    }
  }
  const { outcome } = await commitChange({
    dir,
    extraBody: options.extraBody,
    session: options.session,
    changes: options.changes,
    base: options.base,
    baseCursor: options.baseCursor,
    mergeText: options.mergeText,
    maxAttempts: options.maxAttempts,
    abortSignal: options.abortSignal,
    trace: options.trace,
    // The caller records failures where it wants them (the Files editor keeps them itself).
    settle: async () => ({}),
  });
  return outcome;
}
