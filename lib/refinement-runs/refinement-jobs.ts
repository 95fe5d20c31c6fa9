import "server-only";
import { getRefineModel } from "@/lib/ai";
import { loadChatMessages } from "@/lib/chat/messages";
import { cairn } from "@/lib/cairn";
import { feedbackEvidence, type FeedbackRefinementRequester } from "@/lib/feedback";
import {
  heldRefinementLock,
  isRole,
  messageText,
  newRefinement,
  refinementLockKey,
  runRefinement,
  type Actor,
  type NewRefinement,
  type RefinementLock,
  type RefinementStore,
} from "@/lib/harness";
import { harnessFor } from "@/lib/harness-for-actor";
import { getJobQueue, jobExpirySeconds, type Job, type JobQueue } from "@/lib/jobs";
import { SqlRefinementStore } from "@/lib/sql-storage/sql-refinement-store";
import { getSql, toDate } from "@/lib/sql-storage/sql";
import { getWorkspaceSettings, type WorkspaceSettingsValues } from "@/lib/workspace-settings";
import type { RefineRequest } from "./refine-tool";

export function refinementStore() {
  return new SqlRefinementStore(getSql());
}

/**
 * The refinement lock every app path uses (run, approve, rollback, restore): held across all
 * instances on the database — a PostgreSQL advisory lock, or a lock row on SQLite
 * (`cairn().refinementLock`).
 */
export function refinementLock(): RefinementLock {
  return cairn().refinementLock;
}

/**
 * The feedback trigger's way to ask for a review (`rateTurn` in `lib/feedback` takes it): a
 * `feedback` refinement of the chat, or of the workspace's global scope, under the id the
 * ratings were claimed for.
 */
export const requestFeedbackRefinement: FeedbackRefinementRequester = ({
  actor,
  chatId,
  id,
  global,
}) => requestRefinement({ actor, chatId, id, request: { kind: "feedback", global } });

/** The job queue's name for refinements. */
export const REFINEMENT_JOB = "refinement";

/** What a refinement job carries: who asked, where, and the row it completes. */
export interface RefinementJobPayload {
  refinementId: string;
  workspaceId: string;
  userId: string;
  chatId: string;
  request: RefineRequest;
  turnsSinceLastReview?: number;
}

/** Retries of a refinement job whose attempt threw (a database outage, a dead instance). */
const REFINEMENT_RETRY_LIMIT = 3;

/**
 * Requests a refinement: records it as `queued` (so it shows on /refinements at once) and
 * stores a job for it in the durable queue; a worker on any instance runs it later. Returns
 * the refinement's id, or null when no model is configured (nothing is recorded then). Fast:
 * two inserts, no model call — safe to await before answering the user.
 */
export async function requestRefinement(options: {
  actor: Actor;
  chatId: string;
  request: RefineRequest;
  turnsSinceLastReview?: number;
  /** The refinement's id when the caller chose it (the feedback trigger claims ratings for it first). */
  id?: string;
}): Promise<string | null> {
  const model = await getRefineModel({ workspaceId: options.actor.workspaceId });
  if (model.status !== "ready") {
    cairn().logger.warn({ chatId: options.chatId }, `refinement skipped: ${model.message}`);
    return null;
  }
  const { actor, chatId, request } = options;
  const store = refinementStore();
  const id = options.id ?? globalThis.crypto.randomUUID();
  const queued = newRefinement({
    id,
    workspaceId: actor.workspaceId,
    chatId,
    scope: request.global ? "global" : "local",
    trigger: request.kind,
    status: "queued",
    instructions: request.instructions?.trim() || null,
    actorId: actor.userId,
    createdAt: new Date().toISOString(),
  });
  await store.createRefinement({ refinement: queued });
  const payload: RefinementJobPayload = {
    refinementId: id,
    workspaceId: actor.workspaceId,
    userId: actor.userId,
    chatId,
    request,
    ...(options.turnsSinceLastReview !== undefined
      ? { turnsSinceLastReview: options.turnsSinceLastReview }
      : {}),
  };
  try {
    await getJobQueue().enqueue(REFINEMENT_JOB, payload, {
      // The row's id is the job's id, so the sweep can ask the queue what became of it.
      id,
      singletonKey: id,
      retryLimit: REFINEMENT_RETRY_LIMIT,
      retryDelaySeconds: 10,
      retryBackoff: true,
      expireInSeconds: jobExpirySeconds(),
    });
  } catch (error) {
    await store.updateRefinement({
      workspaceId: actor.workspaceId,
      id,
      expectedStatus: "queued",
      updatedAt: new Date().toISOString(),
      patch: {
        status: "failed",
        summary: "Could not be queued",
        error: {
          code: "refine:queue",
          message: `The job queue refused the request: ${error instanceof Error ? error.message : String(error)}`,
        },
      },
    });
    throw error;
  }
  return id;
}

