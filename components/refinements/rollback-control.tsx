"use client";

import Link from "next/link";
import { useState } from "react";
import {
  rollbackRefinementAction,
  type RollbackConflictView,
} from "@/app/(app)/refinements/actions";
import { DiffView } from "@/components/harness/diff-view";
import { Button } from "@/components/ui/button";
import { ConfirmOrCancel } from "@/components/ui/confirm-or-cancel";
import { FormMessage } from "@/components/ui/form-message";
import { useAction } from "@/lib/actions/use-action";
import { entryAsText } from "./entry-as-text";

type Decision = "revert" | "keep";

function describeChange(conflict: RollbackConflictView): string {
  const expected = conflict.expected ? `v${conflict.expected.version}` : "deleted";
  const current = conflict.current ? `v${conflict.current.version}` : "deleted";
  return `The refinement left it ${expected}; it is ${current} now.`;
}

/**
 * One-click rollback. When entries changed after the refinement, nothing is written yet: the
 * person decides per entry ("revert anyway" overwrites the later change, "keep" leaves it),
 * then applies the rollback with those decisions.
 */
export function RollbackControl({
  refinementId,
  undoneBy,
}: {
  refinementId: string;
  /** The rollback that already undid this refinement: the button is then disabled. */
  undoneBy?: { id: string } | null;
}) {
  const { pending, error, run: runAction } = useAction();
  const [conflicts, setConflicts] = useState<RollbackConflictView[] | null>(null);
  const [decisions, setDecisions] = useState<Record<string, Decision>>({});
  const [done, setDone] = useState<{ rollbackId: string; leftAlone: number } | null>(null);

  const run = (decide?: Record<string, Decision>) =>
    runAction(() => rollbackRefinementAction({ id: refinementId, decide }), {
      onSuccess: (outcome) => {
        if (!outcome.applied) {
          setConflicts(outcome.conflicts);
          setDecisions(Object.fromEntries(outcome.conflicts.map((c) => [c.entryKey, "keep"])));
          return;
        }
        setConflicts(null);
        setDone({ rollbackId: outcome.rollbackId, leftAlone: outcome.conflicts.length });
      },
      // Nothing changed until the rollback is applied.
      refresh: (outcome) => outcome.applied,
    });

  return (
    <div className="space-y-3" data-testid="rollback-control">
      {conflicts === null ? (
        <Button
          variant="destructive"
          size="sm"
          disabled={pending || Boolean(undoneBy)}
          data-testid="rollback"
          onClick={() => run()}
        >
          {pending ? "Rolling back…" : "Roll back"}
        </Button>
      ) : (
        <div
          className="space-y-4 rounded-lg border border-amber-500/60 p-4"
          data-testid="rollback-conflicts"
        >
          <div>
            <h3 className="font-medium">
              {conflicts.length === 1
                ? "1 entry changed after this refinement"
                : `${conflicts.length} entries changed after this refinement`}
            </h3>
            <p className="text-muted-foreground text-sm">
              The other edits roll back as usual. For each entry below, choose whether to revert it
              anyway (the later change is overwritten) or keep it as it is now.
            </p>
          </div>
          {conflicts.map((conflict) => (
            <fieldset
              key={conflict.entryKey}
              className="border-border space-y-2 rounded-md border p-3"
              data-testid="rollback-conflict"
              data-entry-key={conflict.entryKey}
            >
              <legend className="px-1 font-mono text-sm">
                {conflict.kind} [{conflict.scope}:{conflict.id}]
              </legend>
              <p className="text-muted-foreground text-sm">{describeChange(conflict)}</p>
              <DiffView
                before={entryAsText(conflict.current)}
                after={entryAsText(conflict.target)}
                beforeLabel={
                  conflict.current ? `now (v${conflict.current.version})` : "now (deleted)"
                }
                afterLabel={conflict.target ? "after revert" : "after revert (deleted)"}
              />
              <div className="flex gap-4 text-sm">
                {(["revert", "keep"] as const).map((choice) => (
                  <label key={choice} className="flex items-center gap-1">
                    <input
                      type="radio"
                      name={`decision-${conflict.entryKey}`}
                      value={choice}
                      checked={decisions[conflict.entryKey] === choice}
                      data-testid={`conflict-${choice}`}
                      onChange={() =>
                        setDecisions((current) => ({ ...current, [conflict.entryKey]: choice }))
                      }
                    />
                    {choice === "revert" ? "Revert anyway" : "Keep"}
                  </label>
                ))}
              </div>
            </fieldset>
          ))}
          <div className="flex gap-2">
            <ConfirmOrCancel
              label="Apply rollback"
              testId="apply-rollback"
              disabled={pending}
              onConfirm={() => run(decisions)}
              cancelVariant="outline"
              cancelDisabled={pending}
              onCancel={() => setConflicts(null)}
            />
          </div>
        </div>
      )}
      {undoneBy && !done && conflicts === null ? (
        <p className="text-muted-foreground text-sm" data-testid="already-rolled-back">
          Already rolled back —{" "}
          <Link className="underline" href={`/refinements/${undoneBy.id}`}>
            see the rollback
          </Link>
          .
        </p>
      ) : null}
      {done ? (
        <p className="text-sm" data-testid="rollback-done" aria-live="polite">
          Rolled back.{" "}
          {done.leftAlone > 0
            ? `${done.leftAlone} entr${done.leftAlone === 1 ? "y" : "ies"} changed meanwhile and ${done.leftAlone === 1 ? "was" : "were"} left alone. `
            : ""}
          <Link className="underline" href={`/refinements/${done.rollbackId}`}>
            See the rollback
          </Link>
        </p>
      ) : null}
      <FormMessage message={error} />
    </div>
  );
}
