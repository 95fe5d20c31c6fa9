"use client";

import { useState } from "react";
import { restoreCommitAction } from "@/app/(app)/files/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { useAction } from "@/lib/actions/use-action";

/** Restores the files one commit changed to how it left them; the restore is a new commit. */
export function RestoreCommitButton(props: {
  harnessDir: string;
  commitId: string;
  version: number;
  /** The first paths the commit changed (a bulk import's are many). */
  paths: string[];
  /** How many paths it changed in all. */
  pathCount: number;
}) {
  const { pending, error, run } = useAction();
  const [done, setDone] = useState<string | null>(null);
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <Button
        size="sm"
        variant="outline"
        data-testid="restore-commit"
        disabled={pending}
        onClick={() => {
          const more = props.pathCount - props.paths.length;
          const files =
            props.paths.join(", ") +
            (more > 0 ? ` and ${more.toLocaleString("en-US")} more files` : "");
          const them = props.pathCount === 1 ? "it" : "them";
          if (
            !window.confirm(
              `Put ${files} back to how version ${props.version} left ${them}? This adds a new version; nothing in the history is lost.`,
            )
          ) {
            return;
          }
          setDone(null);
          run(() => restoreCommitAction({ harnessDir: props.harnessDir, id: props.commitId }), {
            onSuccess: setDone,
          });
        }}
      >
        {pending ? "Restoring…" : `Restore v${props.version}`}
      </Button>
      <FormMessage message={error} />
      <FormMessage message={error ? null : done} tone="info" />
    </span>
  );
}