/** The same as `requestRefinement`, for callers that must not wait or fail (after a turn). */
export function scheduleRefinement(options: Parameters<typeof requestRefinement>[0]): void {
  void requestRefinement(options).catch((error: unknown) =>
    cairn().logger.error({ err: error, chatId: options.chatId }, "requesting a refinement failed"),
  );
}

/** The person as an Actor, with the role read from the membership now (null: no longer a member). */
export async function actorNow(person: {
  userId: string;
  workspaceId: string;
}): Promise<Actor | null> {
  const membership = await getSql().get<{ role: string }>(
    `SELECT "role" FROM "Membership" WHERE "userId" = ? AND "workspaceId" = ?`,
    [person.userId, person.workspaceId],
  );
  if (!membership || !isRole(membership.role)) return null;
  return { userId: person.userId, workspaceId: person.workspaceId, role: membership.role };
}

/** The actor of a job, with the role read from the membership now (null: no longer a member). */
function actorOf(payload: RefinementJobPayload): Promise<Actor | null> {
  return actorNow(payload);
}

/**
 * A store that completes the queued row instead of adding one: `runRefinement` records its
 * outcome with `createRefinement`, which here becomes an update of the `running` row.
 */
function completingStore(store: RefinementStore): RefinementStore {
  return Object.assign(Object.create(store) as RefinementStore, {
    async createRefinement(options: { refinement: NewRefinement; abortSignal?: AbortSignal }) {
      const { refinement } = options;
      return store.updateRefinement({
        workspaceId: refinement.workspaceId,
        id: refinement.id,
        expectedStatus: "running",
        updatedAt: new Date().toISOString(),
        patch: {
          status: refinement.status,
          review: refinement.review,
          approval: refinement.approval,
          summary: refinement.summary,
          rationale: refinement.rationale,
          expectedOutcome: refinement.expectedOutcome,
          instructions: refinement.instructions,
          edits: refinement.edits,
          error: refinement.error,
          harnessVersionBefore: refinement.harnessVersionBefore,
          harnessVersionAfter: refinement.harnessVersionAfter,
          model: refinement.model,
          usage: refinement.usage,
        },
        abortSignal: options.abortSignal,
      });
    },
  });
}

/**
 * The worker's handler for one refinement job. Idempotent, which is what makes a job run once
 * across instances even when the queue delivers it again (an attempt that outran its expiry,
 * an instance killed mid-run): under the scope's database lock it re-reads the row, and only
 * a `queued` or `running` row is run — a `running` row found while holding the lock belongs
 * to an attempt that died (a live one would hold the lock). A row with an outcome is done.
 */
