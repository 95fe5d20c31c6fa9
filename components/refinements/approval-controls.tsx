"use client";

import { useState } from "react";
import { approveRefinementAction, rejectRefinementAction } from "@/app/(app)/refinements/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { useAction } from "@/lib/actions/use-action";

/** Approve or reject a pending global proposal (editors and admins). */
export function ApprovalControls({ refinementId }: { refinementId: string }) {
  const { pending, error, run } = useAction();
  const [note, setNote] = useState("");
  return (
    <div className="space-y-2" data-testid="approval-controls">
      <div className="flex flex-wrap items-center gap-2">
        <Button
          size="sm"
          disabled={pending}
          data-testid="approve"
          onClick={() => run(() => approveRefinementAction({ id: refinementId }))}
        >
          Approve and apply
        </Button>
        <Input
          className="w-64"
          placeholder="Why reject? (optional)"
          aria-label="Rejection note"
          value={note}
          maxLength={2000}
          onChange={(event) => setNote(event.target.value)}
        />
        <Button
          variant="outline"
          size="sm"
          disabled={pending}
          data-testid="reject"
          onClick={() => run(() => rejectRefinementAction({ id: refinementId, note }))}
        >
          Reject
        </Button>
      </div>
      <FormMessage message={error} />
    </div>
  );
}
