"use client";

import Link from "next/link";
import { useState } from "react";
import { suggestEntryChangeAction, suggestFileChangeAction } from "@/app/(app)/review/actions";
import { promoteToTeamAction } from "@/app/(app)/review/promote-actions";
import { Button } from "@/components/ui/button";
import { ConfirmOrCancel } from "@/components/ui/confirm-or-cancel";
import { Input } from "@/components/ui/input";
import { FormMessage } from "@/components/ui/form-message";
import type { ActionResult } from "@/lib/actions/result";
import { useAction } from "@/lib/actions/use-action";

const textareaClass =
  "border-border focus-visible:ring-ring w-full resize-y rounded-md border bg-transparent p-2 font-mono text-sm leading-6 focus-visible:ring-2 focus-visible:outline-none";

function Suggested({ message }: { message: string }) {
  return (
    <p className="text-sm" data-testid="suggest-done" aria-live="polite">
      {message}{" "}
      <Link className="underline" href="/review">
        See Review
      </Link>
    </p>
  );
}

function NoteField(props: { value: string; onChange: (value: string) => void }) {
  return (
    <label className="block space-y-1 text-sm">
      <span className="font-medium">Why (the reviewer reads this)</span>
      <Input
        data-testid="suggest-note"
        value={props.value}
        maxLength={2000}
        onChange={(event) => props.onChange(event.target.value)}
      />
    </label>
  );
}

/**
 * The why-note, the last failure and Send / Cancel: the foot of every form here that sends
 * something for review.
 */
function ReviewFormFoot(props: {
  note: string;
  onNoteChange: (value: string) => void;
  error: string | null;
  sendDisabled: boolean;
  sendTestId: string;
  sendLabel: string;
  onSend: () => void;
  onCancel: () => void;
}) {
  return (
    <>
      <NoteField value={props.note} onChange={props.onNoteChange} />
      <FormMessage message={props.error} />
      <div className="flex flex-wrap gap-2">
        <ConfirmOrCancel
          label={props.sendLabel}
          testId={props.sendTestId}
          variant="default"
          disabled={props.sendDisabled}
          onConfirm={props.onSend}
          onCancel={props.onCancel}
        />
      </div>
    </>
  );
}

/**
 * "Suggest a change" for one text, against the version shown: a button that opens the text for
 * editing with a why-note; `send` stores the suggestion (enabled once the text differs).
 */
function SuggestTextChange(props: {
  text: string;
  formClassName: string;
  textareaLabel: string;
  textareaClassName: string;
  spellCheck?: boolean;
  send: (text: string, note: string) => Promise<ActionResult<unknown>>;
}) {
  const { pending, error, run } = useAction();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState(props.text);
  const [note, setNote] = useState("");
  const [done, setDone] = useState<string | null>(null);
  if (done) return <Suggested message={done} />;
  if (!open)
    return (
      <Button
        variant="outline"
        size="sm"
        data-testid="suggest-change"
        onClick={() => setOpen(true)}
      >
        Suggest a change
      </Button>
    );
  return (
    <div className={props.formClassName} data-testid="suggest-change-form">
      <textarea
        aria-label={props.textareaLabel}
        data-testid="suggest-text"
        spellCheck={props.spellCheck}
        className={`${textareaClass} ${props.textareaClassName}`}
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
      <ReviewFormFoot
        note={note}
        onNoteChange={setNote}
        error={error}
        sendDisabled={pending || text === props.text}
        sendTestId="suggest-send"
        sendLabel="Send for review"
        onSend={() =>
          run(() => props.send(text, note), {
            onSuccess: () => setDone("Suggested for review: an editor or admin decides."),
          })
        }
        onCancel={() => setOpen(false)}
      />
    </div>
  );
}

/**
 * For a person who may read company knowledge but not change it: edit a file's text and send it
 * for review (a suggestion against the version shown), instead of saving.
 */
export function SuggestFileChange(props: {
  harnessDir: string;
  path: string;
  text: string;
  cursor: string | number;
}) {
  return (
    <SuggestTextChange
      text={props.text}
      formClassName="space-y-2"
      textareaLabel={`Suggested text of ${props.path}`}
      textareaClassName="min-h-[16rem]"
      spellCheck={false}
      send={(content, note) =>
        suggestFileChangeAction({
          harnessDir: props.harnessDir,
          path: props.path,
          content,
          baseCursor: props.cursor,
          baseContent: props.text,
          note,
        })
      }
    />
  );
}