export async function runRefinementJob(job: Job<RefinementJobPayload>): Promise<string> {
  const payload = job.payload;
  const store = refinementStore();
  const found = await store.getRefinement({
    workspaceId: payload.workspaceId,
    id: payload.refinementId,
  });
  if (!found) return "missing";
  if (found.status !== "queued" && found.status !== "running") return "done";
  const scope = found.scope;
  const key = refinementLockKey({
    workspaceId: payload.workspaceId,
    scope,
    chatId: payload.chatId,
  });
  const fail = async (code: string, message: string, expectedStatus: "queued" | "running") =>
    store.updateRefinement({
      workspaceId: payload.workspaceId,
      id: payload.refinementId,
      expectedStatus,
      updatedAt: new Date().toISOString(),
      patch: { status: "failed", summary: "Refinement failed", error: { code, message } },
    });

  return refinementLock().runExclusive(key, async () => {
    const current = await store.getRefinement({
      workspaceId: payload.workspaceId,
      id: payload.refinementId,
    });
    if (!current || (current.status !== "queued" && current.status !== "running")) return "done";
    await store.updateRefinement({
      workspaceId: payload.workspaceId,
      id: payload.refinementId,
      expectedStatus: current.status,
      updatedAt: new Date().toISOString(),
      patch: { status: "running" },
    });
    const actor = await actorOf(payload);
    if (!actor) {
      await fail(
        "forbidden:refinement",
        "The person who asked is no longer a member of this workspace",
        "running",
      );
      return "forbidden";
    }
    const model = await getRefineModel({ workspaceId: actor.workspaceId });
    if (model.status !== "ready") {
      await fail("refine:model", model.message, "running");
      return "no-model";
    }
    try {
      const [harness, settings, messages] = await Promise.all([
        harnessFor(actor, payload.chatId),
        getWorkspaceSettings(getSql(), actor.workspaceId),
        loadChatMessages(getSql(), payload.chatId),
      ]);
      // A feedback review reads its evidence now: the ratings claimed for this refinement.
      const evidence =
        payload.request.kind === "feedback"
          ? await feedbackEvidence({ actor, refinementId: payload.refinementId })
          : undefined;
      const result = await runRefinement({
        trigger: { ...payload.request, ...(evidence ? { evidence } : {}) },
        harness,
        store: completingStore(store),
        models: { review: model.model, plan: model.model },
        actor,
        chatId: payload.chatId,
        conversation: messages
          .map((message) => ({ role: message.role, text: messageText(message) }))
          .filter((message) => message.text.trim() !== ""),
        now: new Date(),
        turnsSinceLastReview: payload.turnsSinceLastReview,
        globalNeedsApproval: settings.globalRefineNeedsApproval,
        generateId: () => payload.refinementId,
        // This task already holds the scope's lock.
        lock: heldRefinementLock,
      });
      return result.status;
    } catch (error) {
      // Out of retries: say so on the row; otherwise the queue retries and the row stays running.
      if (job.retryCount >= REFINEMENT_RETRY_LIMIT) {
        await fail(
          "refine:job",
          `The refinement could not run: ${error instanceof Error ? error.message : String(error)}`,
          "running",
        ).catch(() => undefined);
      }
      throw error;
    }
  });
}

/** What `sweepStuckRefinements` did. */
export interface RefinementSweepResult {
  /** Rows marked `failed` because their job ended (or vanished) without finishing them. */
  failed: string[];
}

/** A `queued`/`running` row whose job is unknown is left this long before it counts as lost. */
const LOST_JOB_GRACE_MS = 60 * 60 * 1000;

/** The message of a failed job's last error, as the queue stored it. */
function jobErrorMessage(output: unknown): string | null {
  if (typeof output === "string") return output;
  if (output && typeof output === "object") {
    const record = output as { message?: unknown; value?: { message?: unknown } };
    if (typeof record.message === "string") return record.message;
    if (typeof record.value?.message === "string") return record.value.message;
  }
  return null;
}

/**
 * Marks `failed` the refinements that will never finish: rows still `queued` or `running` whose
 * job has ended — its last attempt died (an instance killed mid-run, a claim that expired) or
 * threw before it could record an outcome — or whose job the queue no longer knows after an
 * hour. Each row is settled under its scope's lock, so a live attempt (it holds the lock) is
 * never overtaken; a row busy for longer than a few seconds is left for the next sweep. Every
 * worker instance runs it every minute (`startJobWorkers`); it is idempotent.
 */
