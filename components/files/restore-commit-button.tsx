"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { restoreCommitAction } from "@/app/(app)/files/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";

/** Restores the files one commit changed to how it left them; the restore is a new commit. */
export function RestoreCommitButton(props: {
  harnessDir: string;
  commitId: string;
  version: number;
  paths: string[];
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<{ tone: "error" | "info"; text: string } | null>(null);
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <Button
        size="sm"
        variant="outline"
        data-testid="restore-commit"
        disabled={pending}
        onClick={() => {
          const files = props.paths.join(", ");
          if (
            !window.confirm(
              `Put ${files} back to how version ${props.version} left ${props.paths.length === 1 ? "it" : "them"}? This adds a new version; nothing in the history is lost.`,
            )
          ) {
            return;
          }
          startTransition(async () => {
            const result = await restoreCommitAction({
              harnessDir: props.harnessDir,
              id: props.commitId,
            });
            setMessage(
              result.ok
                ? { tone: "info", text: result.message }
                : { tone: "error", text: result.error },
            );
            if (result.ok) router.refresh();
          });
        }}
      >
        {pending ? "Restoring…" : `Restore v${props.version}`}
      </Button>
      <FormMessage message={message?.text} tone={message?.tone} />
    </span>
  );
}
