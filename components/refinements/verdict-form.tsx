"use client";

import { useState, type FormEvent } from "react";
import { setVerdictAction } from "@/app/(app)/refinements/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { Select } from "@/components/ui/input";
import { useAction } from "@/lib/actions/use-action";

/** Marks the expected outcome as confirmed or refuted, with a note. Setting it again replaces it. */
export function VerdictForm(props: {
  refinementId: string;
  initial?: { verdict: "confirmed" | "refuted"; note: string };
}) {
  const { pending, error, setError, run } = useAction();
  // No verdict is pre-selected: the person picks one deliberately.
  const [verdict, setVerdict] = useState<"confirmed" | "refuted" | "">(
    props.initial?.verdict ?? "",
  );
  const [note, setNote] = useState(props.initial?.note ?? "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!verdict) return setError("Choose Confirmed or Refuted.");
    run(() => setVerdictAction({ id: props.refinementId, verdict, note }));
  };
  return (
    <form className="space-y-2" onSubmit={submit} data-testid="verdict-form">
      <div className="flex flex-wrap items-start gap-2">
        <Select
          aria-label="Verdict"
          value={verdict}
          onChange={(event) => setVerdict(event.target.value as "confirmed" | "refuted")}
        >
          <option value="" disabled>
            Choose…
          </option>
          <option value="confirmed">Confirmed</option>
          <option value="refuted">Refuted</option>
        </Select>
        <textarea
          aria-label="Verdict note"
          className="border-border placeholder:text-muted-foreground focus-visible:ring-ring min-h-9 flex-1 rounded-md border bg-transparent px-3 py-1.5 text-sm focus-visible:ring-2 focus-visible:outline-none"
          placeholder="What happened in later chats?"
          rows={2}
          maxLength={2000}
          value={note}
          onChange={(event) => setNote(event.target.value)}
        />
        <Button
          type="submit"
          size="sm"
          variant="outline"
          disabled={pending || !verdict}
          data-testid="save-verdict"
        >
          {props.initial ? "Update verdict" : "Set verdict"}
        </Button>
      </div>
      <FormMessage message={error} />
    </form>
  );
}
