import { InMemoryHarnessStorage } from "./in-memory-storage";
import { runHarnessStorageConformance } from "./store-conformance";

runHarnessStorageConformance("in-memory", async () => ({
  storage: new InMemoryHarnessStorage(),
  cleanup: async () => {},
}));
