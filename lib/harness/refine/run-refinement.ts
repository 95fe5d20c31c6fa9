import { type LanguageModel } from "ai";
import { canWriteGlobal, type Actor } from "../actor";
import { HarnessError, HarnessValidationError } from "../errors";
import { type Harness } from "../store";
import { applyRefinement } from "./apply-refinement";
import { buildRefinementContext, type RefinementContext } from "./build-refinement-context";
import { modelIdOf } from "./internal/structured-call";
import { planRefinement } from "./plan-refinement";
import { toErrorInfo } from "../errors";
import { defaultRefinementLock, refinementLockKey, type RefinementLock } from "./refinement-lock";
import { newRefinement, type RefinementStore } from "./refinement-store";
import { reviewRefinement } from "./review-refinement";
import {
  type ConversationMessage,
  type ModelCallUsage,
  type NewRefinement,
  type Refinement,
  type RefinementUsage,
  type ReviewDecision,
} from "./types";
import { assertHarnessOf } from "./internal/assert-harness-of";

/** What asked for a refinement. */
export interface RefinementTriggerInput {
  /** `explicit` skips the review gate; the automatic triggers go through it. */
  kind: "explicit" | "every-n-turns" | "compaction" | "feedback";
  /**
   * Evidence the host gathered for this run (the `feedback` trigger: the rated answers, their
   * comments and reason tags), shown to the review gate and the planner as its own section.
   */
  evidence?: string;
  /** What the user asked the planner to focus on. */
  instructions?: string;
  /** The explicit opt-in for a global refinement (also needs an editor or admin actor). */
  global?: boolean;
}

/** Input of `runRefinement`. */
export interface RunRefinementOptions {
  trigger: RefinementTriggerInput;
  /** The chat's harness, built for `actor`. */
  harness: Harness;
  store: RefinementStore;
  /** From `lib/ai`: the review gate's model and the planner's. */
  models: { review: LanguageModel; plan: LanguageModel };
  actor: Actor;
  /** The chat the refinement runs in; must be the harness's chat. */
  chatId: string | null;
  /** The conversation so far, oldest first. */
  conversation: readonly ConversationMessage[];
  /** When the refinement starts; its `createdAt`. */
  now: Date;
  /** Assistant turns since the review gate last ran in this chat (shown to the review gate). Default 0. */
  turnsSinceLastReview?: number;
  /** Workspace setting: a global proposal is stored as `pending` instead of applied. */
  globalNeedsApproval?: boolean;
  /** Refinement ids. Default `crypto.randomUUID()`. */
  generateId?: () => string;
  /** Default: the process-wide `defaultRefinementLock`. */
  lock?: RefinementLock;
  abortSignal?: AbortSignal;
}

function defaultGenerateId(): string {
  return globalThis.crypto.randomUUID();
}

function usageFromError(error: unknown): ModelCallUsage | undefined {
  if (!HarnessError.isInstance(error)) return undefined;
  const usage = error.details.usage as ModelCallUsage | undefined;
  return usage && typeof usage.modelId === "string" ? usage : undefined;
}

/** The refinements a chat's context shows: global ones and this chat's, newest first. */
export async function listRecentRefinements(options: {
  store: RefinementStore;
  workspaceId: string;
  chatId: string | null;
  limit?: number;
  abortSignal?: AbortSignal;
}): Promise<Refinement[]> {
  const page = await options.store.listRefinements({
    workspaceId: options.workspaceId,
    filter: options.chatId === null ? { scope: "global" } : { visibleToChat: options.chatId },
    limit: options.limit ?? 20,
    abortSignal: options.abortSignal,
  });
  // Requests still waiting or running (this one included) have no outcome to learn from.
  return page.items.filter((item) => item.status !== "queued" && item.status !== "running");
}

/**
 * Runs the refinement pipeline once and records the outcome: trigger → review gate
 * (automatic triggers only) → edit generation → validated application → one recorded
 * refinement row, whatever happened (a declined or failed review is recorded too, which is
 * what starts the review cooldown; truncated or malformed planner output is recorded as
 * `failed` and applies nothing; an empty plan is `no_changes`).
 *
 * Never runs two refinements at once for the same chat or for the workspace's global scope
 * (see `RefinementLock`; a second call waits for the first). A global refinement needs
 * `trigger.global` and an editor or admin; with `globalNeedsApproval` its proposal is
 * validated, stored as `pending` with the planned entry versions, and not applied.
 *
 * Aborting rejects with the abort reason and records nothing.
 */
