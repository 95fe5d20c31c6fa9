// What a rating is made of, shared by the server (lib/feedback) and the chat's feedback buttons.
import { z } from "zod";

/** The reasons a person can tick on a thumbs-down. */
export const FEEDBACK_TAGS = ["wrong-fact", "ignored-instructions", "forgot", "too-long"] as const;
export type FeedbackTag = (typeof FEEDBACK_TAGS)[number];
export const FEEDBACK_TAG_LABELS: Record<FeedbackTag, string> = {
  "wrong-fact": "Wrong fact",
  "ignored-instructions": "Ignored what I told it",
  forgot: "Forgot",
  "too-long": "Too long",
};

/** A rating as a person (or an MCP client) sends it; `rating: null` takes a rating back. */
export const rateTurnInputSchema = z.object({
  turnId: z.string().min(1).max(200),
  rating: z.enum(["good", "bad"]).nullable(),
  comment: z.string().trim().max(2000).optional(),
  tags: z.array(z.enum(FEEDBACK_TAGS)).max(FEEDBACK_TAGS.length).optional(),
});
export type RateTurnInput = z.infer<typeof rateTurnInputSchema>;

/** What the chat shows of a rating of its own turn. */
export interface ChatRating {
  rating: "good" | "bad";
  comment: string | null;
  tags: FeedbackTag[];
}
