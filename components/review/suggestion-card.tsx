"use client";

import Link from "next/link";
import { useState } from "react";
import { approveSuggestionAction, rejectSuggestionAction } from "@/app/(app)/review/actions";
import { DiffView } from "@/components/harness/diff-view";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmOrCancel } from "@/components/ui/confirm-or-cancel";
import { Card } from "@/components/ui/card";
import { FormMessage } from "@/components/ui/form-message";
import { useAction } from "@/lib/actions/use-action";
import type { ApproveResult, SuggestionConflict } from "@/lib/review";

/** One changed file (or an entry's content) of a suggestion, as the card shows it. */
export interface SuggestionFileView {
  /** The path in the dir, or `kind/id` for an entry. */
  path: string;
  before: string | null;
  after: string | null;
  binary: boolean;
}

/** A suggestion as the review page hands it to the card (plain data). */
export interface SuggestionCardData {
  id: string;
  target: "dir" | "entry";
  title: string;
  note: string;
  source: string;
  status: string;
  authorName: string;
  createdAt: string;
  decidedByName: string | null;
  decidedAt: string | null;
  decisionNote: string | null;
  /** The chat it came from, linked for its author only (chats are private). */
  chatHref: string | null;
  files: SuggestionFileView[];
  /** An entry suggestion's title before and after, when it changes. */
  entryTitle: { before: string | null; after: string | null } | null;
}

const SOURCE_LABEL: Record<string, string> = {
  turn: "from a chat",
  mcp: "through MCP",
  editor: "from the Files editor",
  "entry-page": "from an entry's page",
  promotion: "promoted",
};

const textareaClass =
  "border-border focus-visible:ring-ring min-h-[10rem] w-full resize-y rounded-md border bg-transparent p-2 font-mono text-xs leading-5 focus-visible:ring-2 focus-visible:outline-none";

function FileDiff({ file }: { file: SuggestionFileView }) {
  if (file.binary)
    return <p className="text-muted-foreground text-xs italic">(binary content changed)</p>;
  return (
    <DiffView
      before={file.before ?? ""}
      after={file.after ?? ""}
      beforeLabel={file.before === null ? "(new file)" : "Current when suggested"}
      afterLabel={file.after === null ? "(deleted)" : "Suggested"}
    />
  );
}

function ConflictView(props: {
  conflicts: SuggestionConflict[];
  merged: Record<string, string>;
  onChange: (path: string, text: string) => void;
}) {
  return (
    <div className="space-y-3" data-testid="suggestion-conflict">
      {props.conflicts.map((conflict) => (
        <div key={conflict.path} className="space-y-2">
          <p className="font-mono text-xs font-semibold">{conflict.path}</p>
          <DiffView
            before={conflict.current ?? ""}
            after={conflict.proposed ?? ""}
            beforeLabel={conflict.current === null ? "(absent now)" : "Now"}
            afterLabel={conflict.proposed === null ? "(deleted)" : "Suggested"}
          />
          <label className="block space-y-1 text-xs">
            <span className="font-medium">Merged text (what approving writes)</span>
            <textarea
              aria-label={`Merged text of ${conflict.path}`}
              data-testid="suggestion-merge-input"
              spellCheck={false}
              className={textareaClass}
              value={props.merged[conflict.path] ?? ""}
              onChange={(event) => props.onChange(conflict.path, event.target.value)}
            />
          </label>
        </div>
      ))}
    </div>
  );
}

/**
 * One suggestion with its diff. Editors and admins (`canReview`) approve it, edit then approve,
 * or reject it with a reason; a conflict with a newer version is shown with a merge box, to
 * approve merged or send back. Its author sees it and, once decided, the decision and reason.
 */
