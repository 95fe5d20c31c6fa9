"use client";

import Link from "next/link";
import { DiffView } from "@/components/harness/diff-view";
import { StatusBadge } from "@/components/refinements/status-badge";
import { Badge } from "@/components/ui/badge";
import type { Refinement } from "@/lib/harness";
import { cn } from "@/lib/utils";

/** Host UI after a refinement: what it created, updated, deleted or failed, with diffs. */
export function RefinementCard({
  refinement,
  rolledBackBy,
}: {
  refinement: Refinement;
  /** The rollback that undid it, if any. */
  rolledBackBy?: { id: string } | null;
}) {
  const count = (predicate: (edit: Refinement["edits"][number]) => boolean) =>
    refinement.edits.filter(predicate).length;
  const applied = (action: string) =>
    count((edit) => edit.result === "applied" && edit.proposed.action === action);
  const failed = count((edit) => edit.result === "failed");
  return (
    <div
      className={cn(
        "border-border space-y-2 rounded-lg border p-3 text-sm",
        refinement.status === "failed" && "border-destructive/50",
      )}
      data-testid="refinement-card"
      data-status={refinement.status}
    >
      <div className="flex items-center justify-between gap-2">
        <span className="font-medium">
          Refinement · {refinement.summary || refinement.status.replace("_", " ")}
        </span>
        <span className="flex items-center gap-2">
          <Badge>{refinement.scope}</Badge>
          <StatusBadge status={refinement.status} rolledBackBy={rolledBackBy} />
          <Link className="text-xs underline" href={`/refinements/${refinement.id}`}>
            details
          </Link>
        </span>
      </div>
      {refinement.trigger === "explicit" && refinement.instructions ? (
        <p className="text-xs" data-testid="refinement-card-instructions">
          <span className="text-muted-foreground">You asked: </span>“{refinement.instructions}”
        </p>
      ) : null}
      {refinement.trigger === "feedback" ? (
        <p className="text-muted-foreground text-xs" data-testid="refinement-card-feedback">
          Started by answers rated down;{" "}
          <Link className="underline" href={`/refinements/${refinement.id}#feedback`}>
            the feedback it answers
          </Link>
        </p>
      ) : null}
      <p className="text-muted-foreground text-xs" data-testid="refinement-counts">
        created {applied("create")} · updated {applied("update")} · deleted {applied("delete")} ·
        failed {failed}
      </p>
      {refinement.error ? (
        <p className="text-destructive text-xs">{refinement.error.message}</p>
      ) : null}
      {refinement.edits.map((edit, index) => (
        <details key={index} className="text-xs">
          <summary className="cursor-pointer">
            {edit.proposed.action} {edit.proposed.kind}{" "}
            {edit.after?.id ?? edit.before?.id ?? edit.proposed.id ?? edit.proposed.title ?? ""} —{" "}
            {edit.result}
            {edit.error ? `: ${edit.error.message}` : ""}
          </summary>
          <DiffView
            before={edit.before?.content ?? ""}
            after={edit.after?.content ?? ""}
            beforeLabel={edit.before ? `v${edit.before.version}` : "(none)"}
            afterLabel={edit.after ? `v${edit.after.version}` : "(none)"}
          />
        </details>
      ))}
    </div>
  );
}
