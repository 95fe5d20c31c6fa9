"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import {
  confirmPendingChangeAction,
  discardPendingChangeAction,
  turnPendingChangesAction,
} from "@/app/(app)/chat/turn-status-actions";
import { DiffView } from "@/components/harness/diff-view";
import { Button } from "@/components/ui/button";
import { useAction } from "@/lib/actions/use-action";
import type { ActionResult } from "@/lib/actions/result";
import type { PendingChange, PendingChangeResult } from "@/lib/workspace-dirs";

type Outcome = { kind: "saved" | "discarded" } | { kind: "conflict" | "failed"; message: string };

const CHANGE_WORDS = { created: "new file", updated: "changed", deleted: "removed" } as const;

/** A refusal (403: the role changed) or a lost connection, said in the line instead of a crash. */
function caught<T>(call: () => Promise<T>) {
  return () =>
    call().catch(() => ({
      ok: false as const,
      error: {
        code: "internal",
        message:
          "That did not go through (no permission to change company knowledge, or no connection). Nothing was copied.",
      },
    }));
}

/**
 * A turn's change to company knowledge that copies text of the person's private memory: it was
 * not saved, and waits here with its diff until the person confirms it (it is saved then, as a
 * retry, with their role checked again) or discards it (nothing leaves their memory).
 */
export function PendingChangeConfirm({ turnId }: { turnId: string }) {
  const [changes, setChanges] = useState<PendingChange[] | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const act = useAction();

  useEffect(() => {
    let cancelled = false;
    void turnPendingChangesAction({ turnId })
      .then((result) => {
        if (!cancelled && result.ok) setChanges(result.data);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [turnId]);

  if (outcome?.kind === "saved")
    return (
      <p className="text-muted-foreground text-xs" data-testid="pending-change-saved">
        Confirmed: the change was saved to company knowledge.
      </p>
    );
  if (outcome?.kind === "discarded")
    return (
      <p className="text-muted-foreground text-xs" data-testid="pending-change-discarded">
        Discarded: nothing from your private memory was copied.
      </p>
    );
  // Settled elsewhere (Commit failures, another tab): nothing waits here any more.
  if (changes !== null && changes.length === 0) return null;

  /** Confirms (or discards) every held change of the turn, stopping at the first that does not settle. */
  const settle = (kind: "confirm" | "discard") => {
    setOutcome(null);
    const ids = (changes ?? []).map((change) => change.id);
    act.run(
      caught(async (): Promise<ActionResult<PendingChangeResult>> => {
        let last: ActionResult<PendingChangeResult> = {
          ok: false,
          error: { code: "not_found", message: "Nothing waits for your confirmation any more." },
        };
        for (const id of ids) {
          last =
            kind === "confirm"
              ? await confirmPendingChangeAction({ turnId, id })
              : await discardPendingChangeAction({ turnId, id });
          if (!last.ok || last.data.status === "conflict" || last.data.status === "failed")
            return last;
        }
        return last;
      }),
      {
        refresh: false,
        onSuccess: (result) =>
          setOutcome(
            "message" in result
              ? { kind: result.status, message: result.message }
              : { kind: result.status },
          ),
      },
    );
  };

  return (
    <div
      className="space-y-2 rounded-md border border-amber-500/50 p-3 text-sm"
      data-testid="pending-change"
    >
      <p className="font-medium">
        This turn wants to copy text from your private memory into company knowledge — review and
        confirm.
      </p>
      <p className="text-muted-foreground text-xs">
        Everyone in your workspace can read company knowledge. Nothing has been copied yet; if you
        did not ask for this, discard it.
      </p>
      {changes === null ? (
        <p className="text-muted-foreground text-xs">Loading the change…</p>
      ) : (
        changes.map((change) => (
          <details key={change.id} open className="space-y-2">
            <summary className="cursor-pointer text-xs">
              {change.files.length} file{change.files.length === 1 ? "" : "s"} in {change.dirLabel}
            </summary>
            {change.files.map((file) => (
              <div key={file.path} className="space-y-1" data-testid="pending-change-file">
                <p className="font-mono text-xs">
                  {file.path} ({CHANGE_WORDS[file.change]})
                </p>
                <DiffView
                  before={file.before ?? ""}
                  after={file.after ?? ""}
                  beforeLabel="Company knowledge now"
                  afterLabel="After this change"
                />
              </div>
            ))}
          </details>
        ))
      )}
      {outcome && "message" in outcome ? (
        <p className="text-destructive text-xs" data-testid="pending-change-problem">
          {outcome.message}{" "}
          <Link className="underline" href="/files/failures">
            Open Commit failures
          </Link>
        </p>
      ) : null}
      {act.error ? (
        <p className="text-destructive text-xs" role="alert" data-testid="pending-change-error">
          {act.error}
        </p>
      ) : null}
      <div className="flex gap-2">
        <Button
          type="button"
          size="sm"
          disabled={act.pending || changes === null}
          onClick={() => settle("confirm")}
          data-testid="pending-change-confirm"
        >
          Confirm
        </Button>
        <Button
          type="button"
          size="sm"
          variant="outline"
          disabled={act.pending || changes === null}
          onClick={() => settle("discard")}
          data-testid="pending-change-discard"
        >
          Discard
        </Button>
      </div>
    </div>
  );
}
