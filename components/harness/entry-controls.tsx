"use client";

import {
  deleteEntryAction,
  restoreRevisionAction,
  setPinnedAction,
} from "@/app/(app)/harness/actions";
import { Button } from "@/components/ui/button";
import { ConfirmActionButton } from "@/components/ui/confirm-action-button";
import { FormMessage } from "@/components/ui/form-message";
import { useAction } from "@/lib/actions/use-action";
import { entryHref } from "./entry-href";

type Location = { scope: "global" } | { scope: "local"; chatId: string };
type Kind = "prompt" | "memory" | "skill" | "subagent";

export function EntryControls(props: {
  kind: Kind;
  id: string;
  version: number;
  pinned: boolean;
  location: Location;
}) {
  // Pin and Delete wait for each other and share the message after them.
  const action = useAction();
  const ref = {
    kind: props.kind,
    id: props.id,
    expectedVersion: props.version,
    location: props.location,
  };
  return (
    <div className="flex items-center gap-2">
      <Button
        variant="outline"
        size="sm"
        disabled={action.pending}
        data-testid="toggle-pin"
        onClick={() => action.run(() => setPinnedAction({ ...ref, pinned: !props.pinned }))}
      >
        {props.pinned ? "Unpin" : "Pin"}
      </Button>
      <ConfirmActionButton
        action={action}
        variant="destructive"
        data-testid="delete-entry"
        confirm="Delete this entry? Its history stays and it can be restored."
        call={() => deleteEntryAction(ref)}
        onSuccess={() => action.router.push("/harness")}
      >
        Delete
      </ConfirmActionButton>
      <FormMessage message={action.error} />
    </div>
  );
}

export function RestoreButton(props: { revisionId: string; location: Location; label?: string }) {
  const { error, pending, run, router } = useAction();
  return (
    <span className="inline-flex items-center gap-2">
      <Button
        variant="outline"
        size="sm"
        disabled={pending}
        data-testid="restore-revision"
        onClick={() =>
          run(
            () => restoreRevisionAction({ revisionId: props.revisionId, location: props.location }),
            {
              onSuccess: ({ entry }) => {
                if (entry) router.push(entryHref(entry));
              },
            },
          )
        }
      >
        {props.label ?? "Restore"}
      </Button>
      <FormMessage message={error} />
    </span>
  );
}
