import {
  generateText,
  NoObjectGeneratedError,
  NoOutputGeneratedError,
  Output,
  type LanguageModel,
  type LanguageModelUsage,
} from "ai";
import { type z } from "zod";
import { RefinementError } from "../refinement-error";
import { type ModelCallUsage } from "../types";

/** The id a model is recorded under. */
export function modelIdOf(model: LanguageModel): string {
  return typeof model === "string" ? model : model.modelId;
}

function toUsage(modelId: string, usage: LanguageModelUsage | undefined): ModelCallUsage {
  const result: ModelCallUsage = { modelId };
  if (usage?.inputTokens !== undefined) result.inputTokens = usage.inputTokens;
  if (usage?.outputTokens !== undefined) result.outputTokens = usage.outputTokens;
  if (usage?.totalTokens !== undefined) result.totalTokens = usage.totalTokens;
  return result;
}

function excerpt(text: string | undefined): string | undefined {
  return text === undefined ? undefined : text.slice(0, 500);
}

/** What a call whose output was cut off at the token limit (finish reason `length`) comes to. */
function truncated(
  maxOutputTokens: number,
  ended: { usage: ModelCallUsage; finishReason: string; text: string | undefined },
  cause?: unknown,
): RefinementError {
  return new RefinementError({
    reason: "truncated",
    message: `The model's output was cut off at the ${maxOutputTokens}-token limit; nothing was applied`,
    details: { usage: ended.usage, finishReason: ended.finishReason, text: excerpt(ended.text) },
    ...(cause !== undefined ? { cause } : {}),
  });
}

/**
 * One structured-output call. Distinguishes output cut off at the token limit
 * (`refine:truncated`: finish reason `length`, whether or not what arrived happens to parse)
 * from output that is not JSON of the schema (`refine:malformed`) and from a failed call
 * (`refine:model`). Every such error carries `details.usage` so the tokens are still
 * recorded. An aborted call rethrows the abort as is.
 */
export async function structuredCall<T>(options: {
  model: LanguageModel;
  instructions: string;
  prompt: string;
  schema: z.ZodType<T>;
  maxOutputTokens: number;
  abortSignal?: AbortSignal;
}): Promise<{ output: T; usage: ModelCallUsage }> {
  const modelId = modelIdOf(options.model);
  let result: Awaited<ReturnType<typeof generateText>>;
  try {
    result = await generateText({
      model: options.model,
      instructions: options.instructions,
      prompt: options.prompt,
      output: Output.object({ schema: options.schema }),
      maxOutputTokens: options.maxOutputTokens,
      abortSignal: options.abortSignal,
      maxRetries: 1,
    });
  } catch (error) {
    if (options.abortSignal?.aborted) throw error;
    if (NoObjectGeneratedError.isInstance(error)) {
      const usage = toUsage(modelId, error.usage);
      if (error.finishReason === "length") {
        throw truncated(
          options.maxOutputTokens,
          { usage, finishReason: "length", text: error.text },
          error,
        );
      }
      throw new RefinementError({
        reason: "malformed",
        message: `The model's output was not valid JSON of the expected shape: ${error.message}`,
        details: { usage, finishReason: error.finishReason, text: excerpt(error.text) },
        cause: error,
      });
    }
    throw new RefinementError({
      reason: "model",
      message: `The model call failed: ${error instanceof Error ? error.message : String(error)}`,
      details: { usage: { modelId } },
      cause: error,
    });
  }
  const usage = toUsage(modelId, result.totalUsage);
  if (result.finishReason === "length") {
    throw truncated(options.maxOutputTokens, { usage, finishReason: "length", text: result.text });
  }
  try {
    return { output: result.output as T, usage };
  } catch (error) {
    if (!NoOutputGeneratedError.isInstance(error)) throw error;
    throw new RefinementError({
      reason: "malformed",
      message: "The model returned no structured output",
      details: { usage, finishReason: result.finishReason, text: excerpt(result.text) },
      cause: error,
    });
  }
}
