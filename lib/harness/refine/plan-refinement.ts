import { type LanguageModel } from "ai";
import { z } from "zod";
import { type RefinementContext } from "./build-refinement-context";
import { structuredCall } from "./internal/structured-call";
import { PLANNING_SYSTEM_PROMPT } from "./prompts";
import { type ModelCallUsage, type ProposedEdit, type RefinementPlan } from "./types";

/** At most this many output tokens for the planner. */
export const PLANNING_MAX_OUTPUT_TOKENS = 32_000;

// `action` and `kind` are plain strings so that one unknown value fails one edit during
// validation instead of making the whole plan malformed. Optional fields accept `null`
// because strict structured-output modes make every field required-but-nullable.
const proposedEditSchema = z.object({
  action: z.string().describe('"create" | "update" | "delete"'),
  kind: z.string().describe('"prompt" | "memory" | "skill" | "subagent"'),
  id: z.string().nullish().describe("Entry id; required for update and delete"),
  title: z.string().nullish(),
  content: z.string().nullish().describe("The complete new content"),
  path: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  reason: z.string().describe("Why this edit, citing the evidence"),
});

/** The planner's structured output. */
export const refinementPlanSchema = z.object({
  summary: z.string(),
  rationale: z.string(),
  expectedOutcome: z.string(),
  edits: z.array(proposedEditSchema),
});

function normalizeEdit(edit: z.infer<typeof proposedEditSchema>): ProposedEdit {
  const result: ProposedEdit = { action: edit.action, kind: edit.kind, reason: edit.reason };
  if (edit.id != null) result.id = edit.id;
  if (edit.title != null) result.title = edit.title;
  if (edit.content != null) result.content = edit.content;
  if (edit.path != null) result.path = edit.path;
  if (edit.metadata != null) result.metadata = edit.metadata;
  return result;
}

/**
 * Edit generation: one structured-output call proposing `{ summary, rationale,
 * expectedOutcome, edits }` from `context.planningPrompt`. An empty `edits` list is a valid
 * answer. Throws `RefinementError` `refine:truncated` (cut off at the token limit) or
 * `refine:malformed` (not JSON of the shape) — different errors, and neither applies anything —
 * or `refine:model`.
 */
export async function planRefinement(options: {
  model: LanguageModel;
  context: RefinementContext;
  abortSignal?: AbortSignal;
}): Promise<{ plan: RefinementPlan; usage: ModelCallUsage }> {
  const { output, usage } = await structuredCall({
    model: options.model,
    instructions: PLANNING_SYSTEM_PROMPT,
    prompt: options.context.planningPrompt,
    schema: refinementPlanSchema,
    maxOutputTokens: PLANNING_MAX_OUTPUT_TOKENS,
    abortSignal: options.abortSignal,
  });
  return {
    plan: {
      summary: output.summary,
      rationale: output.rationale,
      expectedOutcome: output.expectedOutcome,
      edits: output.edits.map(normalizeEdit),
    },
    usage,
  };
}