export function SuggestionCard(props: { suggestion: SuggestionCardData; canReview: boolean }) {
  const { suggestion } = props;
  const { pending, error, run } = useAction();
  const [mode, setMode] = useState<"view" | "edit" | "reject">("view");
  const [reason, setReason] = useState("");
  const [conflict, setConflict] = useState<Extract<ApproveResult, { status: "conflict" }> | null>(
    null,
  );
  const [edited, setEdited] = useState<Record<string, string>>({});
  const [done, setDone] = useState<string | null>(null);
  const open = suggestion.status === "open" || suggestion.status === "applying";

  const startEdit = () => {
    setEdited(Object.fromEntries(suggestion.files.map((file) => [file.path, file.after ?? ""])));
    setMode("edit");
  };

  const editPayload = (texts: Record<string, string>) =>
    suggestion.target === "dir"
      ? { target: "dir" as const, files: texts }
      : { target: "entry" as const, fields: { content: Object.values(texts)[0] ?? "" } };

  const approve = (texts?: Record<string, string>) =>
    run(
      () =>
        approveSuggestionAction({
          id: suggestion.id,
          ...(texts ? { edit: editPayload(texts) } : {}),
        }),
      {
        onSuccess: (result) => {
          if (result.status === "conflict") {
            setConflict(result);
            setEdited(
              Object.fromEntries(
                result.conflicts.map((c) => [c.path, c.markers ?? c.proposed ?? c.current ?? ""]),
              ),
            );
          } else {
            setConflict(null);
            setDone("Approved and applied.");
          }
        },
        // The card stays, saying what happened; the list and the header's count catch up on
        // the next navigation (a refresh would drop the decided card from the open list at once).
        refresh: false,
      },
    );

  const reject = (why: string) =>
    run(() => rejectSuggestionAction({ id: suggestion.id, reason: why }), {
      onSuccess: () => setDone("Sent back."),
      refresh: false,
    });

  return (
    <Card
      className="space-y-3 p-4"
      data-testid="suggestion-card"
      data-suggestion-id={suggestion.id}
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <h2 className="font-mono text-sm font-semibold break-all" data-testid="suggestion-title">
            {suggestion.title}
          </h2>
          <p className="text-muted-foreground text-xs">
            Suggested by <span data-testid="suggestion-author">{suggestion.authorName}</span>{" "}
            {SOURCE_LABEL[suggestion.source] ?? ""} ·{" "}
            {/* The server's time zone and the browser's may differ: not a hydration error. */}
            <time dateTime={suggestion.createdAt} suppressHydrationWarning>
              {new Date(suggestion.createdAt).toLocaleString()}
            </time>
            {suggestion.chatHref ? (
              <>
                {" · "}
                <Link className="underline" href={suggestion.chatHref}>
                  the chat
                </Link>
              </>
            ) : null}
          </p>
        </div>
        <Badge data-testid="suggestion-status">
          {suggestion.status === "applying" ? "open" : suggestion.status}
        </Badge>
      </div>
      {suggestion.note ? (
        <blockquote
          className="border-border text-muted-foreground border-l-2 pl-3 text-sm whitespace-pre-wrap"
          data-testid="suggestion-note"
        >
          {suggestion.note}
        </blockquote>
      ) : null}
      {suggestion.entryTitle &&
      suggestion.entryTitle.before !== suggestion.entryTitle.after &&
      suggestion.entryTitle.after ? (
        <p className="text-sm">
          Title: {suggestion.entryTitle.before ? <del>{suggestion.entryTitle.before}</del> : null}{" "}
          <ins>{suggestion.entryTitle.after}</ins>
        </p>
      ) : null}
      {conflict ? (
        <>
          <FormMessage message={conflict.message} />
          <ConflictView
            conflicts={conflict.conflicts}
            merged={edited}
            onChange={(path, text) => setEdited((current) => ({ ...current, [path]: text }))}
          />
        </>
      ) : mode === "edit" ? (
        <div className="space-y-3">
          {suggestion.files.map((file) => (
            <label key={file.path} className="block space-y-1 text-xs">
              <span className="font-mono font-semibold">{file.path}</span>
              <textarea
                aria-label={`Text of ${file.path}`}
                data-testid="suggestion-edit-input"
                spellCheck={false}
                className={textareaClass}
                value={edited[file.path] ?? ""}
                onChange={(event) =>
                  setEdited((current) => ({ ...current, [file.path]: event.target.value }))
                }
              />
            </label>
          ))}
        </div>
      ) : (
        <div className="space-y-3" data-testid="suggestion-diff">
          {suggestion.files.map((file) => (
            <div key={file.path} className="min-w-0 space-y-1 overflow-x-auto">
              {suggestion.files.length > 1 || suggestion.target === "dir" ? (
                <p className="font-mono text-xs font-semibold">{file.path}</p>
              ) : null}
              <FileDiff file={file} />
            </div>
          ))}
        </div>
      )}
      {!open ? (
        <p className="text-sm" data-testid="suggestion-decision">
          {suggestion.status === "approved" ? "Approved" : "Rejected"}
          {suggestion.decidedByName ? ` by ${suggestion.decidedByName}` : ""}
          {suggestion.decidedAt ? (
            <time dateTime={suggestion.decidedAt} suppressHydrationWarning>
              {` · ${new Date(suggestion.decidedAt).toLocaleString()}`}
            </time>
          ) : null}
          {suggestion.decisionNote ? (
            <>
              {": "}
              <span data-testid="suggestion-decision-note">{suggestion.decisionNote}</span>
            </>
          ) : null}
        </p>
      ) : null}
      <FormMessage message={error} />
      <FormMessage message={done} tone="info" />
      {open && props.canReview && !done ? (
        mode === "reject" ? (
          <div className="space-y-2">
            <label className="block space-y-1 text-xs">
              <span className="font-medium">Why (the person who suggested it reads this)</span>
              <textarea
                aria-label="Reason for rejecting"
                data-testid="suggestion-reason-input"
                className={textareaClass + " min-h-[4rem]"}
                value={reason}
                onChange={(event) => setReason(event.target.value)}
              />
            </label>
            <div className="flex flex-wrap gap-2">
              <ConfirmOrCancel
                label="Reject"
                testId="suggestion-reject-confirm"
                disabled={pending || reason.trim() === ""}
                onConfirm={() => reject(reason)}
                onCancel={() => setMode("view")}
              />
            </div>
          </div>
        ) : (
          <div className="flex flex-wrap gap-2">
            {conflict ? (
              <>
                <Button
                  size="sm"
                  disabled={pending}
                  data-testid="suggestion-approve-merged"
                  onClick={() => approve(edited)}
                >
                  Approve merged
                </Button>
                <Button
                  variant="outline"
                  size="sm"
                  disabled={pending}
                  data-testid="suggestion-send-back"
                  onClick={() =>
                    reject(
                      "Company knowledge changed since you suggested this, in the same place. Please suggest it again against the current version.",
                    )
                  }
                >
                  Send back
                </Button>
              </>
            ) : mode === "edit" ? (
              <ConfirmOrCancel
                label="Approve edited"
                testId="suggestion-approve-edited"
                variant="default"
                disabled={pending}
                onConfirm={() => approve(edited)}
                onCancel={() => setMode("view")}
              />
            ) : (
              <>
                <Button
                  size="sm"
                  disabled={pending}
                  data-testid="suggestion-approve"
                  onClick={() => approve()}
                >
                  Approve
                </Button>
                {suggestion.files.every((file) => !file.binary) ? (
                  <Button
                    variant="outline"
                    size="sm"
                    disabled={pending}
                    data-testid="suggestion-edit"
                    onClick={startEdit}
                  >
                    Edit, then approve
                  </Button>
                ) : null}
                <Button
                  variant="outline"
                  size="sm"
                  disabled={pending}
                  data-testid="suggestion-reject"
                  onClick={() => setMode("reject")}
                >
                  Reject
                </Button>
              </>
            )}
          </div>
        )
      ) : null}
    </Card>
  );
}
