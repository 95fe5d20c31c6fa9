export {
  DEFAULT_MAX_TOOL_OUTPUT_CHARS,
  streamHarness,
  type StreamHarnessOptions,
} from "./stream-harness";
export {
  DEFAULT_SHELL_LIMITS,
  runShellSandbox,
  type ShellLimits,
  type ShellRunResult,
} from "./shell-sandbox";
export { buildInstructions } from "./instructions";
export {
  UNTRUSTED_DATA_RULE,
  UNTRUSTED_DATA_TAG,
  escapeUntrustedData,
  markUntrusted,
} from "./untrusted-data";
export { DEFAULT_SSE_FLUSH_INTERVAL_MS, type SseResponseOptions } from "./turn-stream";
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
export {
  createDelegateTool,
  createHarnessTools,
  type GlobalEntryProposal,
  type SuggestGlobalEntry,
} from "./harness-tools";
export {
  createEntryOfKind,
  updateEntryOfKind,
  type CreateEntryCommon,
  type EntryWriteFields,
  type UpdateEntryCommon,
} from "./entry-writes";
export * from "./types";
