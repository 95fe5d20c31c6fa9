/**
 * Search over memory, company knowledge, the docs folder, harness entries and chat messages
 * (docs/search.md). The index is written in the same transaction as what it mirrors; queries
 * filter by who asks before anything is ranked.
 */
export {
  DOCS_DIR_KEY,
  SEARCH_KINDS,
  indexDirCommit,
  dirSearchTarget,
  indexDirChanges,
  indexDocsFolder,
  reindexAll,
  type IndexedDirChanges,
  type ReindexReport,
  type SearchKind,
} from "./index-store";
export { splitIntoPassages, messageText, type Passage } from "./passages";
export { parseQuery, type ParsedQuery } from "./query";
export {
  DEFAULT_SEARCH_LIMIT,
  FIELD_WEIGHTS,
  MAX_SEARCH_LIMIT,
  chatMessageMatch,
  searchPassages,
  type SearchActor,
  type SearchHit,
  type SearchResultItem,
  type SearchOptions,
} from "./search";
export {
  createSearchService,
  type SearchEmbeddingsResolver,
  type SearchMode,
  type SearchService,
} from "./search-service";
export {
  PROMPT_MAX_CANDIDATES,
  PROMPT_TERM_MAX_PASSAGES,
  relevantPassagesSection,
  searchPromptPassages,
} from "./prompt-passages";
export {
  SEARCH_SCOPES,
  SEARCH_TOOL_DESCRIPTION,
  createSearchTool,
  describeHit,
  formatSearchResult,
  kindOfScope,
  searchToolInput,
  type SearchScope,
  type SearchToolInput,
} from "./agent-tool";
export { formatSnippet, snippetOf, type SnippetSegment } from "./snippet";
export {
  RERANK_CANDIDATES,
  RRF_K,
  embeddingModelKey,
  reciprocalRankFusion,
  rerankWithEmbeddings,
  type SearchEmbeddings,
} from "./embeddings";