export async function sweepStuckRefinements(
  options: { queue?: JobQueue; now?: () => Date; lockWaitMs?: number } = {},
): Promise<RefinementSweepResult> {
  const queue = options.queue ?? getJobQueue();
  const now = options.now ?? (() => new Date());
  const store = refinementStore();
  const rows = (
    await getSql().all<{
      id: string;
      workspaceId: string;
      chatId: string | null;
      scope: string;
      updatedAt: unknown;
    }>(
      `SELECT "id", "workspaceId", "chatId", "scope", "updatedAt" FROM "Refinement"
       WHERE "status" IN ('queued', 'running') ORDER BY "updatedAt" ASC LIMIT 50`,
    )
  ).map((row) => ({ ...row, updatedAt: toDate(row.updatedAt) }));
  const failed: string[] = [];
  for (const row of rows) {
    const job = await queue.getJob(REFINEMENT_JOB, row.id).catch(() => undefined);
    if (job === undefined) continue; // the queue did not answer: next sweep
    let error: { code: string; message: string };
    if (job === null) {
      if (now().getTime() - row.updatedAt.getTime() < LOST_JOB_GRACE_MS) continue;
      error = {
        code: "refine:lost",
        message:
          "This refinement's job was lost before it finished (the server stopped or the queue was cleared). Nothing was applied; ask again with /refine.",
      };
    } else if (job.state === "failed" || job.state === "completed" || job.state === "cancelled") {
      const cause = jobErrorMessage(job.output);
      error = {
        code: "refine:job",
        message: `This refinement stopped before it finished: its last attempt (${job.retryCount + 1} in all) ${cause ? `ended with: ${cause}` : "ended without an outcome"}. Nothing was applied; ask again with /refine.`,
      };
    } else continue; // waiting or running: the queue still owns it
    const key = refinementLockKey({
      workspaceId: row.workspaceId,
      scope: row.scope === "global" ? "global" : "local",
      chatId: row.chatId,
    });
    const wait = AbortSignal.timeout(options.lockWaitMs ?? 5_000);
    try {
      const settled = await refinementLock().runExclusive(
        key,
        async () => {
          const current = await store.getRefinement({ workspaceId: row.workspaceId, id: row.id });
          if (!current || (current.status !== "queued" && current.status !== "running"))
            return false;
          await store.updateRefinement({
            workspaceId: row.workspaceId,
            id: row.id,
            expectedStatus: current.status,
            updatedAt: now().toISOString(),
            patch: { status: "failed", summary: "Stopped before it finished", error },
          });
          return true;
        },
        { abortSignal: wait },
      );
      if (settled) failed.push(row.id);
    } catch (cause) {
      // Busy (an attempt holds the lock) or the database is away: the next sweep looks again.
      if (!wait.aborted) {
        cairn().logger.error({ err: cause, refinementId: row.id }, "sweeping a refinement failed");
      }
    }
  }
  return { failed };
}

/**
 * After a completed turn: every N assistant turns since the chat's last review, or after a
 * compaction, review for a refinement — unless the cooldown since the last review (declined and
 * failed ones count) has not passed.
 */
export async function maybeAutoRefine(options: {
  actor: Actor;
  chatId: string;
  compacted: boolean;
  /** The workspace's settings when the caller has read them already (the chat route has). */
  settings?: WorkspaceSettingsValues;
}): Promise<void> {
  const settings =
    options.settings ?? (await getWorkspaceSettings(getSql(), options.actor.workspaceId));
  // One statement: the last review and the completed turns since (the count is cheap, so it is
  // read even when the cooldown then decides).
  const { lastReviewAt, turnsSince: turns } = await refinementStore().getChatReviewProgress({
    workspaceId: options.actor.workspaceId,
    chatId: options.chatId,
  });
  const since = lastReviewAt ? new Date(lastReviewAt) : new Date(0);
  if (Date.now() - since.getTime() < settings.refineCooldownMinutes * 60_000) return;
  const kind =
    options.compacted && settings.refineAfterCompaction
      ? "compaction"
      : settings.refineEveryTurns > 0 && turns >= settings.refineEveryTurns
        ? "every-n-turns"
        : null;
  if (kind)
    scheduleRefinement({
      actor: options.actor,
      chatId: options.chatId,
      request: { kind },
      turnsSinceLastReview: turns,
    });
}
