import { InMemoryRefinementStore } from "./refinement-store";
import { runRefinementStoreConformance } from "./refinement-store-conformance";

runRefinementStoreConformance("in memory", async () => ({
  store: new InMemoryRefinementStore(),
  cleanup: async () => {},
}));
