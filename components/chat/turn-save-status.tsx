"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { retryTurnSaveAction, turnSaveStatusAction } from "@/app/(app)/chat/turn-status-actions";
import { Button } from "@/components/ui/button";
import { useAction } from "@/lib/actions/use-action";
import type { TurnSaveStatus } from "@/lib/workspace-dirs";

/** How often a save retried automatically is re-checked. */
const POLL_MS = 3_000;
/** How often a save waiting for a person is re-checked (it may be settled on another page). */
const WAITING_POLL_MS = 5_000;

const failuresLink = (
  <Link className="underline" href="/files/failures">
    Commit failures
  </Link>
);

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** The line once nothing waits any more: what really became of the turn's changes. */
function SettledSave({ status }: { status: TurnSaveStatus }) {
  const applied = status.resolved;
  const notApplied = status.discarded + status.keptTheirs;
  if (applied > 0 && notApplied > 0)
    return (
      <span data-testid="save-partly">
        Memory partly saved after a retry: {plural(applied, "change set")} applied, {notApplied}{" "}
        settled without this turn&apos;s version on {failuresLink}.
      </span>
    );
  if (status.keptTheirs > 0)
    return (
      <span data-testid="save-kept-theirs">
        Not saved: the newer version of the clashing file was kept instead on {failuresLink}.
      </span>
    );
  if (status.discarded > 0)
    return (
      <span data-testid="save-discarded">
        Not saved: this turn&apos;s memory changes were discarded on {failuresLink}.
      </span>
    );
  return <span data-testid="save-recovered">Memory saved (after a retry).</span>;
}

/**
 * The status line of a turn whose changes are not saved: kept on the server and retried
 * automatically, or waiting for a person. It asks the server until nothing waits any more, so a
 * retry, Apply or Discard on the failures page (or in another tab) shows here too, and offers an
 * inline Retry of this turn's changes while they wait for a person.
 */
export function TurnSaveStatusLine({
  turnId,
  pending,
  failed,
}: {
  turnId: string;
  /** Change sets the turn left retrying automatically. */
  pending: number;
  /** Change sets the turn left waiting for a person. */
  failed: number;
}) {
  const [status, setStatus] = useState<TurnSaveStatus | null>(null);
  const [outcome, setOutcome] = useState<{ kind: "conflict" | "failed"; message: string } | null>(
    null,
  );
  const retry = useAction();
  const waiting = status ? status.pending + status.needsPerson : pending + failed;
  const interval = (status ? status.pending : pending) > 0 ? POLL_MS : WAITING_POLL_MS;

  useEffect(() => {
    if (waiting === 0) return;
    let cancelled = false;
    const poll = async () => {
      const result = await turnSaveStatusAction({ turnId, expected: pending });
      if (!cancelled && result.ok) setStatus(result.data);
    };
    void poll();
    const timer = setInterval(() => void poll(), interval);
    // Coming back from the failures page in another tab shows the outcome at once.
    const onVisible = () => {
      if (document.visibilityState === "visible") void poll();
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      cancelled = true;
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [turnId, pending, waiting, interval]);

  if (status && waiting === 0 && status.resolved + status.discarded + status.keptTheirs > 0)
    return <SettledSave status={status} />;
  if (status ? status.needsPerson === 0 && status.pending > 0 : failed === 0)
    return (
      <span className="text-amber-700 dark:text-amber-400" data-testid="save-pending">
        Memory not saved yet — kept on the server, retrying…
      </span>
    );

  const onRetry = () => {
    setOutcome(null);
    // A refusal (403: the role changed since the line was drawn) or a lost connection throws; the
    // line says so instead of replacing the chat with the error page.
    const call = () =>
      retryTurnSaveAction({ turnId }).catch(() => ({
        ok: false as const,
        error: {
          code: "internal",
          message: "The retry could not run (no permission, or no connection). Nothing is lost.",
        },
      }));
    retry.run(call, {
      refresh: false,
      onSuccess: (result) => {
        setStatus(result.saveStatus);
        if (result.status !== "settled")
          setOutcome({ kind: result.status, message: result.message });
      },
    });
  };
  const automatic = status !== null && status.pending > 0;
  return (
    <span className="text-destructive" data-testid="save-failed">
      {outcome ? (
        <span data-testid={outcome.kind === "conflict" ? "save-conflict" : "save-retry-failed"}>
          {outcome.message}
        </span>
      ) : (
        <>
          Saving memory failed
          {automatic ? " for part of this turn (the rest is still being retried)" : ""}
          {status?.conflicts ? " — the same file was changed meanwhile" : ""}
          {status?.refusal ? (
            <>
              : <span data-testid="save-refusal">{status.refusal}</span>
            </>
          ) : (
            "."
          )}{" "}
          Nothing is lost: its changes are kept on
        </>
      )}{" "}
      {outcome ? (
        <Link className="underline" href="/files/failures">
          Open Commit failures
        </Link>
      ) : (
        failuresLink
      )}
      {retry.error ? (
        <span className="ml-1" role="alert" data-testid="save-retry-error">
          {retry.error}
        </span>
      ) : null}
      {status?.canRetry ? (
        <Button
          type="button"
          variant="outline"
          size="sm"
          className="text-foreground ml-2 h-6 px-2 text-xs"
          disabled={retry.pending}
          onClick={onRetry}
          data-testid="save-retry"
        >
          {retry.pending ? "Retrying…" : "Retry"}
        </Button>
      ) : null}
    </span>
  );
}

/**
 * A turn's change refused for a reason that would repeat (a full history, a dir limit) and not
 * kept either, because the person's Commit failures already hold their bound: nothing of it waits
 * anywhere, so the line says so plainly and points at where room is made.
 */
export function NotKeptSave({ message }: { message: string }) {
  return (
    <span className="text-destructive" data-testid="save-not-kept">
      Memory not saved, and not kept: {message} Open {failuresLink}.
    </span>
  );
}

/** The notice where an interrupted turn's answer would be. */
export function InterruptedTurnNotice({
  keptChanges,
  savedChanges = 0,
}: {
  keptChanges: number;
  savedChanges?: number;
}) {
  if (keptChanges === 0 && savedChanges > 0)
    return (
      <p className="text-muted-foreground text-xs" data-testid="turn-interrupted">
        The server stopped after this turn; its answer was lost, but its memory changes were saved.
      </p>
    );
  return (
    <p className="text-destructive text-xs" data-testid="turn-interrupted">
      {keptChanges > 0 ? (
        <>
          This turn was interrupted — nothing from it was saved; its changes are kept on{" "}
          <Link className="underline" href="/files/failures">
            Commit failures
          </Link>
          .
        </>
      ) : (
        "This turn was interrupted — nothing from it was saved."
      )}
    </p>
  );
}
