import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { z } from "zod";
import { DiffView } from "@/components/harness/diff-view";
import { entryHref } from "@/components/harness/entry-href";
import { RevisionReason } from "@/components/harness/revision-reason";
import { ApprovalControls } from "@/components/refinements/approval-controls";
import { editCounts } from "@/components/refinements/edit-counts";
import { entryAsText, proposedAsText } from "@/components/refinements/entry-as-text";
import { EDIT_RESULT_TONES, TRIGGER_LABELS } from "@/components/refinements/refinement-labels";
import { RestoreVersionButton } from "@/components/refinements/restore-version-button";
import { RollbackControl } from "@/components/refinements/rollback-control";
import { StatusBadge } from "@/components/refinements/status-badge";
import { VerdictForm } from "@/components/refinements/verdict-form";
import { RefinementOutcome } from "@/components/feedback/refinement-outcome";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { memberNames } from "@/lib/accounts/queries";
import {
  isJudgeable,
  isRestorable,
  isRollbackable,
  mayDecideProposal,
  mayJudge as mayJudgeRefinement,
  mayRestore,
  mayWriteRefinementScope,
  requireActor,
} from "@/lib/auth";
import type { RecordedEdit, Refinement } from "@/lib/harness";
import { getOwnChat } from "@/lib/chat/queries";
import { getSql } from "@/lib/sql-storage/sql";
import {
  FEEDBACK_TAG_LABELS,
  getAutoVerdicts,
  listAnsweredFeedback,
  refinementOutcomes,
} from "@/lib/feedback";
import { refinementStore } from "@/lib/refinement-runs";
import { getWorkspaceSettings } from "@/lib/workspace-settings";
import { canSeeRefinement } from "@/lib/refinement-runs/queries";
import { cn } from "@/lib/utils";

export const metadata = { title: "Refinement" };

export const dynamic = "force-dynamic";

const paramsSchema = z.object({ id: z.string().min(1).max(200) });

function when(iso: string): ReactNode {
  return <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>;
}

function Section(props: { title: string; testId?: string; id?: string; children: ReactNode }) {
  return (
    <section className="space-y-2" data-testid={props.testId} id={props.id}>
      <h2 className="text-lg font-medium">{props.title}</h2>
      {props.children}
    </section>
  );
}

/** What a recorded edit touched, for its card's heading. */
function editTarget(edit: RecordedEdit): string {
  const entry = edit.after ?? edit.before;
  const id = entry?.id ?? edit.proposed.id ?? "";
  const title = entry?.title ?? edit.proposed.title;
  return [`${edit.proposed.action} ${edit.proposed.kind}`, id && `[${edit.scope}:${id}]`, title]
    .filter(Boolean)
    .join(" · ");
}

function EditCard({ edit, index }: { edit: RecordedEdit; index: number }) {
  const entry = edit.after ?? edit.before;
  // A failed or skipped edit has no "after" state: show what was proposed instead.
  const notApplied = edit.after === null && (edit.result === "failed" || edit.result === "skipped");
  const after = notApplied ? proposedAsText(edit.proposed) : entryAsText(edit.after);
  const afterLabel = notApplied
    ? "proposed (not applied)"
    : edit.after
      ? edit.result === "pending"
        ? "proposed"
        : `after (v${edit.after.version})`
      : "after (deleted)";
  return (
    <Card
      className="space-y-3 p-4"
      data-testid="edit-card"
      data-result={edit.result}
      data-action={edit.proposed.action}
      data-index={index}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="font-medium" data-testid="edit-target">
          {editTarget(edit)}
        </span>
        <span className="flex items-center gap-2">
          {entry && edit.result !== "pending" ? (
            <Link className="text-xs underline" href={entryHref(entry)}>
              entry history
            </Link>
          ) : null}
          <Badge className={EDIT_RESULT_TONES[edit.result]} data-testid="edit-result">
            {edit.result}
          </Badge>
        </span>
      </div>
      {edit.proposed.reason ? (
        <p className="text-muted-foreground text-sm" data-testid="edit-reason">
          Reason: <RevisionReason reason={edit.proposed.reason} />
        </p>
      ) : null}
      {edit.error ? (
        <p className="text-destructive text-sm" data-testid="edit-error">
          {edit.error.message} <span className="font-mono text-xs">({edit.error.code})</span>
        </p>
      ) : null}
      <DiffView
        before={entryAsText(edit.before)}
        after={after}
        beforeLabel={edit.before ? `before (v${edit.before.version})` : "before (none)"}
        afterLabel={afterLabel}
      />
    </Card>
  );
}

