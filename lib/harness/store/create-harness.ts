// The harness facade: one actor in one chat. Planning each edit (scope, role, versions, the
// new state, the revision) is plan-edits.ts, with the pure rules in edit-planner.ts; this file
// commits the plans and serves the reads.
import { HarnessError, HarnessValidationError } from "../errors";
import { assertKind, createEditPlanner, type BatchPlan, type EditPlanner } from "./plan-edits";
import { entryKeyOf } from "./entry-key";
import {
  compareEntriesCanonically,
  reconstructHarnessState,
  sharedSnapshotCache,
} from "./reconstruct-harness-state";
import {
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
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type EntryFilter } from "./store-port";
import {
  ENTRY_KINDS,
  KIND_LABELS,
  type Entry,
  type EntryKind,
  type EntryRef,
  type EntryScope,
  type HarnessSnapshot,
  type Page,
  type Revision,
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
  CreateMemoryInput,
  UpdateMemoryInput,
  DeleteMemoryInput,
  CreatePromptInput,
  UpdatePromptInput,
  DeletePromptInput,
  CreateSkillInput,
  UpdateSkillInput,
  CreateSubagentInput,
  UpdateSubagentInput,
  CreateHarnessOptions,
  Harness,
} from "./harness-api";

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

  const plannerContext = { storage, chatId, via, clock, generateId, defaultSource };
  const ownPlanner = createEditPlanner({ ...plannerContext, actor });
  const { notFound } = ownPlanner;

  /**
   * Every write starts here, and only here can it get the planner that turns its input into a
   * batch for `commit`: the planner of the actor the write is made by. With `actorForWrite` that
   * is the actor it returns now (the role read at this write), so a write method cannot skip
   * the check — it has no other way to plan a change.
   */
  async function beginWrite(): Promise<EditPlanner> {
    if (!options.actorForWrite) return ownPlanner;
    const current = await options.actorForWrite();
    if (current.userId !== actor.userId || current.workspaceId !== actor.workspaceId) {
      throw new HarnessValidationError({
        surface: "harness",
        message: "actorForWrite must return the same person in the same workspace",
      });
    }
    return current.role === actor.role
      ? ownPlanner
      : createEditPlanner({ ...plannerContext, actor: current });
  }

  function readRef(locator: { kind: EntryKind; id: string; scope?: EntryScope }): EntryRef | null {
    assertKind(locator.kind);
    const scope = locator.scope ?? "local";
    if (scope === "global") return { kind: locator.kind, scope, chatId: null, id: locator.id };
    if (chatId === null) return null;
    return { kind: locator.kind, scope, chatId, id: locator.id };
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
    const { newPlan, planCreate } = await beginWrite();
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
    const { newPlan, planUpdate } = await beginWrite();
    const plan = newPlan();
    const entry = await planUpdate(input, plan, input.abortSignal);
    if (plan.changes.length > 0) await commit(plan, { abortSignal: input.abortSignal });
    return entry;
  }

  async function deleteEntry(input: DeleteEntryInput): Promise<Revision> {
    const { newPlan, planDelete } = await beginWrite();
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
    const { newPlan, planCreate, planUpdate, planDelete, planRestore } = await beginWrite();
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
    const { newPlan, planRestore } = await beginWrite();
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
    const limit = input.limit ?? 5;
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new HarnessValidationError({
        surface: "input",
        message: `overview limit must be a whole number of at least 0 (got ${String(input.limit)})`,
        details: { limit: input.limit },
      });
    }
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

    // The design's typed calls: the generic ones with the kind filled in, nothing else.
    createMemory: (input) => createEntry({ ...input, kind: "memory" }),
    updateMemory: (input) => updateEntry({ ...input, kind: "memory" }),
    deleteMemory: (input) => deleteEntry({ ...input, kind: "memory" }),
    createPrompt: (input) => createEntry({ ...input, kind: "prompt" }),
    updatePrompt: (input) => updateEntry({ ...input, kind: "prompt" }),
    deletePrompt: (input) => deleteEntry({ ...input, kind: "prompt" }),

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
