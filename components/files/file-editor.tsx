"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { saveFileAction } from "@/app/(app)/files/actions";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { Form } from "@/components/ui/form";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { cn } from "@/lib/utils";
import { formatBytes } from "@/lib/harness/format-bytes";
import { ViewTabs } from "./file-viewer";
import { isMarkdownPath, MarkdownPreview } from "./markdown-preview";

type Status =
  | { tone: "ok"; message: string }
  | { tone: "error"; message: string; kind: "conflict" | "failed" | "invalid" };

/**
 * Edits one text file of a writable dir, or creates a new one when `file` is null. Saves send
 * the cursor and content the editor started from, so the server can refuse a stale write
 * instead of overwriting someone else's change. A file over `maxFileBytes` is refused here,
 * before anything is sent, and a save that fails on the way (e.g. a body over the server's
 * limit) is reported in the editor: the typed text is never lost to an error page.
 */
/** The largest text the browser editor saves (the dir may take larger files by upload). */
const EDITOR_MAX_BYTES = 2 * 1024 * 1024;

export function FileEditor(props: {
  harnessDir: string;
  dirKind: string;
  file: { path: string; text: string | null; cursor: string | number } | null;
  dirCursor: string | number;
  /** The dir's per-file limit in UTF-8 bytes (the server enforces it too). */
  maxFileBytes: number;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const creating = props.file === null;
  const [path, setPath] = useState(props.file?.path ?? "");
  const [text, setText] = useState(props.file?.text ?? "");
  const [base, setBase] = useState({
    cursor: props.file?.cursor ?? props.dirCursor,
    content: props.file ? props.file.text : null,
  });
  const [status, setStatus] = useState<Status | null>(null);
  const [mode, setMode] = useState<"write" | "preview">("write");
  const dirty = text !== (base.content ?? "");
  // A newer version arrived from the server (a restore, or a save elsewhere on this page): take
  // it while nothing is typed, so the next save starts from it instead of conflicting with it.
  const [seenCursor, setSeenCursor] = useState(props.file?.cursor);
  if (props.file && props.file.cursor !== seenCursor) {
    setSeenCursor(props.file.cursor);
    if (!dirty && props.file.text !== null && props.file.cursor !== base.cursor) {
      setText(props.file.text);
      setBase({ cursor: props.file.cursor, content: props.file.text });
    }
  }
  const lines = text === "" ? 0 : text.split("\n").length;
  const bytes = new TextEncoder().encode(text).byteLength;

  const save = (content: string | null) => {
    const bytes = content === null ? 0 : new TextEncoder().encode(content).byteLength;
    if (bytes > props.maxFileBytes) {
      setStatus({
        tone: "error",
        kind: "invalid",
        message: `This file is ${formatBytes(bytes)}; the limit is ${formatBytes(props.maxFileBytes)} per file. Nothing was saved — your text is still here.`,
      });
      return;
    }
    // A save carries the text and the one it started from in one server-action body (5 MB):
    // larger files come in by upload, whatever the dir's per-file limit.
    if (bytes > EDITOR_MAX_BYTES) {
      setStatus({
        tone: "error",
        kind: "invalid",
        message: `This file is ${formatBytes(bytes)}; the editor saves files up to ${formatBytes(EDITOR_MAX_BYTES)} — upload a larger file on this page instead. Nothing was saved — your text is still here.`,
      });
      return;
    }
    startTransition(async () => {
      let result: Awaited<ReturnType<typeof saveFileAction>>;
      try {
        result = await saveFileAction({
          harnessDir: props.harnessDir,
          path: path.trim(),
          content,
          baseCursor: base.cursor,
          baseContent: base.content,
        });
      } catch (error) {
        setStatus({
          tone: "error",
          kind: "invalid",
          message: `The save did not reach the server (${error instanceof Error ? error.message : String(error)}). Nothing was saved — your text is still here.`,
        });
        return;
      }
      if (!result.ok) {
        const { code, message } = result.error;
        const kind =
          code === "commit:conflict" ? "conflict" : code === "commit:failed" ? "failed" : "invalid";
        setStatus({ tone: "error", message, kind });
        return;
      }
      const saved = result.data;
      setBase({ cursor: saved.cursor, content });
      if (content === null) {
        router.push(`/files?dir=${props.dirKind}`);
        return;
      }
      setStatus({ tone: "ok", message: saved.changed ? "Saved." : "No changes to save." });
      if (creating) {
        router.push(`/files?dir=${props.dirKind}&path=${encodeURIComponent(path.trim())}`);
      } else router.refresh();
    });
  };

  return (
    <Form className="space-y-2" data-testid="file-editor" onSubmit={() => save(text)}>
      {creating ? (
        <div className="space-y-1">
          <Label htmlFor="new-file-path">New file path</Label>
          <Input
            id="new-file-path"
            data-testid="new-file-path"
            placeholder="notes/topic.md"
            value={path}
            onChange={(event) => setPath(event.target.value)}
            required
          />
        </div>
      ) : (
        <div className="font-mono text-sm" data-testid="file-path">
          {path}
        </div>
      )}
      <div className="flex flex-wrap items-center justify-between gap-2">
        <ViewTabs
          label="Editor mode"
          value={mode}
          onChange={setMode}
          options={[
            { value: "write", label: "Write" },
            { value: "preview", label: isMarkdownPath(path) ? "Preview" : "Preview (markdown)" },
          ]}
        />
        <span className="text-muted-foreground text-xs" data-testid="editor-stats">
          {lines} {lines === 1 ? "line" : "lines"} · {formatBytes(bytes)} of{" "}
          {formatBytes(props.maxFileBytes)}
          {dirty ? " · unsaved changes" : ""}
        </span>
      </div>
      {mode === "write" ? (
        <textarea
          aria-label="File content"
          data-testid="file-content-input"
          spellCheck={false}
          className="border-border focus-visible:ring-ring min-h-[20rem] w-full resize-y rounded-md border bg-transparent p-3 font-mono text-sm leading-6 [tab-size:2] focus-visible:ring-2 focus-visible:outline-none"
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            if (status?.tone === "ok") setStatus(null);
          }}
          onKeyDown={(event) => {
            // Ctrl/Cmd+S saves instead of the browser's "save page".
            if ((event.metaKey || event.ctrlKey) && event.key.toLowerCase() === "s") {
              event.preventDefault();
              if (!pending && path.trim() !== "") save(text);
            }
          }}
        />
      ) : (
        <MarkdownPreview text={text} testId="editor-preview" />
      )}
      <div className="flex items-center gap-2">
        <Button type="submit" data-testid="save-file" disabled={pending || path.trim() === ""}>
          {creating ? "Create file" : "Save"}
        </Button>
        {creating ? null : (
          <ConfirmButton
            type="button"
            variant="outline"
            data-testid="delete-file"
            disabled={pending}
            confirm={`Delete ${path}?`}
            onConfirm={() => save(null)}
          >
            Delete
          </ConfirmButton>
        )}
        {pending ? <span className="text-muted-foreground text-sm">Saving…</span> : null}
        <span className="text-muted-foreground ml-auto hidden text-xs sm:inline">
          Ctrl+S / ⌘S saves
        </span>
      </div>
      {status ? (
        <div
          data-testid="save-status"
          data-tone={status.tone}
          aria-live="polite"
          className={cn(
            "text-sm",
            status.tone === "error" ? "text-destructive" : "text-muted-foreground",
          )}
        >
          {status.tone === "error" && status.kind === "failed" ? (
            <strong>Saving failed. </strong>
          ) : null}
          {status.tone === "error" && status.kind === "conflict" ? (
            <strong>Conflict. </strong>
          ) : null}
          {status.message}{" "}
          {status.tone === "error" && status.kind !== "invalid" ? (
            <Link href="/files/failures" className="underline" data-testid="save-failures-link">
              Open Commit failures
            </Link>
          ) : null}
        </div>
      ) : null}
    </Form>
  );
}
