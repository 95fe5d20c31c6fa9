"use client";

import { ThumbsDown, ThumbsUp } from "lucide-react";
import Link from "next/link";
import { useId, useRef, useState } from "react";
import { rateAnswerAction } from "@/app/(app)/chat/feedback-actions";
import { Button } from "@/components/ui/button";
import { useAction } from "@/lib/actions/use-action";
import {
  FEEDBACK_TAG_LABELS,
  FEEDBACK_TAGS,
  type ChatRating,
  type FeedbackTag,
} from "@/lib/feedback/tags";
import { cn } from "@/lib/utils";

const thumbClass =
  "text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:ring-ring inline-flex size-7 items-center justify-center rounded-md focus-visible:ring-2 focus-visible:outline-none disabled:opacity-40 aria-pressed:text-foreground aria-pressed:bg-muted";

/**
 * Thumbs up / down on one answer (its turn), with an optional comment and reasons on a
 * thumbs-down (saved when the small form is sent, so a review it starts sees them). Changeable:
 * the other thumb replaces the rating, the pressed one takes it back.
 * Stored as the turn's outcome (lib/feedback); N thumbs-down may start a review.
 */
export function AnswerFeedback({
  turnId,
  initial,
}: {
  turnId: string;
  initial: ChatRating | null;
}) {
  const [rating, setRating] = useState<ChatRating | null>(initial);
  const [open, setOpen] = useState(false);
  const [comment, setComment] = useState(initial?.comment ?? "");
  const [tags, setTags] = useState<FeedbackTag[]>(initial?.tags ?? []);
  const [reviewId, setReviewId] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const { pending, error, run } = useAction();
  const formId = useId();
  const badButton = useRef<HTMLButtonElement>(null);
  // Closing the form puts focus back on the thumb that opened it (keyboard users stay in place).
  const close = () => {
    setOpen(false);
    badButton.current?.focus();
  };

  const send = (
    next: ChatRating["rating"] | null,
    extra?: { comment: string; tags: FeedbackTag[] },
  ) =>
    run(
      () =>
        rateAnswerAction({
          turnId,
          rating: next,
          ...(extra ? { comment: extra.comment, tags: extra.tags } : {}),
        }),
      {
        onSuccess: (data) => {
          setRating(data.rating);
          if (data.refinementId) setReviewId(data.refinementId);
        },
        // A review it started shows on the page (refinement cards) after a refresh.
        refresh: (data) => data.refinementId !== null,
      },
    );

  return (
    <div className="contents" data-testid="answer-feedback" data-rating={rating?.rating ?? ""}>
      <button
        type="button"
        aria-label="Good response"
        title="Good response"
        aria-pressed={rating?.rating === "good"}
        data-testid="feedback-good"
        aria-busy={pending}
        className={thumbClass}
        onClick={() => {
          if (pending) return;
          setOpen(false);
          send(rating?.rating === "good" ? null : "good");
        }}
      >
        <ThumbsUp className={cn("size-3.5", rating?.rating === "good" && "fill-current")} />
      </button>
      <button
        type="button"
        aria-label="Bad response"
        title="Bad response"
        aria-pressed={rating?.rating === "bad"}
        aria-expanded={open}
        aria-controls={formId}
        ref={badButton}
        data-testid="feedback-bad"
        aria-busy={pending}
        className={thumbClass}
        onClick={() => {
          if (pending) return;
          if (open) {
            setOpen(false);
            return;
          }
          if (rating?.rating === "bad") {
            send(null);
            return;
          }
          // Saved with its details from the form (the feedback trigger then sees the comment).
          setSent(false);
          setOpen(true);
        }}
      >
        <ThumbsDown className={cn("size-3.5", rating?.rating === "bad" && "fill-current")} />
      </button>
      {reviewId ? (
        <Link
          href={`/refinements/${reviewId}`}
          className="text-muted-foreground ml-1 text-xs underline"
          data-testid="feedback-review-started"
        >
          Review started from your ratings
        </Link>
      ) : null}
      {error ? (
        <span className="text-destructive ml-1 text-xs" data-testid="feedback-error">
          {error}
        </span>
      ) : null}
      {open ? (
        <form
          id={formId}
          aria-label="What was wrong"
          className="border-border order-last mt-1 basis-full space-y-2 rounded-md border p-2 text-sm"
          data-testid="feedback-form"
          onSubmit={(event) => {
            event.preventDefault();
            setSent(true);
            send("bad", { comment: comment.trim(), tags });
            close();
          }}
          onKeyDown={(event) => {
            if (event.key === "Escape") close();
          }}
        >
          <fieldset className="flex flex-wrap gap-1.5">
            <legend className="text-muted-foreground mb-1 text-xs">
              What was wrong? (optional)
            </legend>
            {FEEDBACK_TAGS.map((tag) => {
              const on = tags.includes(tag);
              return (
                <button
                  key={tag}
                  type="button"
                  aria-pressed={on}
                  data-testid={`feedback-tag-${tag}`}
                  onClick={() =>
                    setTags((current) =>
                      on ? current.filter((item) => item !== tag) : [...current, tag],
                    )
                  }
                  className={cn(
                    "border-border focus-visible:ring-ring min-h-8 rounded-full border px-2.5 text-xs focus-visible:ring-2 focus-visible:outline-none",
                    on ? "bg-foreground text-background" : "hover:bg-muted",
                  )}
                >
                  {FEEDBACK_TAG_LABELS[tag]}
                </button>
              );
            })}
          </fieldset>
          <textarea
            aria-label="Comment (optional)"
            placeholder="Comment (optional)"
            data-testid="feedback-comment"
            maxLength={2000}
            className="border-border focus-visible:ring-ring min-h-16 w-full rounded-md border bg-transparent p-2 text-sm focus-visible:ring-2 focus-visible:outline-none"
            value={comment}
            onChange={(event) => setComment(event.target.value)}
          />
          <div className="flex justify-end gap-2">
            <Button type="button" variant="ghost" size="sm" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" size="sm" data-testid="feedback-send" disabled={pending}>
              Send feedback
            </Button>
          </div>
        </form>
      ) : sent && rating?.rating === "bad" ? (
        <span
          className="text-muted-foreground ml-1 text-xs"
          data-testid="feedback-thanks"
          role="status"
        >
          Thanks — noted.
        </span>
      ) : null}
    </div>
  );
}
