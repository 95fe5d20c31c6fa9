"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { acceptImportedNoteAction } from "@/app/(app)/memory/actions";
import { Button } from "@/components/ui/button";
import {
  proposeFromExportFile,
  proposeFromPastedText,
  type MemoryProposal,
} from "@/lib/memory-import";

type Review = MemoryProposal & {
  state: "open" | "accepted" | "rejected" | "saving";
  error?: string;
};

/**
 * Import on the Memory page (issue 25, item 6): a ChatGPT or Claude data export, or the pasted
 * answer of another assistant to "what do you remember about me", becomes proposed notes read
 * in this browser; each is accepted (written to your memory) or rejected, one by one. Nothing is
 * written without an accept.
 */
export function MemoryImport() {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [pasted, setPasted] = useState("");
  const [reviews, setReviews] = useState<Review[]>([]);
  const [message, setMessage] = useState<string | null>(null);

  const propose = (proposals: MemoryProposal[]) => {
    setReviews(proposals.map((proposal) => ({ ...proposal, state: "open" })));
    setMessage(
      proposals.length === 0
        ? "Nothing found that reads like something to remember about you."
        : null,
    );
  };
  const decide = async (index: number, accept: boolean) => {
    const review = reviews[index]!;
    if (!accept) {
      setReviews((current) =>
        current.map((item, i) => (i === index ? { ...item, state: "rejected" } : item)),
      );
      return;
    }
    setReviews((current) =>
      current.map((item, i) => (i === index ? { ...item, state: "saving" } : item)),
    );
    const result = await acceptImportedNoteAction({ text: review.text, source: review.source });
    setReviews((current) =>
      current.map((item, i) =>
        i === index
          ? result.ok
            ? { ...item, state: "accepted", error: undefined }
            : { ...item, state: "open", error: result.error.message }
          : item,
      ),
    );
    if (result.ok) router.refresh();
  };

  if (!open) {
    return (
      <Button
        type="button"
        variant="outline"
        size="sm"
        data-testid="memory-import-open"
        onClick={() => setOpen(true)}
      >
        Import memory from another assistant
      </Button>
    );
  }
  const waiting = reviews.filter(
    (review) => review.state === "open" || review.state === "saving",
  ).length;
  return (
    <section
      className="border-border space-y-3 rounded-lg border p-4"
      data-testid="memory-import"
      aria-label="Import memory"
    >
      <h2 className="font-medium">Import memory</h2>
      <p className="text-muted-foreground text-sm">
        Choose a ChatGPT or Claude data export (the .zip, or its conversations.json), or paste what
        another assistant answered to “what do you remember about me”. It is read in this browser;
        you then accept or reject each proposed note. Accepted notes go to{" "}
        <code>imported-memory.md</code> in your memory.
      </p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <input
          type="file"
          accept=".zip,.json"
          data-testid="memory-import-file"
          className="text-sm"
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (!file) return;
            void file
              .arrayBuffer()
              .then((buffer) =>
                proposeFromExportFile({ name: file.name, bytes: new Uint8Array(buffer) }),
              )
              .then(propose, (error: unknown) =>
                setMessage(error instanceof Error ? error.message : String(error)),
              );
          }}
        />
      </div>
      <textarea
        aria-label="Pasted memory"
        data-testid="memory-import-text"
        className="border-border min-h-24 w-full rounded-md border bg-transparent p-2 text-sm"
        placeholder="Paste another assistant's answer here…"
        value={pasted}
        onChange={(event) => setPasted(event.target.value)}
      />
      <Button
        type="button"
        size="sm"
        data-testid="memory-import-propose"
        disabled={!pasted.trim()}
        onClick={() => propose(proposeFromPastedText(pasted))}
      >
        Propose notes
      </Button>
      {message ? (
        <p className="text-sm" role="status" data-testid="memory-import-message">
          {message}
        </p>
      ) : null}
      {reviews.length > 0 ? (
        <div className="space-y-2">
          <p className="text-muted-foreground text-xs">
            {reviews.length} proposed · {waiting} to review · nothing is saved until you accept it
          </p>
          <ul className="space-y-2">
            {reviews.map((review, index) => (
              <li
                key={`${index}:${review.text}`}
                className="border-border flex flex-col gap-2 rounded-md border p-2 text-sm sm:flex-row sm:items-center"
                data-testid="memory-proposal"
                data-state={review.state}
              >
                <span className="min-w-0 flex-1">
                  {review.text}{" "}
                  <span className="text-muted-foreground text-xs">— from {review.source}</span>
                  {review.error ? (
                    <span className="text-destructive block text-xs">{review.error}</span>
                  ) : null}
                </span>
                {review.state === "open" || review.state === "saving" ? (
                  <span className="flex shrink-0 gap-2">
                    <Button
                      type="button"
                      size="sm"
                      data-testid="proposal-accept"
                      disabled={review.state === "saving"}
                      onClick={() => void decide(index, true)}
                    >
                      Accept
                    </Button>
                    <Button
                      type="button"
                      size="sm"
                      variant="outline"
                      data-testid="proposal-reject"
                      disabled={review.state === "saving"}
                      onClick={() => void decide(index, false)}
                    >
                      Reject
                    </Button>
                  </span>
                ) : (
                  <span className="text-muted-foreground shrink-0 text-xs">{review.state}</span>
                )}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
