/**
 * The core's testing helpers: the conformance suites every adapter must pass, the in-memory
 * reference implementations of each port, and scripted AI SDK mock models for turns and
 * refinements. For tests, benchmarks and examples — not for the app's runtime code.
 */
export {
  createInMemorySpool,
  createInMemoryTurnJournal,
  createInMemoryCommitLog,
  createInMemoryDirBacking,
  type InMemoryCommitLog,
  type InMemoryDirBacking,
} from "./persistent";
export { InMemoryHarnessStorage } from "./store";
export { InMemoryRefinementHistory } from "./portability";
export { entryContent, readTree } from "./portability/internal/testing";
export { InMemoryRefinementStore } from "./refine";
export { runHarnessStorageConformance } from "./store/store-conformance";
export { runDirBackingConformance } from "./persistent/dir-backing-conformance";
export {
  flakyStore,
  runContendedTurns,
  seededRandom,
  sharedFile,
  sleep,
} from "./persistent/internal/testing";
export { runRefinementStoreConformance } from "./refine/refinement-store-conformance";
export {
  drain,
  promptText,
  scriptedModel,
  streamOf,
  textReply,
  toolCallReply,
  toolResults,
  userMessage,
} from "./turn/internal/testing";
export {
  harnessFixture,
  promptOf,
  reply as refinementReply,
  scriptedModel as scriptedRefinementModel,
  sectionOf,
  systemOf,
} from "./refine/internal/test-support";
export {
  coreErrorFamily,
  coreErrorStatuses,
  runErrorFamilyConformance,
  type ErrorFamilyMember,
} from "./errors/error-family-conformance";
