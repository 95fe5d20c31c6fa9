"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { turnSaveStatusAction } from "@/app/(app)/chat/turn-status-actions";

/** How often a pending save is re-checked. */
const POLL_MS = 3_000;

/**
 * The status line of a turn whose changes are not saved yet: kept on the server and retried
 * automatically. It asks the server until the retry settles, then says what really happened.
 */
export function PendingSaveStatus({ turnId, pending }: { turnId: string; pending: number }) {
  const [status, setStatus] = useState<{
    pending: number;
    needsPerson: number;
    resolved: number;
  } | null>(null);
  const settled = status !== null && status.pending === 0;
  useEffect(() => {
    if (settled) return;
    let cancelled = false;
    const check = async () => {
      const result = await turnSaveStatusAction({ turnId, expected: pending });
      if (!cancelled && result.ok) setStatus(result.data);
    };
    void check();
    const timer = setInterval(() => void check(), POLL_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [turnId, pending, settled]);

  if (status && status.pending === 0 && status.needsPerson === 0)
    return <span data-testid="save-recovered">Memory saved (after a retry).</span>;
  if (status && status.pending === 0)
    return (
      <span className="text-destructive" data-testid="save-needs-person">
        Saving memory failed after several retries — its changes are kept on{" "}
        <Link className="underline" href="/files/failures">
          Commit failures
        </Link>
      </span>
    );
  return (
    <span className="text-amber-700 dark:text-amber-400" data-testid="save-pending">
      Memory not saved yet — kept on the server, retrying…
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
