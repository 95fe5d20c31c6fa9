// Over 500 lines, knowingly: the four planners (create, update, delete, restore), scope and role
// policy and the commit still share one closure over the storage port, actor and clock. Splitting
// out a pure edit planner that the refinement check also calls (issue 13, item 4) is the next
// step; the API types already live in harness-api.ts.
import { canWriteGlobal } from "../actor";
import {
  HarnessConflictError,
  HarnessError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "../errors";
import { assertValidEntry, ENTRY_ID_PATTERN, isReservedEntryId } from "./entry-contracts";
import { entryKeyOf } from "./entry-key";
import { jsonEqual } from "./internal/json-equal";
import {
  compareEntriesCanonically,
  reconstructHarnessState,
  sharedSnapshotCache,
} from "./reconstruct-harness-state";
import { slugCandidate, slugifyTitle } from "./slug";
import {
  type ScopeSelector,
  type WriteOptions,
  type CreateEntryInput,
  type UpdateEntryInput,
  type DeleteEntryInput,
  type RestoreRevisionInput,
  type SetPinnedInput,
  type EntryLocator,
  type ListEntriesInput,
  type ApplyEditsResult,
  type CreateHarnessOptions,
  type Harness,
} from "./harness-api";
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type EntryFilter,
  type StorageChange,
} from "./store-port";
import {
  DEFAULT_ENTRY_PATH,
  ENTRY_KINDS,
  KIND_LABELS,
  type Entry,
  type EntryKind,
  type EntryRef,
  type EntryScope,
  type EntrySource,
  type HarnessSnapshot,
  type Page,
  type Revision,
  type RevisionAction,
  type RevisionCause,
  type RevisionDraft,
} from "./types";

export type {
  ScopeSelector,
  WriteOptions,
  CreateEntryInput,
  UpdateEntryInput,
  DeleteEntryInput,
  RestoreRevisionInput,
  SetPinnedInput,
  EntryLocator,
  ListEntriesInput,
  HarnessEdit,
  ApplyEditsResult,
  CreateSkillInput,
  UpdateSkillInput,
  CreateSubagentInput,
  UpdateSubagentInput,
  CreateHarnessOptions,
  Harness,
} from "./harness-api";

const CAUSE_BY_SOURCE: Record<EntrySource, RevisionCause> = {
  user: "manual",
  agent: "agent",
  refinement: "refinement",
  import: "import",
};

const MAX_SLUG_ATTEMPTS = 1000;

function defaultGenerateId(): string {
  return globalThis.crypto.randomUUID();
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}

