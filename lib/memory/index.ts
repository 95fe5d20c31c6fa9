/** The Memory page's list: memory files and memory entries, each with where it came from. */
export {
  listMemories,
  type Memories,
  type MemoryEntryItem,
  type MemoryFileItem,
  type MemoryOrigin,
} from "./list-memories";