/** For a member on a global entry's page: suggest new text for it, against the version shown. */
export function SuggestEntryChange(props: {
  kind: "prompt" | "memory" | "skill" | "subagent";
  id: string;
  version: number;
  content: string;
}) {
  return (
    <SuggestTextChange
      text={props.content}
      formClassName="max-w-3xl space-y-2"
      textareaLabel="Suggested content"
      textareaClassName="min-h-[12rem]"
      send={(content, note) =>
        suggestEntryChangeAction({
          action: "update",
          kind: props.kind,
          id: props.id,
          expectedVersion: props.version,
          content,
          note,
          source: "entry-page",
        })
      }
    />
  );
}

/**
 * "Suggest for the team": a chat-local entry, a memory note or a passage of it (edit the text
 * down to the passage) becomes a suggestion for a new global entry or a file of company
 * knowledge at a chosen path. An editor's or admin's promotion is applied at once.
 */
export function PromoteForm(props: {
  text: string;
  title: string;
  kind?: "memory" | "prompt";
  /** Suggested path in company knowledge. */
  path?: string;
  canApply: boolean;
}) {
  const { pending, error, run } = useAction();
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState<"entry" | "dir">("entry");
  const [title, setTitle] = useState(props.title);
  const [path, setPath] = useState(props.path ?? "");
  const [text, setText] = useState(props.text);
  const [note, setNote] = useState("");
  const [done, setDone] = useState<string | null>(null);
  if (done) return <Suggested message={done} />;
  if (!open)
    return (
      <Button variant="outline" size="sm" data-testid="promote" onClick={() => setOpen(true)}>
        Suggest for the team
      </Button>
    );
  return (
    <div
      className="border-border max-w-3xl space-y-3 rounded-md border p-3"
      data-testid="promote-form"
    >
      <p className="text-muted-foreground text-sm">
        {props.canApply
          ? "You may change team knowledge: this is added at once, recorded as suggested and approved by you."
          : "An editor or admin reviews it before the team sees it. Keep only the passage the team needs."}
      </p>
      <fieldset className="flex flex-wrap gap-4 text-sm">
        <legend className="sr-only">Where to</legend>
        <label className="inline-flex items-center gap-2">
          <input
            type="radio"
            name="promote-target"
            data-testid="promote-target-entry"
            checked={target === "entry"}
            onChange={() => setTarget("entry")}
          />
          A global {props.kind ?? "memory"} entry
        </label>
        <label className="inline-flex items-center gap-2">
          <input
            type="radio"
            name="promote-target"
            data-testid="promote-target-dir"
            checked={target === "dir"}
            onChange={() => setTarget("dir")}
          />
          A file in company knowledge
        </label>
      </fieldset>
      {target === "entry" ? (
        <label className="block space-y-1 text-sm">
          <span className="font-medium">Title</span>
          <Input
            data-testid="promote-title"
            value={title}
            maxLength={200}
            onChange={(event) => setTitle(event.target.value)}
          />
        </label>
      ) : (
        <label className="block space-y-1 text-sm">
          <span className="font-medium">
            Path in company knowledge (added at the end if it exists)
          </span>
          <Input
            data-testid="promote-path"
            value={path}
            placeholder="policies/travel.md"
            maxLength={512}
            onChange={(event) => setPath(event.target.value)}
          />
        </label>
      )}
      <textarea
        aria-label="Text to suggest"
        data-testid="promote-text"
        className={`${textareaClass} min-h-[10rem]`}
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
      <ReviewFormFoot
        note={note}
        onNoteChange={setNote}
        error={error}
        sendDisabled={
          pending || !text.trim() || (target === "entry" ? !title.trim() : !path.trim())
        }
        sendTestId="promote-send"
        sendLabel={props.canApply ? "Add for the team" : "Send for review"}
        onSend={() =>
          run(
            () =>
              promoteToTeamAction({
                to:
                  target === "entry"
                    ? { target, kind: props.kind ?? "memory", title }
                    : { target, path },
                text,
                note,
              }),
            {
              onSuccess: (result) =>
                setDone(
                  result.status === "applied"
                    ? "Added for the team."
                    : "Suggested for review: an editor or admin decides.",
                ),
            },
          )
        }
        onCancel={() => setOpen(false)}
      />
    </div>
  );
}
