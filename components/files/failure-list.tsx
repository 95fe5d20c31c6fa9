"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";
import {
  discardCommitAction,
  resolveConflictAction,
  retryCommitAction,
} from "@/app/(app)/files/actions";
import { DiffView } from "@/components/harness/diff-view";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { FormMessage } from "@/components/ui/form-message";
import type { ActionResult } from "@/lib/actions/result";
import type { FailureView } from "@/lib/workspace-dirs";

/** A retry, resolution or discard: what it came to, in words. */
type CommitActionResult = ActionResult<string>;

type ContentView = { text: string | null; bytes: number } | null;

function Content({ value, testId }: { value: ContentView; testId?: string }) {
  if (value === null) return <p className="text-muted-foreground text-xs italic">(absent)</p>;
  return (
    <pre
      data-testid={testId}
      className="border-border bg-muted/40 max-h-60 overflow-auto rounded border p-2 text-xs whitespace-pre-wrap"
    >
      {value.text ?? `(binary, ${value.bytes} bytes)`}
    </pre>
  );
}

const reasons: Record<string, string> = {
  "both-modified": "changed on both sides",
  "both-created": "created on both sides",
  "modify-delete": "changed on one side, deleted on the other",
  binary: "binary content changed on both sides",
};

function FailureCard(props: {
  failure: FailureView;
  onResult: (result: CommitActionResult) => void;
}) {
  const { failure } = props;
  const [pending, startTransition] = useTransition();
  const [merged, setMerged] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      // The editable text starts as this change's own text, never with merge markers: the
      // side-by-side view above shows what the saved version has.
      failure.conflicts.map((conflict) => [
        conflict.path,
        conflict.ours?.text ?? conflict.mergeText ?? "",
      ]),
    ),
  );
  const run = (action: () => Promise<CommitActionResult>) =>
    startTransition(async () => props.onResult(await action()));
  const editable =
    failure.conflicts.length > 0 && failure.conflicts.every((c) => c.mergeText !== null);
  const resolveButton = (
    testId: string,
    label: string,
    resolution: Parameters<typeof resolveConflictAction>[0]["resolution"],
  ) => (
    <Button
      size="sm"
      variant="outline"
      data-testid={testId}
      disabled={pending}
      onClick={() => run(() => resolveConflictAction({ id: failure.id, resolution }))}
    >
      {label}
    </Button>
  );

  return (
    <Card className="space-y-3 p-4" data-testid="failure-row" data-commit-id={failure.id}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <Badge data-testid="failure-status">
            {failure.resolution ? `resolved: ${failure.resolution}` : failure.status}
          </Badge>
          <span className="font-medium">{failure.dirLabel}</span>
          <span className="text-muted-foreground font-mono text-xs">{failure.harnessDir}</span>
        </div>
        <span className="text-muted-foreground text-xs">
          {new Date(failure.createdAt).toISOString().replace("T", " ").slice(0, 19)} UTC ·{" "}
          {failure.attempts} attempt{failure.attempts === 1 ? "" : "s"}
        </span>
      </div>
      {failure.error ? (
        <p className="text-sm" data-testid="failure-error">
          {failure.error.message}
        </p>
      ) : null}
      <ul className="space-y-1 text-sm" data-testid="failure-changes">
        {failure.files.map((file) => (
          <li
            key={`${file.change}:${file.path}`}
            data-testid="failure-change"
            data-path={file.path}
          >
            <details>
              <summary className="cursor-pointer">
                <span className="font-mono">
                  {file.change === "created" ? "+" : file.change === "updated" ? "~" : "-"}{" "}
                  {file.path}
                </span>{" "}
                <span className="text-muted-foreground">({file.change})</span>
              </summary>
              {file.content ? <Content value={file.content} /> : null}
            </details>
          </li>
        ))}
      </ul>
      {failure.conflicts.map((conflict) => (
        <div
          key={conflict.path}
          className="space-y-2"
          data-testid="conflict"
          data-path={conflict.path}
        >
          <p className="text-sm">
            <span className="font-mono">{conflict.path}</span>:{" "}
            {reasons[conflict.reason] ?? conflict.reason}
          </p>
          {conflict.ours?.text != null && conflict.theirs?.text != null ? (
            // Both sides are text: what the saved version has (left) against this commit's
            // change (right), changed lines highlighted.
            <div data-testid="conflict-diff">
              <DiffView
                before={conflict.theirs.text}
                after={conflict.ours.text}
                beforeLabel="Saved now: the version in the files"
                afterLabel="This change: what the failed save wanted to write"
              />
            </div>
          ) : (
            <div className="grid gap-2 md:grid-cols-2">
              <div>
                <p className="text-muted-foreground text-xs">This change (the failed save)</p>
                <Content value={conflict.ours} testId="conflict-ours" />
              </div>
              <div>
                <p className="text-muted-foreground text-xs">Saved now (in the files)</p>
                <Content value={conflict.theirs} testId="conflict-theirs" />
              </div>
            </div>
          )}
          {failure.canAct && editable ? (
            <textarea
              aria-label={`Merged content of ${conflict.path}`}
              data-testid="resolve-text"
              className="border-border min-h-32 w-full rounded-md border bg-transparent p-2 font-mono text-xs"
              value={merged[conflict.path] ?? ""}
              onChange={(event) =>
                setMerged((current) => ({ ...current, [conflict.path]: event.target.value }))
              }
            />
          ) : null}
        </div>
      ))}
      {failure.canAct ? (
        <div className="flex flex-wrap gap-2">
          <Button
            size="sm"
            data-testid="retry-commit"
            disabled={pending}
            onClick={() => run(() => retryCommitAction({ id: failure.id }))}
          >
            {failure.status === "interrupted" ? "Apply" : "Retry"}
          </Button>
          {failure.status === "interrupted" ? (
            <Button
              size="sm"
              variant="outline"
              data-testid="discard-commit"
              disabled={pending}
              onClick={() => run(() => discardCommitAction({ id: failure.id }))}
            >
              Discard
            </Button>
          ) : null}
          {failure.status === "conflict" ? (
            <>
              {resolveButton("resolve-ours", "Use this change", "ours")}
              {resolveButton("resolve-theirs", "Keep the saved version", "theirs")}
              {editable ? resolveButton("resolve-edited", "Save merged text", merged) : null}
            </>
          ) : null}
        </div>
      ) : failure.status !== "resolved" ? (
        <p className="text-muted-foreground text-xs" data-testid="failure-readonly">
          Only editors and admins may retry or resolve commits to company knowledge.
        </p>
      ) : null}
    </Card>
  );
}

