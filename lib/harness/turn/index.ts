export { streamHarness, type StreamHarnessOptions } from "./stream-harness";
export { buildInstructions } from "./instructions";
export { compactConversation, estimateConversationTokens, messageText } from "./compaction";
export {
  createMemoryTool,
  formatDirectoryListing,
  memoryToolInputSchema,
  runMemoryCommand,
  MEMORY_TOOL_DESCRIPTION,
  type MemoryToolInput,
} from "./memory-tool";
export { createShellTool, runShellCommand } from "./shell-tool";
export { createDelegateTool, createHarnessTools } from "./harness-tools";
export type {
  CompactionOptions,
  HarnessDefinition,
  HarnessTurn,
  InstructionsSection,
  TurnContext,
  TurnPersistenceErrorEvent,
  TurnResult,
  TurnResultStatus,
  TurnStatusData,
  TurnTraceEvent,
} from "./types";
