"use client";

import { Loader2, Paperclip } from "lucide-react";
import { useRef, useState } from "react";
import { conversionStatusAction } from "@/app/(app)/files/actions";
import { Button } from "@/components/ui/button";

const DIRS = {
  user: { harnessDir: "/persistent/user", label: "My memory" },
  company: { harnessDir: "/persistent/company", label: "Company knowledge" },
} as const;

interface UploadAnswer {
  accepted?: { name: string; path: string; status: string }[];
  refused?: { name: string; message: string }[];
  error?: string;
}

/**
 * The chat box's "attach": the chosen documents go into the person's memory under `uploads/` —
 * or, for an editor or admin who chooses so, into company knowledge under `uploads/` (the server
 * checks the role again) — through the same upload and conversion as the Files page; once
 * converted, a line naming where each one is is added to the message, so the turn is told where
 * to read it.
 */
export function ChatAttach(props: {
  disabled?: boolean;
  /** Whether this person may choose company knowledge (editor or admin). */
  canAttachToCompany?: boolean;
  onAttached: (line: string) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [target, setTarget] = useState<keyof typeof DIRS>("user");
  const dir = DIRS[props.canAttachToCompany ? target : "user"];
  const dirKind = props.canAttachToCompany ? target : "user";
  const [state, setState] = useState<{ busy: boolean; message: string | null }>({
    busy: false,
    message: null,
  });

  const attach = async (files: File[]) => {
    if (files.length === 0) return;
    setState({
      busy: true,
      message: `Attaching ${files.length === 1 ? files[0]!.name : `${files.length} files`}…`,
    });
    const form = new FormData();
    for (const file of files) {
      form.append("name", file.name);
      form.append("file", file, file.name);
    }
    let answer: UploadAnswer;
    try {
      const response = await fetch(`/api/files/upload?dir=${dirKind}`, {
        method: "POST",
        headers: { "x-cairn-upload": "1" },
        body: form,
      });
      answer = (await response.json()) as UploadAnswer;
    } catch {
      setState({ busy: false, message: "The attachment did not reach the server; try again." });
      return;
    }
    const refused = (answer.refused ?? []).map((item) => item.message);
    if (answer.error) refused.push(answer.error);
    const paths = (answer.accepted ?? []).map((item) => item.path);
    // Wait for the conversions, so the turn reads text and not the "converting…" placeholder.
    for (let round = 0; round < 120 && paths.length > 0; round += 1) {
      const result = await conversionStatusAction({ harnessDir: dir.harnessDir, paths });
      if (result.ok && result.data.every((status) => status.status !== "converting")) {
        for (const status of result.data) {
          if (status.status === "failed") refused.push(status.message);
        }
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const ready = paths.map((path) => `${dir.harnessDir}/${path}`);
    if (ready.length > 0) props.onAttached(`[Attached: ${ready.join(", ")}]`);
    setState({ busy: false, message: refused.length > 0 ? refused.join(" ") : null });
  };

  return (
    <>
      <Button
        type="button"
        variant="outline"
        size="sm"
        data-testid="attach"
        title={`Attach documents: they go into ${dirKind === "user" ? "your memory" : "company knowledge"} under uploads/`}
        aria-label="Attach documents"
        disabled={props.disabled || state.busy}
        onClick={() => input.current?.click()}
      >
        {state.busy ? (
          <Loader2 className="size-3.5 animate-spin" />
        ) : (
          <Paperclip className="size-3.5" />
        )}
        Attach
      </Button>
      {props.canAttachToCompany ? (
        <select
          data-testid="attach-target"
          aria-label="Where attached documents go"
          className="border-input bg-background h-8 rounded-md border px-1 text-xs"
          value={target}
          disabled={props.disabled || state.busy}
          onChange={(event) => setTarget(event.target.value as keyof typeof DIRS)}
        >
          <option value="user">{DIRS.user.label}</option>
          <option value="company">{DIRS.company.label}</option>
        </select>
      ) : null}
      <input
        ref={input}
        data-testid="attach-input"
        type="file"
        multiple
        accept=".pdf,.docx,.xlsx,.html,.htm,.md,.markdown,.txt,.text,.csv"
        className="hidden"
        onChange={(event) => {
          void attach(Array.from(event.target.files ?? []));
          event.target.value = "";
        }}
      />
      {state.message ? (
        <span className="text-muted-foreground text-xs" role="status" data-testid="attach-status">
          {state.message}
        </span>
      ) : null}
    </>
  );
}
