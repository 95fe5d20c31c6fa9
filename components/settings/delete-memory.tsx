"use client";

import { useState } from "react";
import { deleteMyMemoryAction } from "@/app/(app)/settings/data/actions";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { FormMessage } from "@/components/ui/form-message";
import { useAction } from "@/lib/actions/use-action";

/**
 * "Delete my memory": asks first, then deletes the person's memory files with their history,
 * their chats' notes and their exports, and says what went.
 */
export function DeleteMemoryPanel() {
  const { pending, error, run } = useAction();
  const [done, setDone] = useState<string | null>(null);
  return (
    <div className="max-w-3xl space-y-3">
      <ConfirmButton
        variant="destructive"
        disabled={pending}
        data-testid="delete-memory"
        confirm="Delete your memory? Your memory files and every earlier version of them, the notes of your chats with their history, and your exports are deleted for good. Your chats stay."
        onConfirm={() =>
          run(() => deleteMyMemoryAction({}), {
            refresh: true,
            onSuccess: (deleted) =>
              setDone(
                `Deleted ${deleted.files} memory file${deleted.files === 1 ? "" : "s"} with ${deleted.versions} earlier version${deleted.versions === 1 ? "" : "s"}, ${deleted.entries} chat note${deleted.entries === 1 ? "" : "s"} and ${deleted.exports} export${deleted.exports === 1 ? "" : "s"}.`,
              ),
          })
        }
      >
        Delete my memory
      </ConfirmButton>
      {done ? (
        <p className="text-sm" role="status" data-testid="memory-deleted">
          {done}
        </p>
      ) : null}
      <FormMessage message={error} />
    </div>
  );
}