export async function runRefinement(options: RunRefinementOptions): Promise<Refinement> {
  const { harness, actor, trigger } = options;
  assertHarnessOf(harness, actor, "runRefinement");
  if (harness.chatId !== options.chatId) {
    throw new HarnessValidationError({
      surface: "refinement",
      message: "runRefinement needs the harness of the chat it runs in",
    });
  }
  const scope = trigger.global === true ? "global" : "local";
  if (scope === "local" && options.chatId === null) {
    throw new HarnessValidationError({
      surface: "refinement",
      message: "A local refinement needs a chat",
    });
  }
  const lock = options.lock ?? defaultRefinementLock;
  const key = refinementLockKey({ workspaceId: actor.workspaceId, scope, chatId: options.chatId });
  return lock.runExclusive(key, () => runLocked(options, scope));
}

async function runLocked(
  options: RunRefinementOptions,
  scope: "local" | "global",
): Promise<Refinement> {
  const { harness, actor, trigger, store, abortSignal } = options;
  const automatic = trigger.kind !== "explicit";
  const userInstructions = trigger.instructions?.trim() || undefined;
  const usage: RefinementUsage = {};
  const base = newRefinement({
    id: (options.generateId ?? defaultGenerateId)(),
    workspaceId: actor.workspaceId,
    chatId: options.chatId,
    scope,
    trigger: trigger.kind,
    status: "failed",
    instructions: userInstructions ?? null,
    actorId: actor.userId,
    createdAt: options.now.toISOString(),
  });
  const record = (patch: Partial<NewRefinement>) =>
    store.createRefinement({
      refinement: {
        ...base,
        ...patch,
        usage: usage.review || usage.plan ? usage : null,
      },
      abortSignal,
    });

  const harnessVersion = await harness.getHarnessVersion({ abortSignal });
  base.harnessVersionBefore = harnessVersion;
  base.harnessVersionAfter = harnessVersion;

  if (scope === "global" && !canWriteGlobal(actor)) {
    // Refused before any model call: no tokens are spent on a proposal that cannot apply.
    return record({
      summary: "Global refinement refused",
      error: {
        code: "forbidden:refinement",
        message: `A global refinement needs the editor or admin role; this actor is a ${actor.role}`,
      },
    });
  }

  const refinements = await listRecentRefinements({
    store,
    workspaceId: actor.workspaceId,
    chatId: options.chatId,
    abortSignal,
  });
  const contextFor = (instructions: string | undefined): Promise<RefinementContext> =>
    buildRefinementContext({
      harness,
      refinements,
      conversation: options.conversation,
      trigger: trigger.kind,
      ...(trigger.evidence ? { evidence: trigger.evidence } : {}),
      turnsSinceLastReview: options.turnsSinceLastReview ?? 0,
      scopePolicy: { scope },
      instructions,
      abortSignal,
    });

  let instructions = userInstructions;
  let review: ReviewDecision | null = null;
  if (automatic) {
    const context = await contextFor(instructions);
    try {
      const result = await reviewRefinement({ model: options.models.review, context, abortSignal });
      review = result.decision;
      usage.review = result.usage;
    } catch (error) {
      if (abortSignal?.aborted) throw error;
      usage.review = usageFromError(error) ?? { modelId: modelIdOf(options.models.review) };
      return record({
        summary: "Review failed",
        error: toErrorInfo(error, "refine:error"),
        model: usage.review.modelId,
      });
    }
    if (!review.shouldRefine) {
      return record({
        status: "declined",
        review,
        summary: "Review declined",
        rationale: review.rationale,
        model: usage.review.modelId,
      });
    }
    instructions =
      [userInstructions, review.instructions].filter(Boolean).join("\n\n") || undefined;
  }

  const context = await contextFor(instructions);
  const planModelId = modelIdOf(options.models.plan);
  let plan;
  try {
    const result = await planRefinement({ model: options.models.plan, context, abortSignal });
    plan = result.plan;
    usage.plan = result.usage;
  } catch (error) {
    if (abortSignal?.aborted) throw error;
    usage.plan = usageFromError(error) ?? { modelId: planModelId };
    return record({
      review,
      instructions: context.instructions,
      summary: "Planning failed",
      error: toErrorInfo(error, "refine:error"),
      model: planModelId,
    });
  }

  const proposal: Partial<NewRefinement> = {
    review,
    instructions: context.instructions,
    summary: plan.summary,
    rationale: plan.rationale,
    expectedOutcome: plan.expectedOutcome,
    model: planModelId,
  };
  if (plan.edits.length === 0) return record({ ...proposal, status: "no_changes" });

  const pendingApproval = scope === "global" && options.globalNeedsApproval === true;
  const applied = await applyRefinement({
    harness,
    plan,
    scope,
    global: scope === "global",
    actor,
    plannedAt: { entryVersions: context.entryVersions, harnessVersion: context.harnessVersion },
    dryRun: pendingApproval,
    now: options.now,
    abortSignal,
  });
  return record({
    ...proposal,
    status: applied.status,
    edits: applied.edits,
    harnessVersionBefore: applied.harnessVersionBefore,
    harnessVersionAfter: pendingApproval ? null : applied.harnessVersionAfter,
  });
}
