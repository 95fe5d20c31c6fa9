import { type LanguageModel } from "ai";
import { z } from "zod";
import { type RefinementContext } from "./build-refinement-context";
import { structuredCall } from "./internal/structured-call";
import { REVIEW_SYSTEM_PROMPT } from "./prompts";
import { type ModelCallUsage, type ReviewDecision } from "./types";

/** At most this many output tokens for the review gate. */
export const REVIEW_MAX_OUTPUT_TOKENS = 4_096;

/** The review gate's structured output. */
export const reviewDecisionSchema = z.object({
  shouldRefine: z.boolean().describe("Whether the conversation holds lasting evidence to record"),
  rationale: z.string().describe("Why, in one or two sentences"),
  instructions: z
    .string()
    .nullish()
    .describe("When shouldRefine: what the planner should capture or fix"),
});

/**
 * The review gate (automatic triggers only): one structured-output call deciding whether to
 * refine, given `context.reviewPrompt`. Throws `RefinementError` (`refine:truncated`,
 * `refine:malformed`, `refine:model`) when no decision could be read.
 */
export async function reviewRefinement(options: {
  model: LanguageModel;
  context: RefinementContext;
  abortSignal?: AbortSignal;
}): Promise<{ decision: ReviewDecision; usage: ModelCallUsage }> {
  const { output, usage } = await structuredCall({
    model: options.model,
    instructions: REVIEW_SYSTEM_PROMPT,
    prompt: options.context.reviewPrompt,
    schema: reviewDecisionSchema,
    maxOutputTokens: REVIEW_MAX_OUTPUT_TOKENS,
    abortSignal: options.abortSignal,
  });
  const instructions = output.instructions?.trim();
  const decision: ReviewDecision = {
    shouldRefine: output.shouldRefine,
    rationale: output.rationale,
    ...(instructions ? { instructions } : {}),
  };
  return { decision, usage };
}
