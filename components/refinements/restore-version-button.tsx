"use client";

import { useState } from "react";
import { restoreToVersionAction } from "@/app/(app)/refinements/actions";
import { Button } from "@/components/ui/button";
import { ConfirmOrCancel } from "@/components/ui/confirm-or-cancel";
import { FormMessage } from "@/components/ui/form-message";
import { useAction } from "@/lib/actions/use-action";

/**
 * Restores the whole global harness to the version right after a refinement. Asks once more
 * inline (it touches every global entry); the restore is recorded as a refinement, so it can
 * be rolled back too. Opens the new restore refinement afterwards.
 */
export function RestoreVersionButton(props: { refinementId: string; version: number }) {
  const { pending, error, run, router } = useAction();
  const [confirming, setConfirming] = useState(false);
  const restore = () =>
    run(() => restoreToVersionAction({ id: props.refinementId }), {
      onSuccess: ({ refinementId }) => {
        setConfirming(false);
        router.push(`/refinements/${refinementId}`);
      },
    });
  return (
    <div className="space-y-2" data-testid="restore-version-control">
      {confirming ? (
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <span>Every global entry goes back to its state at harness version {props.version}.</span>
          <ConfirmOrCancel
            label={`Restore to v${props.version}`}
            testId="confirm-restore-version"
            disabled={pending}
            onConfirm={restore}
            cancelVariant="outline"
            cancelDisabled={pending}
            onCancel={() => setConfirming(false)}
          />
        </div>
      ) : (
        <Button
          variant="outline"
          size="sm"
          data-testid="restore-version"
          onClick={() => setConfirming(true)}
        >
          Restore harness to this version
        </Button>
      )}
      <FormMessage message={error} />
    </div>
  );
}
