import { InMemoryHarnessStorage } from "./in-memory-storage";
import { runHarnessStorageConformance } from "./store-conformance";

runHarnessStorageConformance("in-memory", async () => ({
  storage: new InMemoryHarnessStorage(),
  cleanup: async () => {},
}));

// The core must work the same on a storage without the optional capabilities.
runHarnessStorageConformance("in-memory, required methods only", async () => {
  const storage = new InMemoryHarnessStorage();
  return {
    storage: Object.assign(storage, { getEntryAndLastRevision: undefined }),
    cleanup: async () => {},
  };
});
