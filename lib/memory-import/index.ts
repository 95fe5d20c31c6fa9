export {
  MAX_PROPOSALS,
  proposeFromConversations,
  proposeFromExportFile,
  proposeFromPastedText,
  type MemoryProposal,
} from "./propose-memory-notes";