/** How often the list re-reads the server while open: automatic retries change it meanwhile. */
const REFRESH_MS = 5_000;

/**
 * The failed, conflicting and interrupted commits the actor can see, with retry, apply, discard
 * and resolution. Re-reads the server every few seconds while visible, so a record an automatic
 * retry (or another person) settled never stays on screen with a stale status.
 */
export function FailureList(props: {
  failures: FailureView[];
  status: "open" | "resolved";
  /** Failed commits being retried automatically (not listed: nobody needs to act yet). */
  retrying?: number;
}) {
  const [result, setResult] = useState<CommitActionResult | null>(null);
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") router.refresh();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [router]);
  return (
    <div className="space-y-3">
      {props.retrying ? (
        <p className="text-muted-foreground text-sm" data-testid="failures-retrying">
          {props.retrying} change{props.retrying === 1 ? " is" : "s are"} not saved yet and{" "}
          {props.retrying === 1 ? "is" : "are"} being retried automatically;{" "}
          {props.retrying === 1 ? "it appears" : "they appear"} here only if the retries run out.
        </p>
      ) : null}
      {result ? (
        result.ok ? (
          <FormMessage tone="info" message={result.data} />
        ) : (
          <FormMessage message={result.error.message} />
        )
      ) : null}
      {props.failures.length === 0 ? (
        <p className="text-muted-foreground text-sm" data-testid="no-failures">
          {props.status === "open"
            ? "No failed or conflicting commits. Nothing is waiting."
            : "Nothing resolved yet."}
        </p>
      ) : (
        props.failures.map((failure) => (
          <FailureCard key={failure.id} failure={failure} onResult={setResult} />
        ))
      )}
    </div>
  );
}