/** Builds the harness API for one actor in one chat. */
export function createHarness(options: CreateHarnessOptions): Harness {
  const { storage, actor, chatId, via } = options;
  const workspaceId = actor.workspaceId;
  const clock = options.clock ?? (() => new Date());
  const generateId = options.generateId ?? defaultGenerateId;
  const defaultSource = options.source ?? "user";
  const snapshotCache =
    options.snapshotCache === undefined ? sharedSnapshotCache : options.snapshotCache;

  if (chatId !== null && (typeof chatId !== "string" || chatId.length === 0)) {
    throw new HarnessValidationError({
      surface: "harness",
      message: "chatId must be a non-empty string or null",
    });
  }

  /** Mutable state of one batch being planned. */
  interface BatchPlan {
    now: string;
    changes: StorageChange[];
    keys: Set<string>;
    defaults: { reason?: string; cause?: RevisionCause; source?: EntrySource };
  }

  function newPlan(defaults: BatchPlan["defaults"] = {}): BatchPlan {
    return { now: clock().toISOString(), changes: [], keys: new Set(), defaults };
  }

  function sourceOf(input: WriteOptions, plan: BatchPlan): EntrySource {
    return input.source ?? plan.defaults.source ?? defaultSource;
  }

  function causeOf(input: WriteOptions, plan: BatchPlan, source: EntrySource): RevisionCause {
    return input.cause ?? plan.defaults.cause ?? CAUSE_BY_SOURCE[source];
  }

  function assertKind(kind: unknown): asserts kind is EntryKind {
    if (!(ENTRY_KINDS as readonly unknown[]).includes(kind)) {
      throw new HarnessValidationError({
        surface: "entry",
        message: `Unknown entry kind ${JSON.stringify(kind)}`,
        details: { kind },
      });
    }
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

  function readRef(locator: { kind: EntryKind; id: string; scope?: EntryScope }): EntryRef | null {
    assertKind(locator.kind);
    const scope = locator.scope ?? "local";
    if (scope === "global") return { kind: locator.kind, scope, chatId: null, id: locator.id };
    if (chatId === null) return null;
    return { kind: locator.kind, scope, chatId, id: locator.id };
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

  function staleVersion(
    ref: EntryRef,
    expectedVersion: number | null,
    currentVersion: number | null,
  ): HarnessConflictError {
    return new HarnessConflictError({
      surface: "entry",
      message:
        currentVersion === null
          ? `Entry ${ref.scope}:${ref.id} no longer exists (you expected version ${String(expectedVersion)})`
          : expectedVersion === null
            ? `Entry ${ref.scope}:${ref.id} already exists at version ${currentVersion}`
            : `Entry ${ref.scope}:${ref.id} is at version ${currentVersion}, not ${expectedVersion}: reread it and retry`,
      details: { entryKey: entryKeyOf(ref), expectedVersion, currentVersion },
    });
  }

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
      if (
        typeof input.id !== "string" ||
        !ENTRY_ID_PATTERN.test(input.id) ||
        isReservedEntryId(input.id)
      ) {
        throw new HarnessValidationError({
          surface: "entry",
          message: isReservedEntryId(String(input.id))
            ? "base_system_prompt is the base system prompt; it is not a harness entry and cannot be created or edited here"
            : `Invalid entry id ${JSON.stringify(input.id)}: use 1–80 characters of a-z, 0-9, '_' and '-', starting with a letter or digit`,
          details: { id: input.id },
        });
      }
      id = input.id;
      const ref: EntryRef = { kind: input.kind, ...where, id };
      const state = await readKeyForCreate(ref, abortSignal);
      if (state.entry) throw staleVersion(ref, null, state.entry.version);
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
    const entry: Entry = {
      ...ref,
      title: input.title,
      content: input.content,
      path: input.path ?? DEFAULT_ENTRY_PATH,
      metadata: input.metadata ?? {},
      pinned: input.pinned ?? false,
      source,
      version,
      createdAt: plan.now,
      updatedAt: plan.now,
      createdBy: actor.userId,
      updatedBy: actor.userId,
    };
    assertValidEntry(entry);
    plan.changes.push({
      expectedVersion: null,
      revision: draft({
        ref,
        action: "create",
        before: null,
        after: entry,
        reason: input.reason ?? plan.defaults.reason,
        cause: causeOf(input, plan, source),
        now: plan.now,
      }),
    });
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
      throw staleVersion(ref, input.expectedVersion, current.version);
    return { ref, current };
  }

  async function planUpdate(
    input: UpdateEntryInput,
    plan: BatchPlan,
    abortSignal?: AbortSignal,
  ): Promise<Entry> {
    const { ref, current } = await loadForWrite(input, "Updating", abortSignal);
    let metadata = input.metadata ?? current.metadata;
    if (input.metadataPatch) {
      metadata = { ...metadata };
      for (const [key, value] of Object.entries(input.metadataPatch)) {
        if (value === undefined) continue;
        if (value === null) delete metadata[key];
        else metadata[key] = value;
      }
    }
    const changed: Pick<Entry, "title" | "content" | "path" | "metadata" | "pinned"> = {
      title: input.title ?? current.title,
      content: input.content ?? current.content,
      path: input.path ?? current.path,
      metadata,
      pinned: input.pinned ?? current.pinned,
    };
    const unchanged =
      changed.title === current.title &&
      changed.content === current.content &&
      changed.path === current.path &&
      changed.pinned === current.pinned &&
      jsonEqual(changed.metadata, current.metadata);
    reserveKey(plan, ref);
    if (unchanged) return current;
    const source = sourceOf(input, plan);
    const next: Entry = {
      ...current,
      ...changed,
      source,
      version: current.version + 1,
      updatedAt: plan.now,
      updatedBy: actor.userId,
    };
    assertValidEntry(next);
    plan.changes.push({
      expectedVersion: current.version,
      revision: draft({
        ref,
        action: "update",
        before: current,
        after: next,
        reason: input.reason ?? plan.defaults.reason,
        cause: causeOf(input, plan, source),
        now: plan.now,
      }),
    });
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
    plan.changes.push({
      expectedVersion: current.version,
      revision: draft({
        ref,
        action: "delete",
        before: current,
        after: null,
        reason: input.reason ?? plan.defaults.reason,
        cause: causeOf(input, plan, source),
        now: plan.now,
      }),
    });
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
      throw staleVersion(ref, input.expectedVersion, currentVersion);
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

  async function commit(
    plan: BatchPlan,
    options: { expectedHarnessVersion?: number; abortSignal?: AbortSignal } = {},
  ) {
    return storage.applyChanges({
      workspaceId,
      changes: plan.changes,
      expectedHarnessVersion: options.expectedHarnessVersion,
      abortSignal: options.abortSignal,
    });
  }

  async function createEntry(input: CreateEntryInput): Promise<Entry> {
    // An auto-generated slug can race with a concurrent create of the same title; pick the next one.
    for (let attempt = 0; ; attempt++) {
      const plan = newPlan();
      const entry = await planCreate(input, plan, input.abortSignal);
      try {
        await commit(plan, { abortSignal: input.abortSignal });
        return entry;
      } catch (error) {
        if (
          input.id === undefined &&
          attempt < 3 &&
          HarnessError.isInstance(error) &&
          error.code === "conflict:entry"
        )
          continue;
        throw error;
      }
    }
  }

  async function updateEntry(input: UpdateEntryInput): Promise<Entry> {
    const plan = newPlan();
    const entry = await planUpdate(input, plan, input.abortSignal);
    if (plan.changes.length > 0) await commit(plan, { abortSignal: input.abortSignal });
    return entry;
  }

  async function deleteEntry(input: DeleteEntryInput): Promise<Revision> {
    const plan = newPlan();
    await planDelete(input, plan, input.abortSignal);
    const { revisions } = await commit(plan, { abortSignal: input.abortSignal });
    return revisions[0]!;
  }

  async function getEntry(input: EntryLocator): Promise<Entry | null> {
    const ref = readRef(input);
    if (!ref) return null;
    return storage.getEntry({ workspaceId, ref, abortSignal: input.abortSignal });
  }

  async function getEntryOrThrow(input: EntryLocator): Promise<Entry> {
    const entry = await getEntry(input);
    if (!entry) throw notFound({ kind: input.kind, scope: input.scope ?? "local", id: input.id });
    return entry;
  }

  function visibleFilter(input: Pick<ListEntriesInput, "scope">): EntryFilter | null {
    if (input.scope === "global") return { scope: "global" };
    if (input.scope === "local") return chatId === null ? null : { scope: "local", chatId };
    return chatId === null ? { scope: "global" } : { chatId };
  }

  async function listEntries(input: ListEntriesInput = {}): Promise<Page<Entry>> {
    const base = visibleFilter(input);
    if (!base) return { items: [], nextCursor: null };
    return storage.listEntries({
      workspaceId,
      filter: {
        ...base,
        kind: input.kind,
        pathPrefix: input.pathPrefix,
        text: input.text,
        pinned: input.pinned,
      },
      cursor: input.cursor,
      limit: clampLimit(input.limit),
      abortSignal: input.abortSignal,
    });
  }

  async function setPinned(input: SetPinnedInput): Promise<Entry> {
    return updateEntry({ ...input, pinned: input.pinned });
  }

  async function applyEdits(
    input: Parameters<Harness["applyEdits"]>[0],
  ): Promise<ApplyEditsResult> {
    const plan = newPlan({ reason: input.reason, cause: input.cause, source: input.source });
    for (const edit of input.edits) {
      switch (edit.op) {
        case "create":
          await planCreate(edit, plan, input.abortSignal);
          break;
        case "update":
          await planUpdate(edit, plan, input.abortSignal);
          break;
        case "delete":
          await planDelete(edit, plan, input.abortSignal);
          break;
        case "restore":
          await planRestore(edit, plan, input.abortSignal);
          break;
        default: {
          const unknownEdit: unknown = edit;
          throw new HarnessValidationError({
            surface: "edit",
            message: "Unknown edit op",
            details: { edit: unknownEdit },
          });
        }
      }
    }
    if (plan.changes.length === 0 && input.expectedHarnessVersion === undefined) {
      return {
        harnessVersion: await storage.getHarnessVersion({
          workspaceId,
          abortSignal: input.abortSignal,
        }),
        revisions: [],
      };
    }
    return commit(plan, {
      expectedHarnessVersion: input.expectedHarnessVersion,
      abortSignal: input.abortSignal,
    });
  }

  async function restoreRevision(input: RestoreRevisionInput): Promise<Revision> {
    const plan = newPlan();
    await planRestore(input, plan, input.abortSignal);
    const { revisions } = await commit(plan, { abortSignal: input.abortSignal });
    return revisions[0]!;
  }

  async function history(input: {
    entryId: string;
    kind?: EntryKind;
    scope?: EntryScope;
    abortSignal?: AbortSignal;
  }): Promise<Revision[]> {
    if (input.kind !== undefined) assertKind(input.kind);
    const kinds = input.kind ? [input.kind] : ENTRY_KINDS;
    const scopes: EntryScope[] = input.scope ? [input.scope] : ["global", "local"];
    const revisions: Revision[] = [];
    for (const scope of scopes) {
      if (scope === "local" && chatId === null) continue;
      for (const kind of kinds) {
        const entryKey = entryKeyOf({
          kind,
          scope,
          chatId: scope === "local" ? chatId : null,
          id: input.entryId,
        });
        let cursor: string | null = null;
        do {
          const page = await storage.listRevisions({
            workspaceId,
            entryKey,
            cursor,
            limit: MAX_PAGE_SIZE,
            abortSignal: input.abortSignal,
          });
          revisions.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor !== null);
      }
    }
    return revisions.sort(
      (a, b) =>
        a.harnessVersion - b.harnessVersion ||
        (a.entryKey < b.entryKey ? -1 : a.entryKey > b.entryKey ? 1 : 0),
    );
  }

  async function snapshot(
    input: { atVersion?: number; abortSignal?: AbortSignal } = {},
  ): Promise<HarnessSnapshot> {
    return reconstructHarnessState({
      storage,
      workspaceId,
      atVersion: input.atVersion,
      visibility: { kind: "chat", chatId },
      cache: snapshotCache,
      abortSignal: input.abortSignal,
    });
  }

  async function overview(
    input: { limit?: number; abortSignal?: AbortSignal } = {},
  ): Promise<string> {
    const limit = Math.max(0, Math.floor(input.limit ?? 5));
    const state = await snapshot({ abortSignal: input.abortSignal });
    const byKind = new Map<EntryKind, Entry[]>(ENTRY_KINDS.map((kind) => [kind, []]));
    for (const entry of state.entries) byKind.get(entry.kind)?.push(entry);
    const globalCount = state.entries.filter((entry) => entry.scope === "global").length;
    const counts = ENTRY_KINDS.map(
      (kind) => `${byKind.get(kind)?.length ?? 0} ${KIND_LABELS[kind].toLowerCase()}`,
    ).join(", ");
    const lines = [
      `Harness v${state.harnessVersion}: ${counts} (${globalCount} global, ${state.entries.length - globalCount} local)`,
    ];
    for (const kind of ENTRY_KINDS) {
      const entries = byKind.get(kind) ?? [];
      if (entries.length === 0) continue;
      entries.sort(
        (a, b) =>
          Number(b.pinned) - Number(a.pinned) ||
          (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0) ||
          compareEntriesCanonically(a, b),
      );
      lines.push(`${KIND_LABELS[kind]} (${entries.length}):`);
      for (const entry of entries.slice(0, limit)) {
        const label =
          kind === "skill" || kind === "subagent"
            ? String(entry.metadata.name ?? entry.title)
            : entry.title;
        lines.push(
          `  [${entry.scope}:${entry.id}] ${label} (${entry.path}, v${entry.version}${entry.pinned ? ", pinned" : ""})`,
        );
      }
      if (entries.length > limit) lines.push(`  +${entries.length - limit} more`);
    }
    return lines.join("\n");
  }

  function skillMetadata(input: {
    metadata?: Record<string, unknown>;
    name: string;
    description: string;
  }) {
    return { ...input.metadata, name: input.name, description: input.description };
  }

  return {
    actor,
    chatId,
    createEntry,
    updateEntry,
    deleteEntry,
    getEntry,
    getEntryOrThrow,
    listEntries,

    createSkill: ({ name, description, body, title, metadata, ...rest }) =>
      createEntry({
        ...rest,
        kind: "skill",
        title: title ?? name,
        content: body,
        metadata: skillMetadata({ metadata, name, description }),
      }),
    updateSkill: ({ name, description, body, metadataPatch, ...rest }) =>
      updateEntry({
        ...rest,
        kind: "skill",
        content: body,
        metadataPatch: { ...metadataPatch, name, description },
      }),

    createSubagent: ({ name, description, instructions, tools, model, title, metadata, ...rest }) =>
      createEntry({
        ...rest,
        kind: "subagent",
        title: title ?? name,
        content: instructions,
        metadata: {
          ...skillMetadata({ metadata, name, description }),
          tools,
          ...(model === undefined ? {} : { model }),
        },
      }),
    updateSubagent: ({ name, description, instructions, tools, model, metadataPatch, ...rest }) =>
      updateEntry({
        ...rest,
        kind: "subagent",
        content: instructions,
        metadataPatch: { ...metadataPatch, name, description, tools, model },
      }),

    setPinned,

    applyEdits,
    restoreRevision,
    history,
    snapshot,
    getHarnessVersion: (input = {}) =>
      storage.getHarnessVersion({ workspaceId, abortSignal: input.abortSignal }),
    overview,
  };
}
