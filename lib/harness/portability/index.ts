export {
  HARNESS_STATE_FILE,
  REFINEMENTS_FILE,
  SKILLS_DIR,
  SKILL_FILE,
  SUBAGENTS_DIR,
  exportHarness,
  renderExport,
  type ExportHarnessOptions,
  type ExportHarnessReport,
} from "./export-harness";
export {
  DEFAULT_IMPORT_LIMITS,
  importHarness,
  type ImportHarnessOptions,
  type ImportHarnessReport,
  type ImportLimits,
  type ImportSkip,
  type ImportedEntry,
} from "./import-harness";
export {
  InMemoryRefinementHistory,
  formatRefinementLines,
  parseRefinementLines,
  refinementRecordKey,
  type ParsedRefinementLines,
  type RefinementHistoryRecord,
  type RefinementHistorySink,
  type RefinementRecordKind,
} from "./refinement-history";
export { FrontmatterError } from "./internal/frontmatter";