function Counts({ refinement }: { refinement: Refinement }) {
  const counts = editCounts(refinement);
  return (
    <span data-testid="refinement-counts">
      {counts.created} created · {counts.updated} updated · {counts.deleted} deleted ·{" "}
      {counts.failed} failed{counts.pending ? ` · ${counts.pending} pending` : ""}
    </span>
  );
}

export default async function RefinementPage(props: { params: Promise<{ id: string }> }) {
  const actor = await requireActor();
  const params = paramsSchema.safeParse(await props.params);
  if (!params.success) notFound();
  const store = refinementStore();
  const refinement = await store.getRefinement({
    workspaceId: actor.workspaceId,
    id: params.data.id,
  });
  // Another person's local refinement reads as missing: its chat is theirs.
  if (!refinement || !(await canSeeRefinement(actor, refinement))) notFound();

  const [chat, rollbacks, original, names, outcomes, verdicts, feedback, settings] =
    await Promise.all([
      refinement.chatId ? getOwnChat(actor, refinement.chatId) : Promise.resolve(null),
      store.listRefinements({
        workspaceId: actor.workspaceId,
        filter: { rollbackOf: refinement.id },
        limit: 20,
      }),
      refinement.rollbackOf
        ? store.getRefinement({ workspaceId: actor.workspaceId, id: refinement.rollbackOf })
        : Promise.resolve(null),
      memberNames(actor.workspaceId),
      refinementOutcomes({ workspaceId: actor.workspaceId, refinements: [refinement] }),
      getAutoVerdicts([refinement.id]),
      listAnsweredFeedback({ viewer: actor, refinementId: refinement.id }),
      getWorkspaceSettings(getSql(), actor.workspaceId),
    ]);
  const nameOf = (userId: string | null) =>
    userId === null
      ? "—"
      : userId === actor.userId
        ? "you"
        : (names.get(userId) ?? "a former member");

  const mayWriteScope = mayWriteRefinementScope(actor, refinement, chat !== null);
  // Rollbacks that changed something: once one exists, the refinement reads "Rolled back" and
  // cannot be rolled back again (its edits are already undone).
  const undoneBy = rollbacks.items.find(
    (rollback) => rollback.status === "applied" || rollback.status === "partial",
  );
  const rollbackable = isRollbackable(refinement);
  const restorable = isRestorable(refinement);
  const mayJudge = isJudgeable(refinement) && mayJudgeRefinement(actor, refinement);

  return (
    <div className="space-y-8" data-testid="refinement-detail" data-id={refinement.id}>
      <div className="space-y-2">
        <Link href="/refinements" className="text-muted-foreground text-sm hover:underline">
          ← Refinements
        </Link>
        <h1 className="text-2xl font-semibold" data-testid="refinement-title">
          {refinement.summary || "Refinement"}
        </h1>
        <div className="text-muted-foreground flex flex-wrap items-center gap-2 text-sm">
          <Badge data-testid="refinement-scope">{refinement.scope}</Badge>
          <Badge data-testid="refinement-trigger">{TRIGGER_LABELS[refinement.trigger]}</Badge>
          <StatusBadge status={refinement.status} rolledBackBy={undoneBy} />
          <span>{when(refinement.createdAt)}</span>
          <span>by {nameOf(refinement.actorId)}</span>
          {chat ? (
            <Link className="underline" href={`/chat/${chat.id}`}>
              chat “{chat.title}”
            </Link>
          ) : null}
          {refinement.harnessVersionBefore !== null ? (
            <span data-testid="harness-versions">
              {refinement.harnessVersionAfter !== null &&
              refinement.harnessVersionAfter !== refinement.harnessVersionBefore
                ? `Changed the harness from version ${refinement.harnessVersionBefore} to ${refinement.harnessVersionAfter}`
                : `Harness unchanged (version ${refinement.harnessVersionBefore})`}
            </span>
          ) : null}
          {refinement.model ? <span className="font-mono text-xs">{refinement.model}</span> : null}
        </div>
        <p className="text-sm">
          <Counts refinement={refinement} />
        </p>
        {original ? (
          <p className="text-sm">
            Rolls back{" "}
            <Link
              className="underline"
              href={`/refinements/${original.id}`}
              data-testid="rollback-of-link"
            >
              {original.summary || original.id}
            </Link>
          </p>
        ) : null}
        {rollbacks.items.length > 0 ? (
          <p className="text-sm" data-testid="rolled-back-by">
            Rolled back by{" "}
            {rollbacks.items.map((rollback, index) => (
              <span key={rollback.id}>
                {index > 0 ? ", " : ""}
                <Link
                  className="underline"
                  href={`/refinements/${rollback.id}`}
                  data-testid="rolled-back-by-link"
                >
                  {nameOf(rollback.actorId)} on {new Date(rollback.createdAt).toLocaleString()}
                </Link>
              </span>
            ))}
          </p>
        ) : null}
      </div>

      {rollbackable || restorable || refinement.status === "pending" ? (
        <Card className="space-y-4 p-4" data-testid="refinement-actions">
          {rollbackable ? (
            mayWriteScope ? (
              <RollbackControl refinementId={refinement.id} undoneBy={undoneBy} />
            ) : (
              <p className="text-muted-foreground text-sm" data-testid="rollback-unavailable">
                Rolling back a global refinement needs the editor or admin role.
              </p>
            )
          ) : null}
          {refinement.status === "pending" ? (
            mayDecideProposal(actor) ? (
              <ApprovalControls refinementId={refinement.id} />
            ) : (
              <p className="text-muted-foreground text-sm" data-testid="approval-unavailable">
                Waiting for an editor or admin to approve or reject this proposal.
              </p>
            )
          ) : null}
          {mayRestore(actor, refinement) ? (
            <RestoreVersionButton
              refinementId={refinement.id}
              version={refinement.harnessVersionAfter!}
            />
          ) : null}
        </Card>
      ) : null}

      {refinement.error ? (
        <Section title="Error" testId="refinement-error">
          <p className="text-destructive text-sm">
            {refinement.error.message}{" "}
            <span className="font-mono text-xs">({refinement.error.code})</span>
          </p>
        </Section>
      ) : null}

      {refinement.instructions ? (
        <Section title="Instructions" testId="refinement-instructions">
          <p className="text-sm whitespace-pre-wrap">{refinement.instructions}</p>
        </Section>
      ) : null}

      {refinement.rationale ? (
        <Section title="Rationale" testId="refinement-rationale">
          <p className="text-sm whitespace-pre-wrap">{refinement.rationale}</p>
        </Section>
      ) : null}

      {refinement.expectedOutcome || refinement.outcome ? (
        <Section title="Expected outcome" testId="refinement-expected-outcome">
          <p className="text-sm whitespace-pre-wrap">{refinement.expectedOutcome}</p>
          {refinement.outcome ? (
            <div
              className={cn(
                "rounded-md border p-3 text-sm",
                refinement.outcome.verdict === "confirmed"
                  ? "border-green-600/60"
                  : "border-destructive/60",
              )}
              data-testid="outcome-verdict"
              data-verdict={refinement.outcome.verdict}
            >
              <span className="font-medium">
                {refinement.outcome.verdict === "confirmed" ? "Confirmed" : "Refuted"}
              </span>{" "}
              by {nameOf(refinement.outcome.by)} on {when(refinement.outcome.at)}
              {refinement.outcome.note ? (
                <p className="mt-1 whitespace-pre-wrap">{refinement.outcome.note}</p>
              ) : null}
            </div>
          ) : verdicts.get(refinement.id) ? (
            <p className="text-sm" data-testid="outcome-auto-verdict">
              <span className="font-medium">
                {verdicts.get(refinement.id)!.verdict === "supported"
                  ? "Supported"
                  : "Not supported"}
              </span>{" "}
              by rated answers (automatic, see below); you can still give a verdict.
            </p>
          ) : (
            <p className="text-muted-foreground text-sm">No verdict yet.</p>
          )}
          {mayJudge ? (
            <VerdictForm
              refinementId={refinement.id}
              initial={
                refinement.outcome
                  ? { verdict: refinement.outcome.verdict, note: refinement.outcome.note }
                  : undefined
              }
            />
          ) : null}
        </Section>
      ) : null}

      {feedback.length > 0 ? (
        <Section title="Feedback it answers" testId="refinement-feedback" id="feedback">
          <p className="text-muted-foreground text-sm">
            {feedback.length} answer{feedback.length === 1 ? "" : "s"} rated down started this
            review.
          </p>
          <ul className="space-y-2 text-sm">
            {feedback.map((item) => (
              <li
                key={item.outcomeId}
                className="border-border rounded-md border p-2"
                data-testid="answered-feedback"
              >
                <div className="flex flex-wrap items-center gap-1.5">
                  <Badge>{item.rating === "bad" ? "Bad response" : "Good response"}</Badge>
                  {item.tags.map((tag) => (
                    <Badge key={tag} data-testid="answered-feedback-tag">
                      {FEEDBACK_TAG_LABELS[tag]}
                    </Badge>
                  ))}
                  {item.own ? (
                    <Link
                      className="text-xs underline"
                      href={`/chat/${item.chatId}/turns/${item.turnId}`}
                    >
                      the answer
                    </Link>
                  ) : (
                    <span className="text-muted-foreground text-xs">another person’s chat</span>
                  )}
                </div>
                {item.comment ? (
                  <p className="mt-1 whitespace-pre-wrap" data-testid="answered-feedback-comment">
                    “{item.comment}”
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
        </Section>
      ) : null}

      {outcomes.has(refinement.id) || verdicts.has(refinement.id) ? (
        <Section title="Rated answers" testId="refinement-rated-answers">
          <RefinementOutcome
            counts={outcomes.get(refinement.id)}
            verdict={verdicts.get(refinement.id)}
            judgeAfter={settings.feedbackJudgeAfter}
            guardRail={settings.feedbackGuardRail}
            rollback={
              rollbackable && mayWriteScope ? (
                <RollbackControl refinementId={refinement.id} undoneBy={undoneBy} />
              ) : undefined
            }
          />
          <p className="text-muted-foreground text-xs">
            Answers produced with the harness just before this refinement and after it (until the
            next one), rated by people in{" "}
            {refinement.scope === "global" ? "the workspace" : "this chat"}.{" "}
            <Link className="underline" href="/refinements/outcomes">
              All outcomes
            </Link>
          </p>
        </Section>
      ) : null}

      {refinement.review ? (
        <Section title="Review decision" testId="review-decision">
          <p className="text-sm">
            <span className="font-medium">
              {refinement.review.shouldRefine ? "Refine" : "Do not refine"}
            </span>{" "}
            — {refinement.review.rationale}
          </p>
          {refinement.review.instructions ? (
            <p className="text-muted-foreground text-sm whitespace-pre-wrap">
              Instructions for the planner: {refinement.review.instructions}
            </p>
          ) : null}
        </Section>
      ) : null}

      {refinement.approval ? (
        <Section title="Approval" testId="approval-decision">
          <p className="text-sm">
            <span className="font-medium">
              {refinement.approval.decision === "approved" ? "Approved" : "Rejected"}
            </span>{" "}
            by {nameOf(refinement.approval.by)} on {when(refinement.approval.at)}
          </p>
          {refinement.approval.note ? (
            <p className="text-muted-foreground text-sm whitespace-pre-wrap">
              {refinement.approval.note}
            </p>
          ) : null}
        </Section>
      ) : null}

      <Section title={`Edits (${refinement.edits.length})`} testId="refinement-edits">
        {refinement.edits.length === 0 ? (
          <p className="text-muted-foreground text-sm">
            {refinement.status === "no_changes"
              ? "The planner proposed no edits: nothing lasting to record."
              : "No edits."}
          </p>
        ) : (
          <div className="space-y-3">
            {refinement.edits.map((edit, index) => (
              <EditCard key={index} edit={edit} index={index} />
            ))}
          </div>
        )}
      </Section>
    </div>
  );
}
