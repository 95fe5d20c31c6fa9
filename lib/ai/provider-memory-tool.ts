import { anthropic } from "@ai-sdk/anthropic";
import type { Tool } from "ai";
import type { ModelProvider } from "./resolve-model-config";

/** Mirrors the input the harness's memory tool accepts (Anthropic's `memory_20250818`). */
type MemoryInput = Parameters<
  Parameters<typeof anthropic.tools.memory_20250818>[0]["execute"] & {}
>[0];

/**
 * The provider's own memory-tool definition, when it has one: with Anthropic the model gets its
 * native memory tool (the one it was trained on) while Cairn executes the commands against the
 * turn's checkout. Other providers get the harness's function tool with the same input.
 */
export function providerMemoryTool(
  provider: ModelProvider,
): ((execute: (input: MemoryInput) => Promise<string>) => Tool) | undefined {
  if (provider !== "anthropic") return undefined;
  return (execute) => anthropic.tools.memory_20250818({ execute }) as Tool;
}
