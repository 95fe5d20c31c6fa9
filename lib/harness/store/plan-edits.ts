// The planning half of the harness: each edit of a batch checked against scope, role and
// version, its new state planned (the pure rules live in edit-planner.ts) and its revision
// drafted. createHarness is the facade that commits the plans and serves the reads.
import { canWriteGlobal } from "../actor";
import {
  HarnessConflictError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "../errors";
import { assertValidEntry } from "./entry-contracts";
import { checkEntryId, entryOrThrow, planCreatedEntry, planUpdatedEntry } from "./edit-planner";
import { entryKeyOf } from "./entry-key";
import { slugCandidate, slugifyTitle } from "./slug";
import {
  type ScopeSelector,
  type WriteOptions,
  type CreateEntryInput,
  type UpdateEntryInput,
  type DeleteEntryInput,
  type RestoreRevisionInput,
  type CreateHarnessOptions,
} from "./harness-api";
import { entryVersionConflict } from "./storage-cursors";
import { type StorageChange } from "./store-port";
import {
  ENTRY_KINDS,
  type Entry,
  type EntryKind,
  type EntryRef,
  type EntryScope,
  type EntrySource,
  type Revision,
  type RevisionAction,
  type RevisionCause,
  type RevisionDraft,
} from "./types";

const CAUSE_BY_SOURCE: Record<EntrySource, RevisionCause> = {
  user: "manual",
  agent: "agent",
  refinement: "refinement",
  import: "import",
};

const MAX_SLUG_ATTEMPTS = 1000;

/** Mutable state of one batch being planned. */
export interface BatchPlan {
  now: string;
  changes: StorageChange[];
  keys: Set<string>;
  defaults: { reason?: string; cause?: RevisionCause; source?: EntrySource };
}

/** Asserts `kind` is one of the entry kinds. */
export function assertKind(kind: unknown): asserts kind is EntryKind {
  if (!(ENTRY_KINDS as readonly unknown[]).includes(kind)) {
    throw new HarnessValidationError({
      surface: "entry",
      message: `Unknown entry kind ${JSON.stringify(kind)}`,
      details: { kind },
    });
  }
}

/** What the planner needs from the harness it plans for. */
export interface EditPlannerContext {
  storage: CreateHarnessOptions["storage"];
  actor: CreateHarnessOptions["actor"];
  chatId: string | null;
  via: CreateHarnessOptions["via"];
  clock: () => Date;
  generateId: () => string;
  defaultSource: EntrySource;
}

/** The batch planners (create, update, delete, restore) of one harness, for one actor. */
export type EditPlanner = ReturnType<typeof createEditPlanner>;

/** The batch planners (create, update, delete, restore) of one harness. */
export function createEditPlanner(context: EditPlannerContext) {
  const { storage, actor, chatId, via, clock, generateId, defaultSource } = context;
  const workspaceId = actor.workspaceId;

  function newPlan(defaults: BatchPlan["defaults"] = {}): BatchPlan {
    return { now: clock().toISOString(), changes: [], keys: new Set(), defaults };
  }

  function sourceOf(input: WriteOptions, plan: BatchPlan): EntrySource {
    return input.source ?? plan.defaults.source ?? defaultSource;
  }

  function causeOf(input: WriteOptions, plan: BatchPlan, source: EntrySource): RevisionCause {
    return input.cause ?? plan.defaults.cause ?? CAUSE_BY_SOURCE[source];
  }

  /**
   * Adds a create, update or delete of `ref` to the batch, expecting the version it read
   * (`before`'s), with the write's reason and cause or else the batch's.
   */
  function pushChange(
    plan: BatchPlan,
    input: WriteOptions,
    source: EntrySource,
    change: { ref: EntryRef; action: RevisionAction; before: Entry | null; after: Entry | null },
  ): void {
    plan.changes.push({
      expectedVersion: change.before?.version ?? null,
      revision: draft({
        ...change,
        reason: input.reason ?? plan.defaults.reason,
        cause: causeOf(input, plan, source),
        now: plan.now,
      }),
    });
  }

  function assertGlobalWrite(isGlobal: boolean, explicit: boolean | undefined, what: string): void {
    if (!isGlobal) return;
    if (explicit !== true) {
      throw new HarnessForbiddenError({
        surface: "entry",
        message: `${what} a global entry needs the explicit flag global: true (entries are local by default)`,
        details: { actorId: actor.userId },
      });
    }
    if (!canWriteGlobal(actor)) {
      throw new HarnessForbiddenError({
        surface: "entry",
        message: `${what} a global entry needs the editor or admin role; this actor is a ${actor.role}`,
        details: { actorId: actor.userId, role: actor.role },
      });
    }
  }

  /** Resolves where a write goes and checks the actor may write there. */
  function resolveWriteScope(
    selector: ScopeSelector,
    what: string,
  ): { scope: EntryScope; chatId: string | null } {
    if (selector.global === true && selector.scope === "local") {
      throw new HarnessValidationError({
        surface: "entry",
        message: 'global: true contradicts scope: "local"',
      });
    }
    const isGlobal = selector.global === true || selector.scope === "global";
    if (isGlobal) {
      assertGlobalWrite(true, selector.global, what);
      return { scope: "global", chatId: null };
    }
    if (chatId === null) {
      throw new HarnessValidationError({
        surface: "entry",
        message: `${what} a local entry needs a chat; this harness serves none (use global: true for a workspace entry)`,
      });
    }
    return { scope: "local", chatId };
  }

  function assertExpectedVersion(expectedVersion: unknown): asserts expectedVersion is number {
    if (
      typeof expectedVersion !== "number" ||
      !Number.isInteger(expectedVersion) ||
      expectedVersion < 1
    ) {
      throw new HarnessValidationError({
        surface: "entry",
        message:
          "expectedVersion is required: the version of the entry you last read (an integer ≥ 1)",
        details: { expectedVersion },
      });
    }
  }

  function reserveKey(plan: BatchPlan, ref: EntryRef): string {
    const key = entryKeyOf(ref);
    if (plan.keys.has(key)) {
      throw new HarnessValidationError({
        surface: "entry",
        message: `Entry ${key} is edited twice in one batch; combine the edits`,
        details: { entryKey: key },
      });
    }
    plan.keys.add(key);
    return key;
  }

  function notFound(ref: Pick<EntryRef, "kind" | "scope" | "id">): HarnessNotFoundError {
    return new HarnessNotFoundError({
      surface: "entry",
      message: `No ${ref.scope} ${ref.kind} entry with id "${ref.id}"${
        ref.scope === "local" ? ' in this chat (pass scope: "global" for a workspace entry)' : ""
      }`,
      details: { kind: ref.kind, scope: ref.scope, id: ref.id },
    });
  }

  const conflictAt = (ref: EntryRef, expected: number | null, current: number | null) =>
    entryVersionConflict(entryKeyOf(ref), expected, current, `${ref.scope}:${ref.id}`);

  /** The version the next life of a key starts at: one past the last version it ever had. */
  function versionAfter(lastRevision: Revision | null): number {
    return (lastRevision?.after?.version ?? lastRevision?.before?.version ?? 0) + 1;
  }

  async function lastRevisionOfKey(
    key: string,
    abortSignal?: AbortSignal,
  ): Promise<Revision | null> {
    const page = await storage.listRevisions({
      workspaceId,
      entryKey: key,
      order: "desc",
      limit: 1,
      abortSignal,
    });
    return page.items[0] ?? null;
  }

  /**
   * What a create needs to know about a key: the entry if it exists, else the key's last
   * revision (null if it never existed). One port call when the storage offers
   * `getEntryAndLastRevision`; otherwise `getEntry`, then `listRevisions` only if needed.
   */
  async function readKeyForCreate(
    ref: EntryRef,
    abortSignal?: AbortSignal,
  ): Promise<{ entry: Entry } | { entry: null; lastRevision: Revision | null }> {
    if (storage.getEntryAndLastRevision) {
      const { entry, lastRevision } = await storage.getEntryAndLastRevision({
        workspaceId,
        ref,
        abortSignal,
      });
      return entry ? { entry } : { entry: null, lastRevision };
    }
    const entry = await storage.getEntry({ workspaceId, ref, abortSignal });
    if (entry) return { entry };
    return { entry: null, lastRevision: await lastRevisionOfKey(entryKeyOf(ref), abortSignal) };
  }

  function draft(options: {
    ref: EntryRef;
    action: RevisionAction;
    before: Entry | null;
    after: Entry | null;
    reason: string | undefined;
    cause: RevisionCause;
    now: string;
  }): RevisionDraft {
    return {
      id: generateId(),
      workspaceId,
      entryKey: entryKeyOf(options.ref),
      entryId: options.ref.id,
      kind: options.ref.kind,
      scope: options.ref.scope,
      chatId: options.ref.chatId,
      action: options.action,
      before: options.before,
      after: options.after,
      actorId: actor.userId,
      reason: options.reason ?? "",
      cause: options.cause,
      ...(via ? { via } : {}),
      createdAt: options.now,
    };
  }

  async function planCreate(
    input: CreateEntryInput,
    plan: BatchPlan,
    abortSignal?: AbortSignal,
  ): Promise<Entry> {
    assertKind(input.kind);
    const where = resolveWriteScope(input, "Creating");
    const source = sourceOf(input, plan);
    let id: string;
    let version = 1;
    if (input.id !== undefined) {
      const problem = checkEntryId(input.id);
      if (problem) throw problem.error;
      id = input.id;
      const ref: EntryRef = { kind: input.kind, ...where, id };
      const state = await readKeyForCreate(ref, abortSignal);
      if (state.entry) throw conflictAt(ref, null, state.entry.version);
      version = versionAfter(state.lastRevision);
    } else {
      if (typeof input.title !== "string") {
        throw new HarnessValidationError({ surface: "entry", message: "title is required" });
      }
      const base = slugifyTitle({ title: input.title, fallback: input.kind });
      id = "";
      for (let attempt = 1; attempt <= MAX_SLUG_ATTEMPTS; attempt++) {
        const candidate = slugCandidate(base, attempt);
        const ref: EntryRef = { kind: input.kind, ...where, id: candidate };
        const key = entryKeyOf(ref);
        if (plan.keys.has(key)) continue;
        const state = await readKeyForCreate(ref, abortSignal);
        // Prefer ids that never existed, so a new entry does not inherit a deleted one's history.
        if (state.entry || state.lastRevision) continue;
        id = candidate;
        break;
      }
      if (id === "") {
        throw new HarnessConflictError({
          surface: "entry",
          message: `No free id for "${base}" after ${MAX_SLUG_ATTEMPTS} attempts`,
        });
      }
    }
    const ref: EntryRef = { kind: input.kind, ...where, id };
    reserveKey(plan, ref);
    const entry = entryOrThrow(
      planCreatedEntry({
        ref,
        title: input.title,
        content: input.content,
        path: input.path,
        metadata: input.metadata,
        pinned: input.pinned,
        source,
        version,
        actorId: actor.userId,
        now: plan.now,
      }),
    );
    pushChange(plan, input, source, { ref, action: "create", before: null, after: entry });
    return entry;
  }

  async function loadForWrite(
    input: ScopeSelector & { kind: EntryKind; id: string; expectedVersion: number },
    what: string,
    abortSignal?: AbortSignal,
  ): Promise<{ ref: EntryRef; current: Entry }> {
    assertKind(input.kind);
    assertExpectedVersion(input.expectedVersion);
    const where = resolveWriteScope(input, what);
    const ref: EntryRef = { kind: input.kind, ...where, id: input.id };
    const current = await storage.getEntry({ workspaceId, ref, abortSignal });
    if (!current) throw notFound(ref);
    if (current.version !== input.expectedVersion)
      throw conflictAt(ref, input.expectedVersion, current.version);
    return { ref, current };
  }

  async function planUpdate(
    input: UpdateEntryInput,
    plan: BatchPlan,
    abortSignal?: AbortSignal,
  ): Promise<Entry> {
    const { ref, current } = await loadForWrite(input, "Updating", abortSignal);
    const source = sourceOf(input, plan);
    const planned = planUpdatedEntry({
      current,
      title: input.title,
      content: input.content,
      path: input.path,
      metadata: input.metadata,
      metadataPatch: input.metadataPatch,
      pinned: input.pinned,
      source,
      actorId: actor.userId,
      now: plan.now,
    });
    reserveKey(plan, ref);
    const next = entryOrThrow(planned);
    if (planned.ok && planned.unchanged) return current;
    pushChange(plan, input, source, { ref, action: "update", before: current, after: next });
    return next;
  }

  async function planDelete(
    input: DeleteEntryInput,
    plan: BatchPlan,
    abortSignal?: AbortSignal,
  ): Promise<void> {
    const { ref, current } = await loadForWrite(input, "Deleting", abortSignal);
    reserveKey(plan, ref);
    const source = sourceOf(input, plan);
    pushChange(plan, input, source, { ref, action: "delete", before: current, after: null });
  }

  async function planRestore(
    input: RestoreRevisionInput,
    plan: BatchPlan,
    abortSignal?: AbortSignal,
  ): Promise<Entry> {
    const revision = await storage.getRevision({
      workspaceId,
      revisionId: input.revisionId,
      abortSignal,
    });
    // A local revision of another chat is as invisible as a missing one.
    if (!revision || (revision.scope === "local" && revision.chatId !== chatId)) {
      throw new HarnessNotFoundError({
        surface: "revision",
        message: `No revision ${input.revisionId} in this chat`,
        details: { revisionId: input.revisionId },
      });
    }
    assertGlobalWrite(revision.scope === "global", input.global, "Restoring");
    const target = revision.after ?? revision.before;
    if (!target) {
      throw new HarnessValidationError({
        surface: "revision",
        message: `Revision ${revision.id} records no entry state to restore`,
      });
    }
    const ref: EntryRef = {
      kind: revision.kind,
      scope: revision.scope,
      chatId: revision.chatId,
      id: revision.entryId,
    };
    const key = reserveKey(plan, ref);
    const current = await storage.getEntry({ workspaceId, ref, abortSignal });
    const currentVersion = current?.version ?? null;
    if (input.expectedVersion !== undefined && input.expectedVersion !== currentVersion) {
      throw conflictAt(ref, input.expectedVersion, currentVersion);
    }
    const version = current
      ? current.version + 1
      : versionAfter(await lastRevisionOfKey(key, abortSignal));
    const restored: Entry = {
      ...structuredClone(target),
      ...ref,
      version,
      createdAt: current?.createdAt ?? target.createdAt,
      createdBy: current?.createdBy ?? target.createdBy,
      updatedAt: plan.now,
      updatedBy: actor.userId,
    };
    assertValidEntry(restored);
    plan.changes.push({
      expectedVersion: currentVersion,
      revision: draft({
        ref,
        action: "restore",
        before: current,
        after: restored,
        reason: input.reason ?? plan.defaults.reason ?? `Restore revision ${revision.id}`,
        cause: input.cause ?? plan.defaults.cause ?? "rollback",
        now: plan.now,
      }),
    });
    return restored;
  }

  return { newPlan, planCreate, planUpdate, planDelete, planRestore, notFound };
}
